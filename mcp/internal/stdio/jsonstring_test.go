package stdio

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// encodingJSON is what AppendJSONString must equal: encoding/json's
// encoding of s with HTML escaping off.
func encodingJSON(t testing.TB, s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

var jsonStringSeeds = []string{
	"",
	"plain ascii",
	"quotes \" and backslashes \\ and slashes /",
	"controls \x00\x01\x07\b\f\n\r\t\x1f\x7f end",
	"markup <b>&amp;</b> stays",
	"unicode héllo ✓ 🚀 日本語",
	"separators \u2028 and \u2029",
	"invalid \xff \xfe \xc3 \xe2\x82 \xed\xa0\x80 (surrogate) \xf4\x90\x80\x80 (past U+10FFFF)",
	"ends in a cut rune \xe2\x82",
	strings.Repeat("long line of a file\n", 500),
}

func TestAppendJSONStringIsEncodingJSONs(t *testing.T) {
	t.Parallel()
	for _, s := range jsonStringSeeds {
		if got, want := string(AppendJSONString(nil, s)), encodingJSON(t, s); got != want {
			t.Errorf("AppendJSONString(%q)\n = %s\nwant %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range jsonStringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendJSONString([]byte("prefix"), s)), "prefix"+encodingJSON(t, s); got != want {
			t.Fatalf("AppendJSONString(%q)\n = %s\nwant %s", s, got, want)
		}
	})
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := strings.Repeat("line 0042: the quick brown fox jumps over the lazy dog\n", 190)
	b.Run("AppendJSONString", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		buf := make([]byte, 0, 2*len(s))
		for range b.N {
			buf = AppendJSONString(buf[:0], s)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for range b.N {
			buf.Reset()
			enc.Encode(s)
		}
	})
}

// checkJSONValue holds AppendJSONValue to json.Marshal: an error where it
// errs, else JSON that decodes to the same value.
func checkJSONValue(t *testing.T, v any) {
	t.Helper()
	want, wantErr := json.Marshal(v)
	got, err := AppendJSONValue(nil, v)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("AppendJSONValue(%#v) error %v, json.Marshal error %v", v, err, wantErr)
	}
	if err != nil {
		return
	}
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("AppendJSONValue(%#v) = %s, not JSON: %v", v, got, err)
	}
	if err := json.Unmarshal(want, &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("AppendJSONValue(%#v) = %s, decodes unlike json.Marshal's %s", v, got, want)
	}
}

func TestAppendJSONValueDecodesAsJSONMarshal(t *testing.T) {
	awkward := "<b>&amp;</b> \" \\ \u2028 \x00\x1f \xff ✓"
	for _, v := range []any{
		nil, "", awkward, true, false, 0, -1, int64(math.MaxInt64), int32(-5), uint64(math.MaxUint64),
		0.0, -0.0, 1.5, 1e-7, 1e21, 123456789.125, math.SmallestNonzeroFloat64, math.MaxFloat64,
		math.NaN(), math.Inf(1), math.Inf(-1),
		[]string{}, []string(nil), []string{"a", awkward},
		[]any{}, []any(nil), []any{1, "x", nil, []any{true}},
		map[string]any{}, map[string]any(nil),
		map[string]any{"preview": awkward, "truncated": false, "n": 3, awkward: map[string]any{"z": 1, "a": []string{"b"}}},
		map[string]any{"bad": math.NaN()},
		map[string]any{"raw": json.RawMessage(` { "a" : 1 } `), "f32": float32(0.1), "u8": uint8(7), "t": struct{ A int }{1}},
		map[string]any{"ch": make(chan int)},
	} {
		checkJSONValue(t, v)
	}
	// A map that holds itself is an error, as from json.Marshal, not a
	// stack overflow.
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	list := []any{nil}
	list[0] = map[string]any{"list": list}
	for _, v := range []any{cyclic, list} {
		if _, err := AppendJSONValue(nil, v); err == nil {
			t.Errorf("a cyclic value was encoded")
		}
	}
	// Numbers are written exactly as encoding/json writes them.
	for _, f := range []float64{0, 1, -2.5, 1e-6, 9.99e-7, 1e20, 1e21, 1.2345e-300, 3.0e+100} {
		want, _ := json.Marshal(f)
		if got, _ := AppendJSONValue(nil, f); string(got) != string(want) {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}

func FuzzAppendJSONValue(f *testing.F) {
	f.Add("preview\nline", "key", 1.5, int64(3), true)
	f.Add("<\xff\u2028>", "", 1e-7, int64(-1), false)
	f.Fuzz(func(t *testing.T, s, k string, x float64, n int64, b bool) {
		checkJSONValue(t, map[string]any{"s": s, k: []any{x, n, b, map[string]any{k: s}}, "f": x})
	})
}
