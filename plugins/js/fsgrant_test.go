package js

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// fsCorpus is testdata/fs_grants.json.
type fsCorpus struct {
	Comment string `json:"comment"`
	Layout  []struct {
		Path string  `json:"path"`
		File *string `json:"file"`
		Link string  `json:"link"`
		Hard string  `json:"hard"`
	} `json:"layout"`
	Cases []struct {
		Name string `json:"name"`
		Op   string `json:"op"`
		Path string `json:"path"`
		Want string `json:"want"`
	} `json:"cases"`
}

// fsWorld is one copy of the corpus layout: proj/ granted, proj/locked/
// granted read-only, outside/ granted to nothing.
type fsWorld struct{ dir, proj, outside string }

func (w fsWorld) expand(s string) string {
	return strings.NewReplacer("$PROJ", w.proj, "$OUTSIDE", w.outside).Replace(s)
}

func (w fsWorld) bridge() *Bridge {
	return &Bridge{Tool: "t", Paths: map[string]string{w.proj: "/w", "ro:" + filepath.Join(w.proj, "locked"): "/w/locked"}}
}

func readFSCorpus(t *testing.T) fsCorpus {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "fs_grants.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c fsCorpus
	d := json.NewDecoder(strings.NewReader(string(b)))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		t.Fatalf("testdata/fs_grants.json: %v", err)
	}
	return c
}

func buildFSWorld(t *testing.T, c fsCorpus) fsWorld {
	t.Helper()
	dir := t.TempDir()
	w := fsWorld{dir: dir, proj: filepath.Join(dir, "proj"), outside: filepath.Join(dir, "outside")}
	for _, e := range c.Layout {
		p := filepath.Join(dir, e.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case e.File != nil:
			err = os.WriteFile(p, []byte(*e.File), 0o644)
		case e.Link != "":
			err = os.Symlink(w.expand(e.Link), p)
		case e.Hard != "":
			err = os.Link(filepath.Join(dir, e.Hard), p)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// tree records every name below dir with its kind and contents (a link's
// text), so a test can tell that nothing there changed.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			out[p] = "link " + l
		case d.IsDir():
			out[p] = "dir"
		default:
			b, _ := os.ReadFile(p)
			out[p] = "file " + string(b)
		}
		return nil
	})
	return out
}

func sameTree(t *testing.T, what string, before, after map[string]string) {
	t.Helper()
	if len(before) != len(after) {
		t.Fatalf("%s changed: %v, now %v", what, before, after)
	}
	for k, v := range before {
		if after[k] != v {
			t.Fatalf("%s changed: %s was %q, now %q", what, k, v, after[k])
		}
	}
}

// TestFSGrantsCorpus: no write through a link or a hard link reaches a file
// a read-only grant covers, or one outside every grant.
func TestFSGrantsCorpus(t *testing.T) {
	t.Parallel()
	c := readFSCorpus(t)
	for _, tc := range c.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			w := buildFSWorld(t, c)
			locked, outside := tree(t, filepath.Join(w.proj, "locked")), tree(t, w.outside)
			arg, _ := json.Marshal(map[string]string{"path": w.expand(tc.Path), "data": "SGFja2Vk"}) // "Hacked"
			_, err := w.bridge().Handle(context.Background(), noPause{}, tc.Op, arg)
			switch {
			case tc.Want == "ok" && err != nil:
				t.Fatalf("%s %s: %v, want it done", tc.Op, tc.Path, err)
			case tc.Want != "ok" && (err == nil || !strings.Contains(err.Error(), tc.Want)):
				t.Fatalf("%s %s: err = %v, want %q", tc.Op, tc.Path, err, tc.Want)
			}
			sameTree(t, "locked/", locked, tree(t, filepath.Join(w.proj, "locked")))
			sameTree(t, "outside/", outside, tree(t, w.outside))
		})
	}
}

