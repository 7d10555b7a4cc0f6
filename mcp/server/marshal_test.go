package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/third_party/gosdk/jsonrpc"
	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/mcp/internal/stdio"
)

// The go-sdk copy encodes a plain tool result without reflection (patch
// 0003, internal/third_party/gosdk/mcp/marshal_plain.go). These hold it to what the
// generic path — json.Marshal of the result's wire struct — writes for the
// same result, mirrored here.

type mirrorText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type mirrorResult struct {
	Meta    map[string]any `json:"_meta,omitempty"`
	Content []mirrorText   `json:"content"`
	IsError bool           `json:"isError,omitempty"`
}

func checkPlainResult(t *testing.T, texts []string, nilContent bool, meta map[string]any, isError bool) {
	t.Helper()
	res := &sdk.CallToolResult{Meta: meta, IsError: isError}
	mirror := mirrorResult{Meta: meta, IsError: isError}
	if !nilContent {
		res.Content, mirror.Content = []sdk.Content{}, []mirrorText{}
		for _, s := range texts {
			res.Content = append(res.Content, &sdk.TextContent{Text: s})
			mirror.Content = append(mirror.Content, mirrorText{"text", s})
		}
	}
	got, err := json.Marshal(res)
	if err != nil {
		t.Fatalf("marshal %+v: %v", res, err)
	}
	want, err := json.Marshal(mirror)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("encoded\n%s\nwant\n%s", got, want)
	}
}

func TestAPlainToolResultIsEncodedAsTheGenericPathEncodesIt(t *testing.T) {
	awkward := "quotes \" backslash \\ <b>&amp;</b> \u2028\u2029 controls \x00\x01\x1f\t\n invalid \xff\xfe UTF-8 ✓ 🚀"
	cases := []struct {
		name       string
		texts      []string
		nilContent bool
		meta       map[string]any
		isError    bool
	}{
		{name: "empty"},
		{name: "nil content", nilContent: true},
		{name: "one text", texts: []string{"hello"}},
		{name: "awkward text", texts: []string{awkward}},
		{name: "several texts", texts: []string{"a", "", awkward}},
		{name: "error", texts: []string{"failed"}, isError: true},
		{name: "empty meta", texts: []string{"x"}, meta: map[string]any{}},
		{name: "toolhost meta", texts: []string{"x"}, meta: map[string]any{
			"toolhost/title":    "read <a.go>",
			"toolhost/metadata": map[string]any{"truncated": false, "preview": awkward, "n": 3, "f": 1.5e300},
		}},
		{name: "every kind of value", meta: map[string]any{
			"z": nil, "b": true, "s": awkward, "i": int64(-7), "u": uint8(200), "f": 0.1,
			"raw": json.RawMessage(` {"a": [1, 2] } `), "list": []any{"x", 1, nil},
			"nested": map[string]any{"k<": map[string]any{}}, "bytes": []byte("hi"),
			awkward: "key needs escaping", "": "empty key",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { checkPlainResult(t, c.texts, c.nilContent, c.meta, c.isError) })
	}
}

func FuzzPlainToolResult(f *testing.F) {
	f.Add("hello", "title", "key", 1.0, false)
	f.Add("<\u2028\xff>", "&", "\x00", -0.0, true)
	f.Fuzz(func(t *testing.T, text, title, key string, num float64, isError bool) {
		meta := map[string]any{"toolhost/title": title, key: map[string]any{"n": num, key: text}}
		if num != num || num > 1e308 || num < -1e308 { // NaN and ±Inf are not JSON: both paths fail
			if _, err := json.Marshal(&sdk.CallToolResult{Meta: meta}); err == nil {
				t.Fatal("a NaN or infinite number was encoded")
			}
			return
		}
		checkPlainResult(t, []string{text, title}, false, meta, isError)
	})
}

// TestAToolResultOfAnotherShapeTakesTheGenericPath: structured content,
// annotated or non-text content are left to the SDK's generic encoding,
// which writes what tells them apart.
func TestAToolResultOfAnotherShapeTakesTheGenericPath(t *testing.T) {
	cases := []struct {
		res  *sdk.CallToolResult
		want string
	}{
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x"}}, StructuredContent: map[string]any{"a": 1}}, `"structuredContent":{"a":1}`},
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x", Annotations: &sdk.Annotations{Priority: 0.5}}}}, `"annotations":{"priority":0.5}`},
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "x", Meta: sdk.Meta{"m": 1}}}}, `"_meta":{"m":1}`},
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}}}, `"mimeType":"image/png"`},
	}
	for _, c := range cases {
		b, err := json.Marshal(c.res)
		if err != nil || !json.Valid(b) || !strings.Contains(string(b), c.want) {
			t.Errorf("encoded %s, %v; want it to hold %s", b, err, c.want)
		}
	}
}

// TestAResponseIsEncodedAsTheSDKEncodesIt holds the stdio connection's own
// encoding of a successful response to jsonrpc.EncodeMessage's, and its
// refusals (errors, empty or non-compact results) to what EncodeMessage
// must then do.
func TestAResponseIsEncodedAsTheSDKEncodesIt(t *testing.T) {
	ids := []any{int64(0), int64(-1), int64(1) << 53, "", "abc", "quote \" <html> \u2028 \xff"}
	results := []string{`{}`, `{"content":[{"type":"text","text":"a\u003cb"}]}`, `null`, `[1,2]`, `"s"`}
	for _, idv := range ids {
		var id jsonrpc.ID
		var err error
		if s, ok := idv.(string); ok {
			id, err = jsonrpc.MakeID(s)
		} else {
			id, err = jsonrpc.MakeID(float64(idv.(int64)))
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			resp := &jsonrpc.Response{ID: id, Result: json.RawMessage(r)}
			got, ok := stdio.AppendResult(nil, resp)
			want, err := jsonrpc.EncodeMessage(resp)
			if !ok || err != nil || string(got) != string(want) {
				t.Errorf("id %#v result %s: encoded %s (%v), want %s (%v)", idv, r, got, ok, want, err)
			}
		}
	}
	one, _ := jsonrpc.MakeID(float64(1))
	for _, resp := range []*jsonrpc.Response{
		{ID: one, Error: &jsonrpc.Error{Code: -32000, Message: "no"}},
		{ID: one},
		{ID: one, Result: json.RawMessage("{\n}")},
		{Result: json.RawMessage(`{}`)},
	} {
		if got, ok := stdio.AppendResult(nil, resp); ok {
			t.Errorf("%+v was encoded here (%s); it is EncodeMessage's", resp, got)
		}
	}
}
