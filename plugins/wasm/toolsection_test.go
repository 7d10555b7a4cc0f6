package wasm

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
)

// exportingModule assembles a minimal wasm binary: the header, an export
// section exporting the given functions (all index 0; nothing here is
// compiled), then the given raw sections.
func exportingModule(exports []string, sections ...[]byte) []byte {
	var exp []byte
	exp = append(exp, leb(uint64(len(exports)))...)
	for _, name := range exports {
		exp = append(exp, leb(uint64(len(name)))...)
		exp = append(exp, name...)
		exp = append(exp, 0, 0) // function 0
	}
	out := append([]byte{0, 'a', 's', 'm', 1, 0, 0, 0}, rawSection(7, exp)...)
	for _, s := range sections {
		out = append(out, s...)
	}
	return out
}

func rawSection(id byte, body []byte) []byte {
	return append(append([]byte{id}, leb(uint64(len(body)))...), body...)
}

func customSection(name string, payload []byte) []byte {
	body := append(append(leb(uint64(len(name))), name...), payload...)
	return rawSection(0, body)
}

type sectionCase struct {
	Name      string          `json:"name"`
	Exports   []string        `json:"exports"`
	Section   json.RawMessage `json:"section"`
	Raw       string          `json:"raw"`
	WantTools []string        `json:"want_tools"`
	WantErr   string          `json:"want_err"`
}

// expand replaces "@repeat:c:n" strings with n copies of c, so the corpus
// can hold oversized values without holding their bytes.
func expand(payload []byte) []byte {
	for {
		i := bytes.Index(payload, []byte(`"@repeat:`))
		if i < 0 {
			return payload
		}
		end := i + 1 + bytes.IndexByte(payload[i+1:], '"')
		parts := strings.Split(string(payload[i+1:end]), ":")
		n, _ := strconv.Atoi(parts[2])
		payload = slices.Concat(payload[:i+1], []byte(strings.Repeat(parts[1], n)), payload[end:])
	}
}

// The corpus in testdata/tool_sections.json: sections a build could write
// and sections an attacker could forge. The section is believed only when
// it names exactly the tools the module exports; anything else is refused
// with a reason, and listing falls back to asking the module.
func TestToolsSectionIsBelievedOnlyWhenItMatchesTheExports(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "tool_sections.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []sectionCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			payload := []byte(tc.Raw)
			if tc.Raw == "" {
				payload = expand(tc.Section)
			}
			s, err := scanModule(exportingModule(tc.Exports, customSection(ToolsSection, payload)))
			if err != nil {
				t.Fatalf("scan: %v", err)
			}
			m := &module{name: "demo"}
			meta, err := m.sectionMeta(s)
			if tc.WantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.WantErr) {
					t.Fatalf("error %v, want one containing %q", err, tc.WantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tm := range meta.Tools {
				got = append(got, tm.Export)
				if tm.Description == "" || !json.Valid(tm.Schema) {
					t.Errorf("tool %q incomplete: %+v", tm.Export, tm)
				}
			}
			if !slices.Equal(got, tc.WantTools) {
				t.Errorf("tools %q, want %q", got, tc.WantTools)
			}
		})
	}
}