// TestFSWritesRefuseALinkSwappedInAfterTheCheck: a folder or file that is
// replaced by a link into the read-only folder (or a hard link to a file
// there) between the check of the path and the write is refused, not
// followed.
func TestFSWritesRefuseALinkSwappedInAfterTheCheck(t *testing.T) {
	t.Parallel()
	c := readFSCorpus(t)
	tests := []struct {
		name, op, path string
		swap           func(w fsWorld) error
		want           error
	}{
		{"a folder on the way of a write becomes a link", "fs.write", "/w/sub/a.txt", func(w fsWorld) error {
			return swapForLink(filepath.Join(w.proj, "sub"), "locked/dir")
		}, errLinkInWay},
		{"a folder on the way of a write becomes an absolute link", "fs.write", "/w/sub/deep.txt", func(w fsWorld) error {
			return swapForLink(filepath.Join(w.proj, "sub"), filepath.Join(w.proj, "locked", "dir"))
		}, errLinkInWay},
		{"the file written becomes a link", "fs.write", "/w/ok.txt", func(w fsWorld) error {
			return swapForLink(filepath.Join(w.proj, "ok.txt"), "locked/secret.txt")
		}, errLinkInWay},
		{"the file written becomes a hard link", "fs.write", "/w/ok.txt", func(w fsWorld) error {
			p := filepath.Join(w.proj, "ok.txt")
			if err := os.Remove(p); err != nil {
				return err
			}
			return os.Link(filepath.Join(w.proj, "locked", "secret.txt"), p)
		}, errLinked},
		{"a missing file becomes a dangling link", "fs.write", "/w/new.txt", func(w fsWorld) error {
			return os.Symlink("locked/new.txt", filepath.Join(w.proj, "new.txt"))
		}, errLinkInWay},
		{"a folder on the way of a mkdir becomes a link", "fs.mkdir", "/w/sub/x/y", func(w fsWorld) error {
			return swapForLink(filepath.Join(w.proj, "sub"), "locked")
		}, errLinkInWay},
		{"a folder a mkdir makes appears as a link", "fs.mkdir", "/w/fresh/x", func(w fsWorld) error {
			return os.Symlink("locked", filepath.Join(w.proj, "fresh"))
		}, errLinkInWay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := buildFSWorld(t, c)
			locked := tree(t, filepath.Join(w.proj, "locked"))
			tg, err := w.bridge().locate(tt.path, true)
			if err != nil {
				t.Fatalf("locate %s before the swap: %v", tt.path, err)
			}
			if err := tt.swap(w); err != nil {
				t.Fatal(err)
			}
			_, err = tg.do(tt.op, "SGFja2Vk")
			if !errors.Is(err, tt.want) {
				t.Fatalf("%s %s after the swap: err = %v, want %v", tt.op, tt.path, err, tt.want)
			}
			sameTree(t, "locked/", locked, tree(t, filepath.Join(w.proj, "locked")))
		})
	}
}

// swapForLink moves p aside and puts a link to target in its place.
func swapForLink(p, target string) error {
	if err := os.Rename(p, p+".old"); err != nil {
		return err
	}
	return os.Symlink(target, p)
}

// TestFSReadOnlyGrantNamedThroughALink: a read-only grant whose folder is
// named through a link still covers the folder it names.
func TestFSReadOnlyGrantNamedThroughALink(t *testing.T) {
	t.Parallel()
	w := buildFSWorld(t, readFSCorpus(t))
	if err := os.Symlink("locked", filepath.Join(w.proj, "locked_name")); err != nil {
		t.Fatal(err)
	}
	b := &Bridge{Tool: "t", Paths: map[string]string{w.proj: "/w", "ro:" + filepath.Join(w.proj, "locked_name"): "/l"}}
	_, err := b.Handle(context.Background(), noPause{}, "fs.write", json.RawMessage(`{"path":"/w/locked/secret.txt","data":""}`))
	if err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("err = %v, want read-only", err)
	}
	if b, _ := os.ReadFile(filepath.Join(w.proj, "locked", "secret.txt")); string(b) != "LOCKED" {
		t.Fatalf("secret.txt = %q", b)
	}
}

// TestJSWriteFileThroughLinksLeavesReadOnlyFilesAlone: the same refusals
// reach a tool's own writeFile, through the engine and the config.
func TestJSWriteFileThroughLinksLeavesReadOnlyFilesAlone(t *testing.T) {
	t.Parallel()
	tl := toolOf(t, "files.ts", "files")
	w := buildFSWorld(t, readFSCorpus(t))
	locked := tree(t, filepath.Join(w.proj, "locked"))
	cfg := &config.Config{Wasm: map[string]config.WasmConfig{"files": {AllowedPaths: map[string]string{w.proj: "/w", "ro:" + filepath.Join(w.proj, "locked"): "/w/locked"}}}}
	tests := []struct{ name, to, want string }{
		{"a relative folder link", "alias/secret.txt", "read-only"},
		{"an absolute folder link", "/w/alias_abs/secret.txt", "read-only"},
		{"a file link", "file_link", "read-only"},
		{"a hard link", "hard.txt", "more than one name"},
		{"a dangling link", "dangling_file", "symbolic link is in the way"},
		{"a link that stays writable", "in_rw/copy.txt", "copied 2 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := run(t, tl, `{"from":"ok.txt","to":"`+tt.to+`"}`, runtime.NewContext(runtime.Context{Config: cfg, Directory: w.proj}, nil, nil))
			got := res.Output
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
			sameTree(t, "locked/", locked, tree(t, filepath.Join(w.proj, "locked")))
		})
	}
}

// A file refusal names the config entry that granted the tool, as its
// HTTP refusals do: a tool granted by its file's name is told to edit that
// entry, not one for its id that would grant nothing.
func TestFSRefusalsNameTheEntryThatGrantedTheTool(t *testing.T) {
	t.Parallel()
	w := buildFSWorld(t, readFSCorpus(t))
	for _, tt := range []struct {
		name, key, want string
	}{
		{"a tool granted by its file's name is pointed at that entry", "wasm.weather", "wasm.weather.allowed_paths"},
		{"without a key the tool's id names it", "", "wasm.weather_fetch.allowed_paths"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := w.bridge()
			b.Tool, b.HTTP.ConfigKey = "weather_fetch", tt.key
			for _, op := range []string{`{"path":"/elsewhere/x"}`, `{"path":"/w/locked/secret.txt","data":""}`} {
				_, err := b.Handle(context.Background(), noPause{}, "fs.write", json.RawMessage(op))
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("%s: err = %v, want it to name %s", op, err, tt.want)
				}
			}
		})
	}
}
