package js

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/toolhost/toolhost/internal/observe/progress"
)

// The build cache, under <cache>/bytecode:
//
//	<sha256 of engine version + script>.qbc   QuickJS bytecode, then its own sha256
//	<sha256 of the tool file's path>.json     manifest: the bundle's input files and their sha256
//
// A tool file whose inputs all hash as the manifest says is not bundled
// again: its bytecode is read and run. Anything that does not match — an
// edited file, a changed node_modules file, another toolhost (prelude) or
// engine version — rebuilds.
//
// Cached bytecode and snapshots run without being parsed again. They are
// checked against their own hash (so damage rebuilds them), not signed:
// someone who can write the user's cache could change what a tool does,
// but only inside the sandbox and with that tool's own grants, as editing
// the tool file would. Folders and files are the user's only (0700, 0600).

type manifest struct {
	Toolhost string            `json:"toolhost"` // sha256 of prelude and engine version
	Inputs   map[string]string `json:"inputs"`   // absolute path → sha256
	Bytecode string            `json:"bytecode"` // the .qbc's name
}

var preludeKey = sync.OnceValue(func() string {
	s := sha256.Sum256([]byte(EngineVersion + "\x00" + importRules + "\x00" + prelude))
	return hex.EncodeToString(s[:])
})

func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// buildCached returns the bytecode of the tool file at path and its name
// in the cache: from the cache when its inputs are unchanged, else bundled
// and compiled in v.
func buildCached(ctx context.Context, v *vm, path, root, cacheDir string) ([]byte, string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, "", err
	}
	dir := filepath.Join(cacheDir, "bytecode")
	mpath := manifestPath(cacheDir, abs, root)
	if cacheDir != "" {
		if name := fromManifest(mpath); name != "" {
			if bc := readBytecode(filepath.Join(dir, name)); bc != nil {
				return bc, name, nil
			}
		}
	}
	// A first build takes seconds (esbuild, then QuickJS's compiler), so
	// a person waiting is told (progress).
	task := progress.Start(ctx, "bundling "+filepath.Base(abs))
	code, inputs, err := bundleInputs(abs, root)
	if err != nil {
		task.Done("", err)
		return nil, "", err
	}
	script := prelude + "\n" + code
	ss := sha256.Sum256([]byte(EngineVersion + "\x00" + script))
	name := hex.EncodeToString(ss[:]) + ".qbc"
	if cacheDir != "" {
		if bc := readBytecode(filepath.Join(dir, name)); bc != nil {
			task.Done("bundled "+filepath.Base(abs), nil)
			writeManifest(mpath, name, inputs)
			return bc, name, nil
		}
	}
	bc, err := v.compile(ctx, script, "tool.js")
	task.Done("bundled and compiled "+filepath.Base(abs), err)
	if err != nil {
		return nil, "", err
	}
	if cacheDir != "" && os.MkdirAll(dir, 0o700) == nil {
		sum := sha256.Sum256(bc)
		if writeAtomic(filepath.Join(dir, name), append(slices.Clip(bc), sum[:]...)) == nil {
			writeManifest(mpath, name, inputs)
		}
	}
	return bc, name, nil
}

// manifestPath is where the manifest of the tool file abs (bundled with
// imports confined to root) is kept.
func manifestPath(cacheDir, abs, root string) string {
	ps := sha256.Sum256([]byte(abs + "\x00" + root))
	return filepath.Join(cacheDir, "bytecode", hex.EncodeToString(ps[:])+".json")
}

