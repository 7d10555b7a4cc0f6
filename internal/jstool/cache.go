package jstool

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

type manifest struct {
	Toolhost string            `json:"toolhost"` // sha256 of prelude and engine version
	Inputs   map[string]string `json:"inputs"`   // absolute path → sha256
	Bytecode string            `json:"bytecode"` // the .qbc's name
}

var preludeKey = func() string {
	s := sha256.Sum256([]byte(EngineVersion + "\x00" + prelude))
	return hex.EncodeToString(s[:])
}()

func fileHash(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// buildCached returns the bytecode of the tool file at path: from the
// cache when its inputs are unchanged, else bundled and compiled in v.
func buildCached(ctx context.Context, v *vm, path, cacheDir string) ([]byte, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cacheDir, "bytecode")
	ps := sha256.Sum256([]byte(abs))
	mpath := filepath.Join(dir, hex.EncodeToString(ps[:])+".json")
	if cacheDir != "" {
		if bc := fromManifest(mpath, dir); bc != nil {
			return bc, nil
		}
	}
	code, inputs, err := bundleInputs(abs)
	if err != nil {
		return nil, err
	}
	script := prelude + "\n" + code
	ss := sha256.Sum256([]byte(EngineVersion + "\x00" + script))
	name := hex.EncodeToString(ss[:]) + ".qbc"
	if cacheDir != "" {
		if bc := readBytecode(filepath.Join(dir, name)); bc != nil {
			writeManifest(mpath, name, inputs)
			return bc, nil
		}
	}
	bc, err := v.compile(ctx, script, "tool.js")
	if err != nil {
		return nil, err
	}
	if cacheDir != "" && os.MkdirAll(dir, 0o755) == nil {
		sum := sha256.Sum256(bc)
		if writeAtomic(filepath.Join(dir, name), append(slices.Clip(bc), sum[:]...)) == nil {
			writeManifest(mpath, name, inputs)
		}
	}
	return bc, nil
}

func fromManifest(mpath, dir string) []byte {
	b, err := os.ReadFile(mpath)
	if err != nil {
		return nil
	}
	var m manifest
	if json.Unmarshal(b, &m) != nil || m.Toolhost != preludeKey || len(m.Inputs) == 0 || filepath.Base(m.Bytecode) != m.Bytecode {
		return nil
	}
	for p, want := range m.Inputs {
		if got, err := fileHash(p); err != nil || got != want {
			return nil
		}
	}
	return readBytecode(filepath.Join(dir, m.Bytecode))
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
	m := manifest{Toolhost: preludeKey, Inputs: map[string]string{}, Bytecode: bytecode}
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

func writeAtomic(p string, b []byte) error {
	tmp := fmt.Sprintf("%s.tmp%d", p, os.Getpid())
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, p)
}
