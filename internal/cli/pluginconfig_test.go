package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tailscale/hujson"
)

func TestPluginListEditsKeepTheConfigsCommentsOrderAndIndentation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      string
		ref     string
		add     bool
		want    string
		wantErr bool
	}{
		{
			name: "a new plugin list goes on its own line after the last member, comments kept",
			in:   "{\n  // keep me\n  \"model\": \"m\", // trailing\n  /* block */\n  \"wasm\": {\n    \"a\": {}\n  }\n}\n",
			ref:  "./vendor/acme", add: true,
			want: "{\n  // keep me\n  \"model\": \"m\", // trailing\n  /* block */\n  \"wasm\": {\n    \"a\": {}\n  },\n  \"plugin\": [\"./vendor/acme\"]\n}\n",
		},
		{
			name: "a trailing comment of the last member stays on its line",
			in:   "{\n\t\"model\": \"m\" // the model\n}\n",
			ref:  "x", add: true,
			want: "{\n\t\"model\": \"m\", // the model\n\t\"plugin\": [\"x\"]\n}\n",
		},
		{
			name: "a trailing comma stays",
			in:   "{\n    \"model\": \"m\",\n}\n",
			ref:  "x", add: true,
			want: "{\n    \"model\": \"m\",\n    \"plugin\": [\"x\"],\n}\n",
		},
		{
			name: "an element joins a one-per-line list at its indentation, after its comment",
			in:   "{\n  \"plugin\": [\n    \"a\" // first\n  ]\n}\n",
			ref:  "b", add: true,
			want: "{\n  \"plugin\": [\n    \"a\", // first\n    \"b\"\n  ]\n}\n",
		},
		{
			name: "a list with a trailing comma keeps it",
			in:   "{\n  \"plugin\": [\n    \"a\",\n  ],\n}\n",
			ref:  "b", add: true,
			want: "{\n  \"plugin\": [\n    \"a\",\n    \"b\",\n  ],\n}\n",
		},
		{
			name: "an element joins a one-line list after a space",
			in:   "{\"plugin\": [\"a\"], \"x\": 1}",
			ref:  "b", add: true,
			want: "{\"plugin\": [\"a\", \"b\"], \"x\": 1}",
		},
		{
			name: "an empty file gets an indented member",
			in:   "{\n}\n",
			ref:  "x", add: true,
			want: "{\n  \"plugin\": [\"x\"]\n}\n",
		},
		{
			name: "a reference already listed changes nothing",
			in:   "{ /* c */ \"plugin\": [\"x\"] }",
			ref:  "x", add: true,
			want: "{ /* c */ \"plugin\": [\"x\"] }",
		},
		{
			name: "removing keeps the other elements and comments",
			in:   "{\n  // plugins\n  \"plugin\": [\n    \"a\", // first\n    \"b\"\n  ]\n}\n",
			ref:  "b", add: false,
			want: "{\n  // plugins\n  \"plugin\": [\n    \"a\" // first\n  ]\n}\n",
		},
		{
			name: "a plugin value that is not a list is refused",
			in:   "{\"plugin\": \"x\"}",
			ref:  "y", add: true, wantErr: true,
		},
		{
			name: "a config that is not an object is refused",
			in:   "[]",
			ref:  "y", add: true, wantErr: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := patchPluginList([]byte(tt.in), tt.ref, tt.add)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("no error; got %s", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestEditPluginListCreatesAMissingConfigAndLeavesAnUnchangedOneAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "toolhost.json")
	if err := editPluginList(file, "./p", true); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "{\n  \"plugin\": [\"./p\"]\n}\n" {
		t.Errorf("new config = %q", b)
	}
	if err := editPluginList(filepath.Join(dir, "none.json"), "./p", false); err != nil {
		t.Errorf("removing from a missing file: %v", err)
	}
}

// FuzzPatchPluginList: whatever the config text, an edit either fails or
// yields a config that parses, lists the reference exactly when added,
// and leaves every other member as it was.
func FuzzPatchPluginList(f *testing.F) {
	for _, s := range []string{
		"{\n  // c\n  \"model\": \"m\", // t\n}\n",
		"{\"plugin\": [\"a\", /* x */ \"b\",]}",
		"{\n\t\"plugin\": [\n\t\t\"a\" // first\n\t]\n}",
		"{}", "[]", "{\"plugin\": null}", "{\"plugin\": [1]}",
	} {
		f.Add(s, "./vendor/acme", true)
		f.Add(s, "a", false)
	}
	f.Fuzz(func(t *testing.T, in, ref string, add bool) {
		out, err := patchPluginList([]byte(in), ref, add)
		if err != nil {
			return
		}
		before, _ := standardMembers([]byte(in))
		after, err := standardMembers(out)
		if err != nil {
			t.Fatalf("the edited config does not parse: %v\n%s", err, out)
		}
		for k, v := range before {
			if k != "plugin" && after[k] != v {
				t.Fatalf("member %s changed from %s to %s", k, v, after[k])
			}
		}
		var list []string
		json.Unmarshal([]byte(after["plugin"]), &list)
		if slices.Contains(list, ref) != add {
			t.Fatalf("after add=%v, plugin list is %v (ref %q)\n%s", add, list, ref, out)
		}
	})
}

// standardMembers parses a JSONC object into its members' standard JSON.
func standardMembers(data []byte) (map[string]string, error) {
	v, err := hujson.Parse(data)
	if err != nil {
		return nil, err
	}
	v.Standardize()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(v.Pack(), &m); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, raw := range m {
		var x any
		json.Unmarshal(raw, &x)
		b, _ := json.Marshal(x)
		out[k] = string(b)
	}
	return out, nil
}
