package plugins

import (
	"bytes"
	"testing"
)

// testModule builds a wasm binary with one import section holding imports
// (module, name) of functions of type 0.
func testModule(imports ...[2]string) []byte {
	var sec []byte
	sec = append(sec, leb(uint64(len(imports)))...)
	for _, im := range imports {
		sec = append(sec, leb(uint64(len(im[0])))...)
		sec = append(sec, im[0]...)
		sec = append(sec, leb(uint64(len(im[1])))...)
		sec = append(sec, im[1]...)
		sec = append(sec, 0, 0) // func, type 0
	}
	out := append([]byte{}, wasmMagic...)
	out = append(out, 1, 0, 0, 0)
	out = append(out, 1, 4, 1, 0x60, 0, 0) // type section: one func type () -> ()
	out = append(out, 2)
	out = append(out, leb(uint64(len(sec)))...)
	out = append(out, sec...)
	return append(out, 0, 3, 1, 'x', 'y') // a custom section after it
}

func TestRedirectImportRenamesOnlyTheNamedImport(t *testing.T) {
	t.Parallel()
	in := testModule([2]string{"extism:host/env", "alloc"}, [2]string{"extism:host/env", "http_request"})
	out, changed, err := redirectImport(in, "extism:host/env", "http_request", "toolhost:host/http")
	if err != nil || !changed {
		t.Fatalf("changed = %v, err = %v", changed, err)
	}
	want := testModule([2]string{"extism:host/env", "alloc"}, [2]string{"toolhost:host/http", "http_request"})
	if !bytes.Equal(out, want) {
		t.Errorf("rewritten module\n%x\nwant\n%x", out, want)
	}
	same, changed, err := redirectImport(in, "extism:host/env", "nope", "x")
	if err != nil || changed || !bytes.Equal(same, in) {
		t.Errorf("a module without the import must be returned unchanged")
	}
}

func FuzzRedirectImport(f *testing.F) {
	f.Add(testModule([2]string{"extism:host/env", "http_request"}))
	f.Add(testModule())
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x05\x01\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, changed, err := redirectImport(b, "extism:host/env", "http_request", "toolhost:host/http")
		if err != nil || !changed {
			return
		}
		// A rewritten module parses again, and has nothing left to rename.
		if _, again, err := redirectImport(out, "extism:host/env", "http_request", "toolhost:host/http"); err != nil || again {
			t.Fatalf("rewritten module: again = %v, err = %v", again, err)
		}
	})
}
