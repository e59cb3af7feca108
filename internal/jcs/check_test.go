package jcs

import (
	"bytes"
	"encoding/json"
	"testing"

	gowebpki "github.com/gowebpki/jcs"
)

// FuzzCanonicalJSON holds the single-pass canonical-form check to the
// reference implementation: b is canonical iff gowebpki/jcs's Transform(b)
// == b. Canonicalize must then return b itself, and otherwise what the
// reference returns.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{
		`{}`, `[]`, `""`, `0`, `-0`, `1.0`, `1e21`, `1e+21`, `0.000001`, `1e-7`, `123456789012345678`,
		`{"a":1,"b":[true,false,null]}`, `{"b":1,"a":2}`, `{"a":1,"a":1}`, `{ "a":1}`, `"\u0041"`, `"\u001f"`,
		`"\u001F"`, `"\n"`, `"\/"`, `"é"`, `"\ud83d\ude00"`, `"😀"`, `{"😀":1,"\ue000":2}`, `{"\ue000":2,"😀":1}`,
		`"\u2028"`, "\"\u2028\"", "\"\x7f\"", `[1,]`, `[01]`, `1E3`, `-1.5e-7`, `9007199254740993`, `{"a":{"b":{}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ref, refErr := gowebpki.Transform(b)
		want := refErr == nil && bytes.Equal(ref, b)
		if got := IsCanonical(b); got != want {
			t.Fatalf("IsCanonical(%q) = %v, gowebpki/jcs says %v", b, got, want)
		}
		c, err := Canonicalize(b)
		switch {
		case (err == nil) != (refErr == nil):
			t.Fatalf("Canonicalize(%q): err %v, reference err %v", b, err, refErr)
		case err == nil && !bytes.Equal(c, ref):
			t.Fatalf("Canonicalize(%q)\n got %s\nwant %s", b, c, ref)
		case want && &c[0] != &b[0]:
			t.Fatalf("Canonicalize(%q) copied canonical input", b)
		}
		if want && b[0] == '"' {
			var ref string
			end, got, err := NewScanner(b).String(0)
			if err != nil || end != len(b) || json.Unmarshal(b, &ref) != nil || got != ref {
				t.Fatalf("String(%q) = %q, %d, %v; encoding/json reads %q", b, got, end, err, ref)
			}
		}
	})
}

// TestScanner reads members of a canonical document the way the ledger's
// envelope parser does, and refuses what is not canonical.
func TestScanner(t *testing.T) {
	doc := []byte(`{"a":{"\n":"x\"y","z":[1,{}]},"b":"\u001f😀","c":-1.5e-7}`)
	s := NewScanner(doc)
	got := map[string]string{}
	end, err := s.Object(0, func(name []byte, v int) (int, error) {
		if doc[v] == '"' {
			end, value, err := s.String(v)
			got[string(name)] = value
			return end, err
		}
		if doc[v] == '{' {
			return s.Object(v, func(name []byte, v int) (int, error) {
				if doc[v] != '"' {
					return s.Value(v)
				}
				end, value, err := s.String(v)
				got["a."+string(name)] = value
				return end, err
			})
		}
		return s.Value(v)
	})
	if err != nil || end != len(doc) {
		t.Fatalf("Object: end %d of %d, %v", end, len(doc), err)
	}
	want := map[string]string{`"b"`: "\x1f😀", `a."\n"`: `x"y`}
	if len(got) != len(want) || got[`"b"`] != want[`"b"`] || got[`a."\n"`] != want[`a."\n"`] {
		t.Errorf("members read: %q, want %q", got, want)
	}
	for _, bad := range []string{`{"b":1,"a":2}`, `{"a":1.0}`, `{"a":"\u0041"}`, `[]`, `{"a":1} `} {
		s := NewScanner([]byte(bad))
		if end, err := s.Object(0, nil); err == nil && end == len(bad) {
			t.Errorf("Object(%s) accepted", bad)
		}
	}
	if _, _, err := NewScanner([]byte(`1`)).String(0); err == nil {
		t.Error("String accepted a number")
	}
}

// BenchmarkIsCanonical is the ledger's check (4) on a canonical page: the
// single scan against the literal JCS(parse(C)) == C with either
// transformer.
func BenchmarkIsCanonical(b *testing.B) {
	page, err := Transform(benchPage())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if !IsCanonical(page) {
				b.Fatal("not canonical")
			}
		}
	})
	b.Run("jcs-transform", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if out, err := Transform(page); err != nil || !bytes.Equal(out, page) {
				b.Fatal("not canonical")
			}
		}
	})
	b.Run("gowebpki-jcs", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			if out, err := gowebpki.Transform(page); err != nil || !bytes.Equal(out, page) {
				b.Fatal("not canonical")
			}
		}
	})
}