// Malformed binaries around the section never panic and never yield a
// section: the scan fails and the module is compiled as any other would be.
func TestScanningAMalformedModuleFailsWithoutASection(t *testing.T) {
	t.Parallel()
	good := []byte(`{"abi":"toolhost-abi 1","tools":[{"export":"","description":"D.","schema":{"type":"object"}}]}`)
	exports := []string{"description", "schema", "execute"}
	whole := exportingModule(exports, customSection(ToolsSection, good))
	tests := []struct {
		name string
		wasm []byte
		want string
	}{
		{"two tools sections are refused", exportingModule(exports, customSection(ToolsSection, good), customSection(ToolsSection, good)), "two toolhost.tools sections"},
		{"a section over the size limit is refused", exportingModule(exports, customSection(ToolsSection, bytes.Repeat([]byte(" "), maxToolsSection+1))), "over the 1048576-byte limit"},
		{"a section whose size runs past the end is refused", append(exportingModule(exports), 0, 0xff, 0xff, 0x03, 5, 't'), "overruns"},
		{"a truncated module is refused", whole[:len(whole)-10], "overruns"},
		{"a size that is not a valid LEB128 number is refused", append(exportingModule(exports), 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff), "LEB128"},
		{"an export count larger than the section is refused", append([]byte{0, 'a', 's', 'm', 1, 0, 0, 0}, rawSection(7, append(leb(1<<30), 1, 'x', 0, 0))...), "export section"},
		{"an export section with trailing bytes is refused", append([]byte{0, 'a', 's', 'm', 1, 0, 0, 0}, rawSection(7, []byte{1, 1, 'x', 0, 0, 9})...), "trailing bytes"},
		{"a custom section name running past the section is refused", append(exportingModule(exports), rawSection(0, []byte{40, 't'})...), "custom section name"},
		{"a file that is not wasm is refused", []byte("this is not webassembly"), "not a wasm module"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := scanModule(tt.wasm)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if s.section != nil || s.exports != nil {
				t.Errorf("a failed scan returned exports or a section")
			}
		})
	}
}

