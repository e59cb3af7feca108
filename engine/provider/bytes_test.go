package provider

import (
	"bytes"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/rea-re/rea/engine/fault"
)

// refParse is the pattern grammar written the plain way (split on spaces,
// decode each token with encoding/hex): the fuzz target holds the parser to
// it.
func refParse(s string) (BytePattern, bool) {
	var p BytePattern
	for _, tok := range strings.Split(s, " ") {
		switch {
		case tok == "":
		case tok == "??":
			p.Bytes, p.Literal = append(p.Bytes, 0), append(p.Literal, false)
		case len(tok) == 2:
			b, err := hex.DecodeString(tok)
			if err != nil {
				return BytePattern{}, false
			}
			p.Bytes, p.Literal = append(p.Bytes, b[0]), append(p.Literal, true)
		default:
			return BytePattern{}, false
		}
	}
	if len(p.Bytes) < 1 || len(p.Bytes) > MaxPatternBytes || !slices.Contains(p.Literal, true) {
		return BytePattern{}, false
	}
	return p, true
}

func TestParseBytePattern(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // hex with ?? for wildcards, "" = rejected
	}{
		{"f3 0f 1e fa", "f30f1efa"},
		{"E8 ?? ?? ?? ??", "e8????????"},
		{"  55  48 89 e5 ", "554889e5"},
		{"?? 00", "??00"},
		{"ff", "ff"},
		{"", ""},
		{"   ", ""},
		{"?? ??", ""},
		{"f30f", ""},
		{"f 3", ""},
		{"g0", ""},
		{"4?", ""},
		{"?4", ""},
		{"0x90", ""},
		{"90\t90", ""},
		{"90,90", ""},
		{strings.Repeat("90 ", MaxPatternBytes), strings.Repeat("90", MaxPatternBytes)},
		{strings.Repeat("90 ", MaxPatternBytes+1), ""},
	} {
		p, err := ParseBytePattern(tc.in)
		if tc.want == "" {
			if err == nil {
				t.Errorf("%q: accepted as %v", tc.in, p)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got := patternString(p); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.in, got, tc.want)
		}
	}
}

func TestBytePatternParam(t *testing.T) {
	for _, tc := range []struct {
		in     Params
		reason string
	}{
		{Params{}, "missing_argument"},
		{Params{"pattern": ""}, "out_of_range"},
		{Params{"pattern": strings.Repeat("?? ", 300)}, "out_of_range"},
		{Params{"pattern": "zz"}, "invalid_format"},
		{Params{"pattern": "?? ??"}, "invalid_format"},
	} {
		_, err := BytePatternParam(OpSearchBytes, tc.in)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.InvalidRequest {
			t.Errorf("%v: %v, want invalid_request", tc.in, err)
			continue
		}
		issues, _ := fe.Details["issues"].([]fault.Issue)
		if len(issues) != 1 || issues[0].Path != "/pattern" || issues[0].Reason != tc.reason {
			t.Errorf("%v: issues %+v, want /pattern %s", tc.in, issues, tc.reason)
		}
	}
}

func TestReadLength(t *testing.T) {
	if n, err := ReadLength(OpReadBytes, Params{"length": int64(MaxReadBytes)}); err != nil || n != MaxReadBytes {
		t.Errorf("at the bound: %d %v", n, err)
	}
	for _, in := range []Params{{}, {"length": nil}, {"length": int64(0)}, {"length": int64(MaxReadBytes + 1)}, {"length": int64(-1)}} {
		if _, err := ReadLength(OpReadBytes, in); !fault.Is(err, fault.InvalidRequest) {
			t.Errorf("%v: %v, want invalid_request", in, err)
		}
	}
}

func patternString(p BytePattern) string {
	var b strings.Builder
	for i, c := range p.Bytes {
		if p.Literal[i] {
			b.WriteString(hex.EncodeToString([]byte{c}))
		} else {
			b.WriteString("??")
		}
	}
	return b.String()
}

// FuzzParseBytePattern holds the parser to the plain reference grammar: it
// accepts exactly what the reference accepts, with the same bytes.
func FuzzParseBytePattern(f *testing.F) {
	for _, s := range []string{"f3 0f 1e fa", "e8 ?? ?? ?? ??", " 55 ", "?? ??", "4?", "0x90", "", strings.Repeat("ab ", 257)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseBytePattern(s)
		want, ok := refParse(s)
		if (err == nil) != ok {
			t.Fatalf("%q: parser err %v, reference ok %v", s, err, ok)
		}
		if ok && (!bytes.Equal(got.Bytes, want.Bytes) || !slices.Equal(got.Literal, want.Literal)) {
			t.Fatalf("%q: %s, reference %s", s, patternString(got), patternString(want))
		}
	})
}
