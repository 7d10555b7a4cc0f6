package tool

import (
	"encoding/json"
	"reflect"
	"testing"
)

type inner struct {
	X float64 `json:"x"`
}

type sample struct {
	Path    string            `json:"path" jsonschema:"description=Path to the file\\, relative"`
	Limit   int               `json:"limit,omitempty" jsonschema:"minimum=1,default=10"`
	Mode    string            `json:"mode,omitempty" jsonschema:"enum=fast,enum=slow"`
	Tags    []string          `json:"tags,omitempty"`
	Opt     *bool             `json:"opt"`
	Inner   inner             `json:"inner"`
	Labels  map[string]string `json:"labels,omitempty"`
	Skipped string            `json:"-"`
	hidden  string
}

func TestSchemaOfDescribesAStructLikeToolhostsNativeTools(t *testing.T) {
	t.Parallel()
	got, _ := json.Marshal(SchemaOf(reflect.TypeFor[sample]()))
	want := `{"properties":{"inner":{"properties":{"x":{"type":"number"}},"required":["x"],"type":"object"},"labels":{"additionalProperties":{"type":"string"},"type":"object"},"limit":{"default":10,"minimum":1,"type":"integer"},"mode":{"enum":["fast","slow"],"type":"string"},"opt":{"type":"boolean"},"path":{"description":"Path to the file, relative","type":"string"},"tags":{"items":{"type":"string"},"type":"array"}},"required":["path","inner"],"type":"object"}`
	if string(got) != want {
		t.Errorf("schema =\n%s\nwant\n%s", got, want)
	}
}

func TestSchemaOfAnEmptyStructStillHasProperties(t *testing.T) {
	t.Parallel()
	got, _ := json.Marshal(SchemaOf(reflect.TypeFor[struct{}]()))
	if string(got) != `{"properties":{},"type":"object"}` {
		t.Errorf("schema = %s", got)
	}
}

type node struct {
	Children []node `json:"children"`
}

func TestSchemaOfARecursiveTypeTerminates(t *testing.T) {
	t.Parallel()
	got, _ := json.Marshal(SchemaOf(reflect.TypeFor[node]()))
	if string(got) != `{"properties":{"children":{"items":{"type":"object"},"type":"array"}},"required":["children"],"type":"object"}` {
		t.Errorf("schema = %s", got)
	}
}