// withToolsSection replaces an existing section and keeps every other
// byte, so a rebuilt module never carries two lists.
func TestEmbeddingReplacesAnOlderSectionAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	exports := []string{"description", "schema", "execute"}
	other := customSection("name", []byte{0, 4, 'd', 'e', 'm', 'o'})
	old := customSection(ToolsSection, []byte(`{"abi":"toolhost-abi 1","tools":[{"export":"","description":"Old.","schema":{"type":"object"}}]}`))
	wasm := exportingModule(exports, old, other)
	meta := moduleMeta{Tools: []toolMeta{{Export: "", Description: "New.", Schema: json.RawMessage(`{"type":"object"}`)}}}
	out, err := withToolsSection(wasm, meta)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, other) || bytes.Contains(out, []byte("Old.")) {
		t.Fatalf("the other custom section was lost or the old list kept")
	}
	s, err := scanModule(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := (&module{name: "demo"}).sectionMeta(s)
	if err != nil || len(got.Tools) != 1 || got.Tools[0].Description != "New." {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

// FuzzScanModule: scanning and checking any bytes never panics, and a
// module that scans keeps scanning after its section is replaced.
func FuzzScanModule(f *testing.F) {
	good := []byte(`{"abi":"toolhost-abi 1","tools":[{"export":"","description":"D.","schema":{"type":"object"}}]}`)
	f.Add(exportingModule([]string{"description", "schema", "execute"}, customSection(ToolsSection, good)))
	f.Add(exportingModule([]string{"a_description", "a_schema", "a_execute"}))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x00\x05\x04abcd"))
	f.Fuzz(func(t *testing.T, wasm []byte) {
		s, err := scanModule(wasm)
		if err != nil {
			return
		}
		if s.section != nil {
			(&module{name: "fuzz"}).sectionMeta(s)
		}
		meta := moduleMeta{Tools: []toolMeta{{Export: "", Description: "D.", Schema: json.RawMessage(`{"type":"object"}`)}}}
		out, err := withToolsSection(wasm, meta)
		if err != nil {
			t.Fatalf("a module that scans could not be rewritten: %v", err)
		}
		s2, err := scanModule(out)
		if err != nil || s2.section == nil || !slices.Equal(s.exports, s2.exports) {
			t.Fatalf("rewritten module: %v, section %q, exports %q vs %q", err, s2.section, s2.exports, s.exports)
		}
	})
}

// A module prepared by EmbedToolList lists without compiling, and its
// first call in a fresh Engine compiles once. A forged section that names
// other tools than the module exports is ignored: the module is compiled
// and asked, and the listing shows what it really exports.
func TestAPreparedModuleListsWithoutCompilingAndAForgedOneIsAsked(t *testing.T) {
	t.Parallel()
	src := guest(t, "echo")
	cache := freshCache(t)
	dir := configDir(t, map[string]string{"echo.wasm": src})
	path := filepath.Join(dir, "tool", "echo.wasm")
	prep := NewEngine(EngineOptions{CacheDir: cache})
	if err := prep.EmbedToolList(context.Background(), path); err != nil {
		t.Fatal(err)
	}
	prep.Close(context.Background())
	sealed, _ := os.ReadFile(path)

	// What the module says about itself, asked the slow way.
	plain := discover(t, newHost(t, nil), configDir(t, map[string]string{"echo.wasm": src}))
	want, _ := plain["echo"].Init(context.Background(), runtimeInit())

	listing := func(t *testing.T, dir string) (map[string]string, int64) {
		var compiles atomic.Int64
		h := NewEngine(EngineOptions{CacheDir: freshCache(t)}) // an empty description cache
		h.compiling = func() { compiles.Add(1) }
		defer h.Close(context.Background())
		got := map[string]string{}
		for id, tl := range discover(t, h, dir) {
			def, _ := tl.Init(context.Background(), runtimeInit())
			got[id] = def.Description
		}
		return got, compiles.Load()
	}

	t.Run("the prepared module lists without compiling", func(t *testing.T) {
		got, compiles := listing(t, dir)
		if compiles != 0 {
			t.Errorf("listing compiled %d times, want 0", compiles)
		}
		if len(got) != 1 || got["echo"] != want.Description {
			t.Errorf("tools %q, want echo with %q", got, want.Description)
		}
	})

	t.Run("a call of the prepared module runs in a fresh engine", func(t *testing.T) {
		h := NewEngine(EngineOptions{CacheDir: cache})
		defer h.Close(context.Background())
		tools := discover(t, h, dir)
		res, err := call(t, tools["echo"], benchArgs, nil)
		if err != nil || !strings.Contains(res.Output, "hello") {
			t.Fatalf("call: %v %+v", err, res)
		}
	})

	t.Run("a forged section naming another tool is ignored", func(t *testing.T) {
		forged := []byte(`{"abi":"toolhost-abi 1","tools":[{"export":"","description":"Forged.","schema":{"type":"object"}},{"export":"wipe","description":"Wipes the disk.","schema":{"type":"object"}}]}`)
		meta := moduleMeta{}
		if err := json.Unmarshal(forged, &struct {
			Tools *[]toolMeta `json:"tools"`
		}{&meta.Tools}); err != nil {
			t.Fatal(err)
		}
		out, err := withToolsSection(sealed, meta)
		if err != nil {
			t.Fatal(err)
		}
		fdir := t.TempDir()
		os.MkdirAll(filepath.Join(fdir, "tool"), 0o755)
		os.WriteFile(filepath.Join(fdir, "tool", "echo.wasm"), out, 0o644)
		got, compiles := listing(t, fdir)
		if compiles == 0 {
			t.Errorf("the forged section was believed: nothing compiled")
		}
		if len(got) != 1 || got["echo"] != want.Description {
			t.Errorf("tools %q, want only echo with the module's own description", got)
		}
	})
}

// CompileInBackground compiles what Discover loaded, so the first call
// compiles nothing more.
func TestCompileInBackgroundPreparesTheFirstCall(t *testing.T) {
	t.Parallel()
	dir := configDir(t, map[string]string{"echo.wasm": guest(t, "echo")})
	cache := freshCache(t)
	first := NewEngine(EngineOptions{CacheDir: cache})
	discover(t, first, dir) // fills the description cache
	first.Close(context.Background())

	h := NewEngine(EngineOptions{CacheDir: cache})
	defer h.Close(context.Background())
	var compiles atomic.Int64
	h.compiling = func() { compiles.Add(1) }
	tools := discover(t, h, dir)
	if n := compiles.Load(); n != 0 {
		t.Fatalf("a warm listing compiled %d times", n)
	}
	h.CompileInBackground("")
	// The call waits for the background compile of its own module (the
	// same once) or does it itself; either way the module compiles once.
	if _, err := call(t, tools["echo"], benchArgs, nil); err != nil {
		t.Fatal(err)
	}
	if n := compiles.Load(); n != 1 {
		t.Errorf("%d compiles, want exactly 1 (background and call share it)", n)
	}
}
