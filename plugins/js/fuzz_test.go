package js

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzCacheFiles: a damaged or hostile snapshot, manifest or bytecode file
// in the cache is ignored (rebuilt), never trusted and never a panic.
func FuzzCacheFiles(f *testing.F) {
	f.Add([]byte(`{"defs":[{"id":"a"}],"sp":1,"rt":2,"ctx":3,"bytes":1}` + "\nx"))
	f.Add([]byte(`{"toolhost":"x","inputs":{"/etc/passwd":"00"},"bytecode":"../../x.qbc"}`))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if s, defs := readSnapshot(p); s != nil && len(defs) == 0 {
			t.Fatal("a snapshot with no tools was accepted")
		}
		readBytecode(p)
		if name := fromManifest(p); name != "" && filepath.Base(name) != name {
			t.Fatalf("a manifest led out of the cache: %q", name)
		}
	})
}

// FuzzParseURL: the url host call answers anything with parts or an
// error, never a panic.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"https://a.example/x?y#z", "/rel", "http://[::1]:80/", "javascript:alert(1)", "%%%"} {
		f.Add(s, "")
		f.Add(s, "https://base.example/dir/")
	}
	f.Fuzz(func(t *testing.T, u, base string) {
		arg, _ := json.Marshal(map[string]string{"url": u, "base": base})
		parseURL(arg)
	})
}
