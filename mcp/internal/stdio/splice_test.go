package stdio

import (
	"bytes"
	"strings"
	"testing"
)

// A tool's output can hold anything, placeholders of its own making
// included: the Splicer fills only those it issued, once each, and never
// what it writes in their place.
func TestSplicerFillsOnlyItsOwnPlaceholders(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	sp := NewSplicer(&out)
	long := strings.Repeat("x", spliceMin)
	p0 := sp.Text(long)
	if p0 == long {
		t.Fatal("a long text was not held")
	}
	// The held value itself names a placeholder: it must be written as
	// text, not filled in turn.
	p1 := sp.Text(long + `"` + sp.prefix + `0"`)
	unknown := sp.prefix + "99"
	foreign := "toolhost-splice-" + strings.Repeat("0", 32) + "-0"
	tests := []struct{ name, in, want string }{
		{"its own, filled", `{"a":"` + p0 + `"}`, `{"a":"` + long + `"}`},
		{"the same one again is left", `{"a":"` + p0 + `"}`, `{"a":"` + p0 + `"}`},
		{"one it never issued is left", `{"a":"` + unknown + `"}`, `{"a":"` + unknown + `"}`},
		{"another token's is left", `{"a":"` + foreign + `"}`, `{"a":"` + foreign + `"}`},
		{"its prefix with no number is left", `{"a":"` + sp.prefix + `x"}`, `{"a":"` + sp.prefix + `x"}`},
		{"its prefix at the end of the message is left", `{"a":"` + sp.prefix, `{"a":"` + sp.prefix},
		{"a value naming a placeholder is text", `["` + p1 + `"]`, `["` + long + `\"` + sp.prefix + `0\""]`},
	}
	for _, tt := range tests {
		out.Reset()
		if _, err := sp.Write([]byte(tt.in)); err != nil {
			t.Fatal(err)
		}
		if got := out.String(); got != tt.want {
			t.Errorf("%s:\n got %.200s\nwant %.200s", tt.name, got, tt.want)
		}
	}
	if len(sp.pending) != 0 {
		t.Errorf("%d values still held", len(sp.pending))
	}
}

// Past spliceMaxPending held values (responses that were never written),
// the text is given to the SDK as it is: memory stays bounded.
func TestSplicerHoldsABoundedNumberOfValues(t *testing.T) {
	t.Parallel()
	sp := NewSplicer(&bytes.Buffer{})
	long := strings.Repeat("y", spliceMin)
	for range spliceMaxPending {
		if sp.Text(long) == long {
			t.Fatal("held fewer than spliceMaxPending")
		}
	}
	if got := sp.Text(long); got != long {
		t.Errorf("past the bound the text was held: %.60q", got)
	}
	if _, ok := sp.Value([]byte(`{}`)); ok {
		t.Error("past the bound a value was held")
	}
}
