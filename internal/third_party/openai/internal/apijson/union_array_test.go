package apijson

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/toolhost/toolhost/internal/third_party/openai/packages/param"
)

type arrayDiscriminatedUnion struct {
	OfText    *arrayDiscriminatedText    `json:",omitzero,inline"`
	OfRefusal *arrayDiscriminatedRefusal `json:",omitzero,inline"`
	param.APIUnion
}

type arrayDiscriminatedText struct {
	Type        string                          `json:"type"`
	Text        string                          `json:"text"`
	Nested      arrayNestedDiscriminatedUnion   `json:"nested"`
	NestedParts []arrayNestedDiscriminatedUnion `json:"nested_parts"`
}

type arrayDiscriminatedRefusal struct {
	Type    string `json:"type"`
	Refusal string `json:"refusal"`
}

type arrayDiscriminatedList []arrayDiscriminatedUnion

func (r *arrayDiscriminatedList) UnmarshalJSON(data []byte) error {
	return UnmarshalRoot(data, r)
}

type arrayDiscriminatedHolder struct {
	Parts arrayDiscriminatedList `json:"parts"`
}

type arrayNestedDiscriminatedUnion struct {
	OfKnown *arrayNestedDiscriminatedKnown `json:",omitzero,inline"`
	param.APIUnion
}

type arrayNestedDiscriminatedKnown struct {
	Type string `json:"type"`
}

func init() {
	RegisterUnion[arrayDiscriminatedUnion](
		"type",
		Discriminator[arrayDiscriminatedText]("text"),
		Discriminator[arrayDiscriminatedRefusal]("refusal"),
	)
	RegisterUnion[arrayNestedDiscriminatedUnion](
		"type",
		Discriminator[arrayNestedDiscriminatedKnown]("known"),
	)
}

func TestArrayDecoderPreservesUnknownDiscriminatedUnionVariant(t *testing.T) {
	var got arrayDiscriminatedHolder
	err := Unmarshal([]byte(`{"parts":[{"type":"extension","text":"unknown"},{"type":"text","text":"kept"}]}`), &got)
	if err != nil {
		t.Fatalf("Unmarshal returned error: %v", err)
	}
	if len(got.Parts) != 2 {
		t.Fatalf("decoded parts = %d, want 2", len(got.Parts))
	}
	unknown, ok := got.Parts[0].Overrides()
	if !ok || !reflect.DeepEqual(unknown, json.RawMessage(`{"type":"extension","text":"unknown"}`)) {
		t.Fatalf("unknown union variant was not preserved: %#v", unknown)
	}
	if got.Parts[1].OfText == nil || got.Parts[1].OfText.Text != "kept" {
		t.Fatalf("supported union variant was not preserved: %#v", got.Parts[1])
	}
}

func TestArrayDecoderPropagatesKnownUnionElementExactness(t *testing.T) {
	cases := map[string]exactness{
		`{"parts":[{"type":"text","text":"kept","extra":true}]}`: extras,
		`{"parts":[{"type":"text","text":42}]}`:                  loose,
	}

	for raw, expected := range cases {
		t.Run(raw, func(t *testing.T) {
			var got arrayDiscriminatedHolder
			decoder := decoderBuilder{root: true}
			exactness, err := decoder.unmarshalWithExactness([]byte(raw), &got)
			if err != nil {
				t.Fatalf("Unmarshal returned error: %v", err)
			}
			if exactness != expected {
				t.Fatalf("exactness = %d, want %d", exactness, expected)
			}
		})
	}
}

func TestArrayDecoderDoesNotPreserveMalformedUnionElement(t *testing.T) {
	var got arrayDiscriminatedHolder
	err := Unmarshal([]byte(`{"parts":[42,{"type":"text","text":"kept"}]}`), &got)
	if err != nil {
		t.Fatalf("Unmarshal returned error: %v", err)
	}
	if len(got.Parts) != 0 {
		t.Fatalf("malformed element should keep the array invalid; decoded parts = %d", len(got.Parts))
	}
}

func TestUnknownDiscriminatedUnionStillErrorsOutsideArray(t *testing.T) {
	var got arrayDiscriminatedUnion
	if err := Unmarshal([]byte(`{"type":"extension","text":"unknown"}`), &got); err == nil {
		t.Fatal("unknown discriminated union unexpectedly decoded without an error")
	}
}

func TestArrayDecoderDoesNotPreserveNestedUnknownDiscriminatedUnion(t *testing.T) {
	var got arrayDiscriminatedHolder
	err := Unmarshal([]byte(`{"parts":[{"type":"text","text":"kept","nested":{"type":"extension"}}]}`), &got)
	if err != nil {
		t.Fatalf("Unmarshal returned error: %v", err)
	}
	if len(got.Parts) != 1 || got.Parts[0].OfText == nil {
		t.Fatalf("known array element was not decoded: %#v", got.Parts)
	}
	if _, ok := got.Parts[0].OfText.Nested.Overrides(); ok {
		t.Fatal("nested unknown union was unexpectedly preserved")
	}
}

