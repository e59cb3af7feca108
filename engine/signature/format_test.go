package signature

import "testing"

func TestPrintfArgs(t *testing.T) {
	for _, c := range []struct {
		f    string
		n    int
		ok   bool
		last conversion
	}{
		{"%d:%d", 2, true, conversion{}},
		{"%s-%d", 2, true, conversion{}},
		{"%.2f\n", 1, true, conversion{float: true}},
		{"100%% %ld %*d", 3, true, conversion{}},
		{"%1$d", 0, false, conversion{}},
		{"%", 0, false, conversion{}},
		{"%lu %p", 2, true, conversion{size: 'p'}},
	} {
		got, ok := printfArgs(c.f)
		if ok != c.ok || len(got) != c.n || ok && c.n > 0 && got[c.n-1] != c.last {
			t.Errorf("printfArgs(%q) = %v, %v", c.f, got, ok)
		}
	}
}

// FuzzPrintfArgs: a format string from the sample is untrusted bytes.
func FuzzPrintfArgs(f *testing.F) {
	for _, s := range []string{"%d", "%s-%d", "%.*f%%", "%1$s", "%hhd%lld%zu", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, ok := printfArgs(s)
		if ok && len(out) > maxConversions {
			t.Fatalf("%d conversions", len(out))
		}
	})
}
