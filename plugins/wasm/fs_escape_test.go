package wasm

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// wasmEscapes is testdata/wasm_escapes.json.
type wasmEscapes struct {
	Comment string `json:"comment"`
	Outside []struct {
		Path string `json:"path"`
		File string `json:"file"`
	} `json:"outside"`
	Layout []struct {
		Path string  `json:"path"`
		File *string `json:"file"`
		Link string  `json:"link"`
	} `json:"layout"`
	Cases []struct {
		Name  string      `json:"name"`
		Steps []probeStep `json:"steps"`
	} `json:"cases"`
}

// probeStep is one call of the fsprobe guest and what it must end with.
type probeStep struct {
	Op   string `json:"op"`
	Path string `json:"path"`
	Arg  string `json:"arg,omitempty"`
	N    int    `json:"n,omitempty"`
	Want string `json:"want,omitempty"`
	Data string `json:"data,omitempty"`
}

// probeOut is what fsprobe returns.
type probeOut struct {
	Errno string         `json:"errno"`
	Data  string         `json:"data"`
	Count map[string]int `json:"count"`
}

// probeGrants are the allowed_paths every fsprobe test uses.
var probeGrants = map[string]config.WasmConfig{"fsprobe": {AllowedPaths: map[string]string{"data": "/data", "ro:ro": "/ro"}}}

// probeWorld is one project directory for fsprobe: data/ and ro/ are
// mounted, outside/ is next to them.
type probeWorld struct {
	project, outside string
}

func newProbeWorld(t *testing.T, c wasmEscapes) probeWorld {
	t.Helper()
	project := t.TempDir()
	w := probeWorld{project: project, outside: filepath.Join(project, "outside")}
	write := func(p string, data []byte) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range c.Outside {
		write(filepath.Join(w.outside, filepath.FromSlash(e.Path)), []byte(e.File))
	}
	for _, e := range c.Layout {
		p := filepath.Join(project, filepath.FromSlash(e.Path))
		if e.File != nil {
			write(p, []byte(*e.File))
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(w.expand(e.Link), p); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w probeWorld) expand(s string) string { return strings.ReplaceAll(s, "$OUTSIDE", w.outside) }

// snapshot describes everything in the project but data/ and ro/.
func (w probeWorld) snapshot(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(w.project, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if rel, _ := filepath.Rel(w.project, p); rel == "data" || rel == "ro" {
			return filepath.SkipDir
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			fmt.Fprintf(&b, " %q", data)
		}
		b.WriteByte('\n')
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func readWasmEscapes(t *testing.T) wasmEscapes {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "wasm_escapes.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c wasmEscapes
	d := json.NewDecoder(f)
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("testdata/wasm_escapes.json: %v", err)
	}
	return c
}

// probe loads fsprobe once per test with probeGrants.
func probe(t *testing.T) runtime.Tool {
	t.Helper()
	tools := discover(t, newHost(t, &config.Config{Wasm: probeGrants}), configDir(t, map[string]string{"fsprobe.wasm": guest(t, "fsprobe")}))
	tl, ok := tools["fsprobe"]
	if !ok {
		t.Fatalf("fsprobe not loaded: %v", tools)
	}
	return tl
}

// callProbe runs one step with project as the worktree the grants resolve
// against.
func callProbe(t *testing.T, tl runtime.Tool, project string, s probeStep) probeOut {
	t.Helper()
	args, _ := json.Marshal(s)
	tc := testContext(t, nil, nil)
	tc.Worktree, tc.Directory = project, project
	res, err := call(t, tl, string(args), tc)
	if err != nil {
		t.Fatalf("%s %s: %v", s.Op, s.Path, err)
	}
	var out probeOut
	if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
		t.Fatalf("%s %s: output %q: %v", s.Op, s.Path, res.Output, err)
	}
	return out
}

func TestWasmGuestsStayInsideAllowedPaths(t *testing.T) {
	t.Parallel()
	c := readWasmEscapes(t)
	if len(c.Cases) < 30 {
		t.Fatalf("the corpus has %d cases; was it truncated?", len(c.Cases))
	}
	tl := probe(t)
	for _, tc := range c.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			w := newProbeWorld(t, c)
			before := w.snapshot(t)
			for i, s := range tc.Steps {
				s.Path, s.Arg = w.expand(s.Path), w.expand(s.Arg)
				out := callProbe(t, tl, w.project, s)
				if out.Errno != s.Want {
					t.Errorf("step %d: %s %s %s: %s, want %s (data %q)", i, s.Op, s.Path, s.Arg, out.Errno, s.Want, out.Data)
				}
				if s.Data != "" && !strings.Contains(out.Data, s.Data) {
					t.Errorf("step %d: %s %s returned %q, want it to contain %q", i, s.Op, s.Path, out.Data, s.Data)
				}
				if strings.Contains(out.Data, "OUTSIDE") {
					t.Errorf("step %d: %s %s returned outside data %q", i, s.Op, s.Path, out.Data)
				}
				if after := w.snapshot(t); after != before {
					t.Fatalf("step %d: %s %s changed what is outside the grants:\nbefore:\n%s\nafter:\n%s", i, s.Op, s.Path, before, after)
				}
			}
		})
	}
}