func TestArrayDecoderPreservesUnknownNestedArrayElement(t *testing.T) {
	var got arrayDiscriminatedHolder
	err := Unmarshal([]byte(`{"parts":[{"type":"text","text":"kept","nested_parts":[{"type":"extension"}]}]}`), &got)
	if err != nil {
		t.Fatalf("Unmarshal returned error: %v", err)
	}
	if len(got.Parts) != 1 || got.Parts[0].OfText == nil || len(got.Parts[0].OfText.NestedParts) != 1 {
		t.Fatalf("nested array element was not decoded: %#v", got.Parts)
	}
	if _, ok := got.Parts[0].OfText.NestedParts[0].Overrides(); !ok {
		t.Fatal("unknown nested array element was not preserved")
	}
}

func TestMissingDiscriminatorStillErrors(t *testing.T) {
	var got arrayDiscriminatedUnion
	if err := Unmarshal([]byte(`{"text":"missing type"}`), &got); err == nil {
		t.Fatal("missing discriminator unexpectedly decoded without an error")
	}
}

func TestArrayDecoderDoesNotPreserveMissingDiscriminator(t *testing.T) {
	var got arrayDiscriminatedHolder
	if err := Unmarshal([]byte(`{"parts":[{"text":"missing type"},{"type":"text","text":"kept"}]}`), &got); err != nil {
		t.Fatalf("Unmarshal returned error: %v", err)
	}
	if len(got.Parts) != 0 {
		t.Fatalf("missing discriminator should keep the array invalid; decoded parts = %d", len(got.Parts))
	}
}

func TestArrayDecoderDoesNotPreserveWrongDiscriminatorType(t *testing.T) {
	var got arrayDiscriminatedHolder
	if err := Unmarshal([]byte(`{"parts":[{"type":42,"text":"wrong type"},{"type":"text","text":"kept"}]}`), &got); err != nil {
		t.Fatalf("Unmarshal returned error: %v", err)
	}
	if len(got.Parts) != 0 {
		t.Fatalf("wrong discriminator type should keep the array invalid; decoded parts = %d", len(got.Parts))
	}
}

type inlineSelectorConstant string

func (inlineSelectorConstant) Default() inlineSelectorConstant { return "" }

type inlineSelectorA struct {
	K     inlineSelectorConstant `json:"k" default:"x"`
	R     inlineSelectorConstant `json:"r" default:"a"`
	Value int                    `json:"value"`
}
type inlineSelectorB struct {
	K     inlineSelectorConstant `json:"k" default:"x"`
	R     inlineSelectorConstant `json:"r" default:"b"`
	Q     inlineSelectorConstant `json:"q" default:"q"`
	S     inlineSelectorConstant `json:"s" default:"c"`
	Value int                    `json:"value"`
}
type inlineSelectorC struct {
	Q     inlineSelectorConstant `json:"q" default:"q"`
	S     inlineSelectorConstant `json:"s" default:"d"`
	Value int                    `json:"value"`
}

func TestInlineUnionSelectionPreservesAmbiguousAndUnknownValues(t *testing.T) {
	for _, target := range []any{
		&struct {
			A inlineSelectorA `json:",inline"`
			B inlineSelectorB `json:",inline"`
			C inlineSelectorC `json:",inline"`
		}{},
		&struct {
			C inlineSelectorC `json:",inline"`
			B inlineSelectorB `json:",inline"`
			A inlineSelectorA `json:",inline"`
		}{},
	} {
		for _, tc := range []struct{ wire, selected string }{
			{`{"k":"x","r":"a","value":1}`, "A"},
			{`{"k":"x","r":"b","value":1}`, "B"},
			{`{"k":"x","r":"a","q":"q","s":"c","value":1}`, ""},
			{`{"k":"x","r":"future","value":1}`, ""},
			{`{"k":"x","r":null,"value":1}`, ""},
			{`{"k":"x","r":42,"value":1}`, ""},
			{`{"k":"x","value":1}`, ""},
			{`{"k":"future","r":"a","value":1}`, ""},
		} {
			if err := UnmarshalRoot([]byte(tc.wire), target); err != nil {
				t.Fatal(err)
			}
			value := reflect.ValueOf(target).Elem()
			for i := 0; i < value.NumField(); i++ {
				want := tc.selected == "" || value.Type().Field(i).Name == tc.selected
				if got := value.Field(i).FieldByName("Value").Int() == 1; got != want {
					t.Errorf("%s: %s selected=%v, want %v", tc.wire, value.Type().Field(i).Name, got, want)
				}
			}
		}
	}
}
