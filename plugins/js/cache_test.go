package js

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTheBuildCacheFollowsTheToolsInputs(t *testing.T) {
	t.Parallel()
	dir := project(t, "greet.ts")
	p := filepath.Join(dir, "greet.ts")
	cache := t.TempDir()
	call := func() string {
		t.Helper()
		f, err := Load(context.Background(), p, LoadOptions{Runtime: testRuntime(t), CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close(context.Background())
		out, err := f.Call(context.Background(), "default", json.RawMessage(`{"name":"ada"}`), CallInfo{}, Limits{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return out.Output
	}
	if got := call(); !strings.HasPrefix(got, "hello ada") {
		t.Fatalf("first load = %q", got)
	}
	manifests, _ := filepath.Glob(filepath.Join(cache, "bytecode", "*.json"))
	codes, _ := filepath.Glob(filepath.Join(cache, "bytecode", "*.qbc"))
	if len(manifests) != 1 || len(codes) != 1 {
		t.Fatalf("cache holds %v %v, want one manifest and one bytecode file", manifests, codes)
	}
	snaps, _ := filepath.Glob(filepath.Join(cache, "snapshots", "*.snap"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots = %v, want one", snaps)
	}
	if got := call(); !strings.HasPrefix(got, "hello ada") {
		t.Fatalf("load from the cache = %q", got)
	}
	b, _ := os.ReadFile(snaps[0])
	b[len(b)/2] ^= 0xff
	os.WriteFile(snaps[0], b, 0o644)
	if got := call(); !strings.HasPrefix(got, "hello ada") {
		t.Fatalf("with a damaged snapshot = %q, want it taken again", got)
	}
	src, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(src), "`hello ${args.name}`", "`hi ${args.name}`", 1)), 0o644)
	if got := call(); !strings.HasPrefix(got, "hi ada") {
		t.Fatalf("after an edit = %q, want the edited tool", got)
	}
	codes, _ = filepath.Glob(filepath.Join(cache, "bytecode", "*.qbc"))
	for _, c := range codes {
		b, _ := os.ReadFile(c)
		b[len(b)/2] ^= 0xff
		os.WriteFile(c, b, 0o644)
	}
	if got := call(); !strings.HasPrefix(got, "hi ada") {
		t.Fatalf("with damaged bytecode = %q, want it compiled again", got)
	}
}

// TestTheCacheIsTheUsersOwn: cached bytecode and snapshots run without
// being parsed again and hold what the tool's top level computed, so
// other users may neither read nor replace them.
func TestTheCacheIsTheUsersOwn(t *testing.T) {
	t.Parallel()
	dir := project(t, "greet.ts")
	cache := t.TempDir()
	f, err := Load(context.Background(), filepath.Join(dir, "greet.ts"), LoadOptions{Runtime: testRuntime(t), CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	f.Close(context.Background())
	n := 0
	filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if p == cache {
			return nil // the caller's
		}
		info, _ := d.Info()
		if perm := info.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s has mode %v; others may use it", p, perm)
		}
		n++
		return nil
	})
	if n < 4 {
		t.Errorf("the cache holds %d entries; want its folders, bytecode, manifest and snapshot", n)
	}
}
