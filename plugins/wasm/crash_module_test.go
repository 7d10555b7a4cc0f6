package wasm

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A module that makes wazero's validator panic (an input
// FuzzInstrumentLoops found, kept in its corpus) is a load error of its
// file, not a crash of the process that discovers it.
func TestAModuleThatCrashesWazeroIsALoadError(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzInstrumentLoops", "944f37390536dec1"))
	if err != nil {
		t.Fatal(err)
	}
	// The corpus file is `go test fuzz v1` followed by []byte("…").
	_, quoted, ok := strings.Cut(string(raw), "[]byte(")
	if !ok {
		t.Fatal("unexpected corpus file")
	}
	data, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(quoted), ")")))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "tool"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tool", "crash.wasm"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	h := newHost(t, nil)
	tools, errs := h.Discover(context.Background(), []string{dir})
	if len(tools) != 0 || len(errs) != 1 || !strings.Contains(errs[0].Reason, "not a valid WebAssembly module") {
		t.Fatalf("tools %d, errors %v; want one load error for crash.wasm", len(tools), errs)
	}
}
