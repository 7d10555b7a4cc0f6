package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// callJSON runs `toolhost call <tool> <args> --json` with extra flags and
// decodes the result.
func callJSON(t *testing.T, e *e2e.Project, tool, args string, flags ...string) (res struct {
	Output      string         `json:"output"`
	Metadata    map[string]any `json:"metadata"`
	Attachments []struct {
		MIME string `json:"mime"`
	} `json:"attachments"`
}, stderr string, code int) {
	t.Helper()
	out, stderr, code := e.Run("", append([]string{"call", tool, args, "--json"}, flags...)...)
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("call %s: %v\n%s", tool, err, out)
		}
	}
	return res, stderr, code
}

func TestCallReadDecidesByContent(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("photo.bin", "\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01")
	e.Write("notes.bmp", "hello\n")
	e.Write("real.bmp", "BM\x36\x00\x0c\x00\x00\x00\x00\x00\x36\x00\x00\x00\x28\x00\x00\x00")
	e.Write("starts.gif", "GIF89a is a format\n")

	res, stderr, code := callJSON(t, e, "read", `{"filePath":"photo.bin"}`)
	if code != 0 || len(res.Attachments) != 1 || res.Attachments[0].MIME != "image/jpeg" {
		t.Errorf("a JPEG named photo.bin: exit %d, %+v %s", code, res, stderr)
	}
	for _, f := range []string{"notes.bmp", "starts.gif"} {
		res, stderr, code = callJSON(t, e, "read", `{"filePath":"`+f+`"}`)
		if code != 0 || len(res.Attachments) != 0 || !strings.Contains(res.Output, "1: ") {
			t.Errorf("text named %s: exit %d, %+v %s", f, code, res, stderr)
		}
	}
	_, stderr, code = e.Run("", "call", "read", `{"filePath":"real.bmp"}`)
	if code != 1 || !strings.Contains(stderr, "(content: BMP image)") {
		t.Errorf("a BMP: exit %d, stderr %s", code, stderr)
	}
}

func TestCallWriteKeepsBOMAndLineEndings(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	path := e.Write("win.txt", "\uFEFFold\r\nlines\r\n")
	if _, stderr, code := e.Run("", "call", "read", `{"filePath":"win.txt"}`, "--session", "w"); code != 0 {
		t.Fatalf("read: exit %d: %s", code, stderr)
	}
	if _, stderr, code := e.Run("", "call", "write", `{"filePath":"win.txt","content":"new\ntext\n"}`, "--session", "w", "--yes"); code != 0 {
		t.Fatalf("write: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "\uFEFFnew\r\ntext\r\n" {
		t.Fatalf("file = %q, want the BOM and CRLF kept", b)
	}
}

func TestCallApplyPatchMatchesAcrossNormalisation(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	path := e.Write("menu.txt", "cafe\u0301\nold\n")                                                        // NFD
	patch := "*** Begin Patch\n*** Update File: menu.txt\n@@\n caf\u00e9\n-old\n+cr\u00e8me\n*** End Patch" // NFC
	args, _ := json.Marshal(map[string]string{"patchText": patch})
	if _, stderr, code := e.Run("", "call", "apply_patch", string(args), "--yes", "--model", "gpt-5"); code != 0 {
		t.Fatalf("apply_patch: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(path); string(b) != "cafe\u0301\ncre\u0300me\n" {
		t.Fatalf("file = %q, want NFD kept and the new line in NFD", b)
	}
}

func TestCallReadLoadsInstructionFilesOncePerSession(t *testing.T) {
	t.Parallel()
	e := e2e.NewProject(t)
	e.Write("AGENTS.md", "root rules\n")
	e.Write("pkg/AGENTS.md", "pkg rules\n")
	e.Write("pkg/sub/CLAUDE.md", "sub rules\n")
	e.Write("pkg/sub/x.go", "package sub\n")
	e.Write("pkg/y.go", "package pkg\n")
	want := []any{filepath.Join(e.Dir, "pkg/sub/CLAUDE.md"), filepath.Join(e.Dir, "pkg/AGENTS.md")}

	res, stderr, code := callJSON(t, e, "read", `{"filePath":"pkg/sub/x.go"}`, "--session", "s1")
	if code != 0 {
		t.Fatalf("read: exit %d: %s", code, stderr)
	}
	loaded, _ := res.Metadata["loaded"].([]any)
	if !slices.Equal(loaded, want) {
		t.Errorf("loaded = %v, want %v", loaded, want)
	}
	if !strings.Contains(res.Output, "</content>\n\n<system-reminder>\nInstructions from: "+want[0].(string)+"\nsub rules") || strings.Contains(res.Output, "root rules") {
		t.Errorf("output:\n%s", res.Output)
	}
	res, _, _ = callJSON(t, e, "read", `{"filePath":"pkg/y.go"}`, "--session", "s1")
	if _, ok := res.Metadata["loaded"]; ok || strings.Contains(res.Output, "<system-reminder>") {
		t.Errorf("the session was given pkg/AGENTS.md again:\n%s", res.Output)
	}
	res, _, _ = callJSON(t, e, "read", `{"filePath":"pkg/y.go"}`, "--session", "s2")
	if loaded, _ := res.Metadata["loaded"].([]any); !slices.Equal(loaded, want[1:]) {
		t.Errorf("a new session: loaded = %v, want %v", loaded, want[1:])
	}
}
