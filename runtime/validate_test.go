package runtime

import (
	"encoding/json"
	"errors"
	"testing"
)

// A built-in's own schema is compiled without the metaschema check
// (compileSchema with own); arguments must be judged exactly as the
// checked compile judges them, and a schema from anywhere else must still
// be checked.
func TestOwnSchemaValidatesLikeACheckedOne(t *testing.T) {
	t.Parallel()
	type args struct {
		FilePath string   `json:"filePath" jsonschema:"description=a path"`
		Offset   int      `json:"offset,omitempty" jsonschema:"minimum=0"`
		Tags     []string `json:"tags,omitempty" jsonschema:"maxItems=2"`
		Mode     string   `json:"mode,omitempty" jsonschema:"enum=a,enum=b"`
	}
	schema := SchemaFor[args]()
	checked, err := compileSchema("t", schema, false)
	if err != nil {
		t.Fatal(err)
	}
	own, err := compileSchema("t", schema, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{
		`{"filePath":"a"}`,
		`{}`,
		`{"filePath":5}`,
		`{"filePath":"a","offset":-1}`,
		`{"filePath":"a","offset":"10"}`,
		`{"filePath":"a","tags":["x","y","z"]}`,
		`{"filePath":"a","mode":"c"}`,
		`{"filePath":"a","extra":true}`,
		`[]`,
	} {
		wantOut, wantErr := checked.validate("t", json.RawMessage(in))
		gotOut, gotErr := own.validate("t", json.RawMessage(in))
		if (wantErr == nil) != (gotErr == nil) || string(wantOut) != string(gotOut) {
			t.Errorf("%s: own schema gives (%s, %v), checked gives (%s, %v)", in, gotOut, gotErr, wantOut, wantErr)
		}
		var ve *ValidationError
		if gotErr != nil && !errors.As(gotErr, &ve) {
			t.Errorf("%s: %v is not a ValidationError", in, gotErr)
		}
	}
}

func TestASchemaNotOwnIsCheckedAgainstItsMetaschema(t *testing.T) {
	t.Parallel()
	bad := json.RawMessage(`{"type":"object","properties":{"n":{"type":5}}}`)
	if _, err := compileSchema("t", bad, false); err == nil {
		t.Fatal("an invalid schema compiled with the metaschema check")
	}
	if _, err := CompileSchema("t", bad); err == nil {
		t.Fatal("CompileSchema compiled an invalid schema")
	}
}
