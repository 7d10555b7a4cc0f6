package runtime

import (
	"encoding/json"
	"sync"
	"testing"
)

// The patched jsonschema copy compiles a draft's metaschema the first time
// a schema of that draft is checked, and only that draft's
// (internal/third_party/jsonschema/README.md). Every schema must still be checked
// against the metaschema of the draft it declares, from any goroutine.
func TestEverySchemaIsCheckedAgainstTheMetaschemaOfItsDraft(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		raw   string
		valid bool
	}{
		{"a schema without $schema is read as draft 2020-12", `{"type":"object","properties":{"n":{"type":"integer"}}}`, true},
		{"an invalid schema without $schema is refused", `{"type":"object","properties":{"n":{"type":5}}}`, false},
		{"a draft 2020-12 schema with prefixItems compiles", `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}]}`, true},
		{"an invalid draft 2020-12 schema is refused", `{"$schema":"https://json-schema.org/draft/2020-12/schema","minItems":-1}`, false},
		{"an invalid draft 2019-09 schema is refused", `{"$schema":"https://json-schema.org/draft/2019-09/schema","required":"a"}`, false},
		{"a draft-07 schema compiles", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":["a"]}`, true},
		{"an invalid draft-07 schema is refused", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","required":"a"}`, false},
		{"an invalid draft-06 schema is refused", `{"$schema":"http://json-schema.org/draft-06/schema#","maxLength":"3"}`, false},
		{"a draft-04 schema with a boolean exclusiveMaximum compiles", `{"$schema":"http://json-schema.org/draft-04/schema#","maximum":3,"exclusiveMaximum":true}`, true},
		{"an invalid draft-04 schema is refused", `{"$schema":"http://json-schema.org/draft-04/schema#","exclusiveMaximum":3}`, false},
		{"a schema that refers to a draft's metaschema compiles", `{"properties":{"s":{"$ref":"http://json-schema.org/draft-07/schema#"}}}`, true},
	}
	// All at once, twice over: the first compile of each draft's
	// metaschema races the others.
	var wg sync.WaitGroup
	for range 2 {
		for _, c := range cases {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := CompileSchema("t", json.RawMessage(c.raw))
				if c.valid && err != nil {
					t.Errorf("%s: %v", c.name, err)
				}
				if !c.valid && err == nil {
					t.Errorf("%s: compiled", c.name)
				}
			}()
		}
	}
	wg.Wait()
}

func TestASchemaOfADraftsMetaschemaValidatesInstancesAgainstIt(t *testing.T) {
	t.Parallel()
	cs, err := CompileSchema("t", json.RawMessage(`{"type":"object","properties":{"s":{"$ref":"http://json-schema.org/draft-07/schema#"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.validate("t", json.RawMessage(`{"s":{"type":"string"}}`)); err != nil {
		t.Errorf("a valid draft-07 schema as argument: %v", err)
	}
	if _, err := cs.validate("t", json.RawMessage(`{"s":{"type":5}}`)); err == nil {
		t.Error("an invalid draft-07 schema as argument was accepted")
	}
}
