package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLookupFollowsKeysAndIndexes(t *testing.T) {
	t.Parallel()
	var doc any
	json.Unmarshal([]byte(`{"items": [{"name": "a"}, {"name": "b"}], "n": 1}`), &doc)
	tests := []struct {
		name, path, want, wantErr string
	}{
		{"an empty path is the whole document", "", `"n"`, ""},
		{"keys and indexes combine", "items.1.name", `"b"`, ""},
		{"a missing key lists the keys there", "nope", "", `keys there: "items", "n"`},
		{"an index out of range says how long the array is", "items.5", "", "array of 2 items"},
		{"a scalar cannot be indexed", "n.x", "", "not an object or array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := lookup(doc, tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			b, _ := json.Marshal(v)
			if !strings.Contains(string(b), strings.Trim(tt.want, `"`)) {
				t.Errorf("lookup = %s, want %s", b, tt.want)
			}
		})
	}
}

func TestSyntaxErrorNamesLineAndColumn(t *testing.T) {
	t.Parallel()
	err := syntaxError("{\n  \"a\": }", nil)
	if !strings.Contains(err.Error(), "line 2, column 8") {
		t.Errorf("err = %v", err)
	}
}