// TestAWasmGuestRacingADirectorySwapNeverLeavesItsMount has the guest
// read, list and write under /data/swap in a loop, within one call, while
// the host swaps that directory for a link to outside and back. The
// number of rounds is fixed; nothing depends on timing but how the
// outcomes split.
func TestAWasmGuestRacingADirectorySwapNeverLeavesItsMount(t *testing.T) {
	t.Parallel()
	c := readWasmEscapes(t)
	w := newProbeWorld(t, c)
	swap, alt := filepath.Join(w.project, "data", "swap"), filepath.Join(w.project, "data", "swap.alt")
	os.Mkdir(swap, 0o755)
	os.WriteFile(filepath.Join(swap, "secret.txt"), []byte("INSIDE SWAP"), 0o644)
	os.Symlink(w.outside, alt)
	before := w.snapshot(t)
	tl := probe(t)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	swaps := 0
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ; ; swaps++ {
			select {
			case <-stop:
				return
			default:
			}
			// Atomically where the kernel can, else in two steps.
			if exchange(swap, alt) != nil {
				tmp := swap + ".tmp"
				if os.Rename(swap, tmp) == nil {
					os.Rename(alt, swap)
					os.Rename(tmp, alt)
				}
			}
		}
	}()
	var out probeOut
	for call := 0; call < 4; call++ {
		out = callProbe(t, tl, w.project, probeStep{Op: "loop", Path: "/data/swap/secret.txt", Arg: "/data/swap", N: 250})
		if out.Data != "" {
			break
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d swaps; last call's outcomes: %v", swaps, out.Count)
	if out.Data != "" {
		t.Fatalf("the guest reached outside/ through the swapped directory: %q", out.Data)
	}
	if after := w.snapshot(t); after != before {
		t.Fatalf("the race changed what is outside the grants:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

func TestAGrantedDirectoryReplacedBetweenCallsIsWhatTheNextCallSees(t *testing.T) {
	t.Parallel()
	w := newProbeWorld(t, readWasmEscapes(t))
	tl := probe(t)
	read := probeStep{Op: "read", Path: "/data/inside.txt"}
	if out := callProbe(t, tl, w.project, read); out.Errno != "ok" || out.Data != "INSIDE" {
		t.Fatalf("before: %+v", out)
	}
	data := filepath.Join(w.project, "data")
	if err := os.Rename(data, data+".old"); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(data, 0o755)
	os.WriteFile(filepath.Join(data, "inside.txt"), []byte("REPLACED"), 0o644)
	if out := callProbe(t, tl, w.project, read); out.Errno != "ok" || out.Data != "REPLACED" {
		t.Fatalf("after the directory was replaced: %+v", out)
	}
}