// fromManifest returns the name of the bytecode built from the manifest's
// inputs when every one of them is unchanged, else "".
func fromManifest(mpath string) string {
	b, err := os.ReadFile(mpath)
	if err != nil {
		return ""
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil || m.Toolhost != preludeKey() || len(m.Inputs) == 0 || filepath.Base(m.Bytecode) != m.Bytecode {
		return ""
	}
	for p, want := range m.Inputs {
		if got, err := fileHash(p); err != nil || got != want {
			return ""
		}
	}
	return m.Bytecode
}

// cachedSnapshot is the snapshot and tools of the tool file at path when
// its build is cached and unchanged, so loading it runs nothing.
func cachedSnapshot(path, root, cacheDir string) (*snapshot, []Def, string) {
	if cacheDir == "" {
		return nil, nil, ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, ""
	}
	name := fromManifest(manifestPath(cacheDir, abs, root))
	if name == "" {
		return nil, nil, ""
	}
	sp := snapshotPath(cacheDir, name, toolName(path))
	snap, defs := readSnapshot(sp)
	return snap, defs, sp
}

// readBytecode reads a .qbc, checking the sha256 at its end so a truncated
// or altered file is compiled again, not run.
func readBytecode(p string) []byte {
	b, err := os.ReadFile(p)
	if err != nil || len(b) <= sha256.Size {
		return nil
	}
	body, tail := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); string(got[:]) != string(tail) {
		return nil
	}
	return body
}

func writeManifest(mpath, bytecode string, inputs []string) {
	m := manifest{Toolhost: preludeKey(), Inputs: map[string]string{}, Bytecode: bytecode}
	for _, p := range inputs {
		h, err := fileHash(p)
		if err != nil {
			return // an input we cannot hash is an input we cannot trust
		}
		m.Inputs[p] = h
	}
	b, _ := json.Marshal(m)
	writeAtomic(mpath, b)
}

// writeAtomic replaces p with b through a temporary file of a fresh name
// (two loads of one file may write at once), readable by the user only:
// cached code runs unparsed and holds what the tool's top level computed.
func writeAtomic(p string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(p), filepath.Base(p)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// The snapshot cache, under <cache>/snapshots: the memory of an instance
// that has run a file's bytecode and described its tools, so a new process
// starts calls from it without running the bundle (zod's set-up is most of
// a cold start). The file is a JSON header line (the tools, the registers
// outside memory), the memory, then the sha256 of everything before it.

type snapHeader struct {
	Defs  []Def  `json:"defs"`
	SP    uint32 `json:"sp"`
	RT    uint32 `json:"rt"`
	Ctx   uint32 `json:"ctx"`
	Bytes int    `json:"bytes"`
}

// maxSnapshot bounds a snapshot file read back (4 GiB is wasm32's limit).
const maxSnapshot = 1 << 31

func snapshotPath(cacheDir, bytecode, name string) string {
	if cacheDir == "" || bytecode == "" {
		return ""
	}
	k := sha256.Sum256([]byte(bytecode + "\x00" + name))
	return filepath.Join(cacheDir, "snapshots", hex.EncodeToString(k[:])+".snap")
}

func readSnapshot(p string) (*snapshot, []Def) {
	if p == "" {
		return nil, nil
	}
	b, err := os.ReadFile(p)
	if err != nil || len(b) <= sha256.Size || len(b) > maxSnapshot {
		return nil, nil
	}
	body, tail := b[:len(b)-sha256.Size], b[len(b)-sha256.Size:]
	if got := sha256.Sum256(body); string(got[:]) != string(tail) {
		return nil, nil
	}
	nl := slices.Index(body, '\n')
	if nl < 0 {
		return nil, nil
	}
	var h snapHeader
	if json.Unmarshal(body[:nl], &h) != nil || h.Bytes != len(body)-nl-1 || len(h.Defs) == 0 {
		return nil, nil
	}
	return &snapshot{mem: body[nl+1:], sp: h.SP, rtPtr: h.RT, cPtr: h.Ctx}, h.Defs
}

func writeSnapshot(p string, s *snapshot, defs []Def) {
	if p == "" || os.MkdirAll(filepath.Dir(p), 0o700) != nil {
		return
	}
	h, _ := json.Marshal(snapHeader{Defs: defs, SP: s.sp, RT: s.rtPtr, Ctx: s.cPtr, Bytes: len(s.mem)})
	out := make([]byte, 0, len(h)+1+len(s.mem)+sha256.Size)
	out = append(append(append(out, h...), '\n'), s.mem...)
	sum := sha256.Sum256(out)
	writeAtomic(p, append(out, sum[:]...))
}
