package wasm

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAWasmToolsDefaultTitleIsItsIdAndFirstArgument(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 200)
	tests := []struct {
		name string
		args string
		want string
	}{
		{"a string argument is shown as it is", `{"name":"Zoë","greeting":"hi"}`, "hello Zoë"},
		{"the first argument in the call's order wins", `{"z":"first","a":"second"}`, "hello first"},
		{"a number is shown as written", `{"count":12.50}`, "hello 12.50"},
		{"an object is compact JSON", `{"q": {"a": [1, 2]}}`, `hello {"a":[1,2]}`},
		{"no arguments: the id", `{}`, "hello"},
		{"not an object: the id", `["a"]`, "hello"},
		{"not JSON: the id", `{"a":`, "hello"},
		{"empty: the id", ``, "hello"},
		{"an empty string: the id", `{"name":""}`, "hello"},
		{"line breaks and escapes become spaces", `{"name":"a\nb\u001b[31mc\u2028d"}`, "hello a b [31mc d"},
		{"a long value is cut with an ellipsis", `{"name":"` + long + `"}`, "hello " + strings.Repeat("é", titleArgMax-1) + "…"},
		{"null is no value: the id", `{"name":null}`, "hello"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := defaultTitle("hello", json.RawMessage(tc.args)); got != tc.want {
				t.Fatalf("title = %q, want %q", got, tc.want)
			}
		})
	}
}

func FuzzDefaultTitle(f *testing.F) {
	for _, s := range []string{`{"a":"b"}`, `{"a":{"b":[1]}}`, `{`, `"x"`, "{\"a\":\"\xff\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		got := defaultTitle("id", json.RawMessage(args))
		if !strings.HasPrefix(got, "id") || strings.ContainsAny(got, "\n\r\x1b") || !utf8.ValidString(got) {
			t.Fatalf("title %q for %q", got, args)
		}
		if n := utf8.RuneCountInString(got); n > len("id ")+titleArgMax {
			t.Fatalf("title of %d runes for %q", n, args)
		}
	})
}
