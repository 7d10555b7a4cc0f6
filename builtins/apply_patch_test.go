package builtins

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestApplyPatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		files      map[string]string // before
		patch      string
		want       map[string]string // after; "" value means the file must not exist
		wantOutput string
		wantErr    string
	}{
		{
			name:       "a file is added in new directories",
			patch:      "*** Begin Patch\n*** Add File: a/b/new.txt\n+hello\n+world\n*** End Patch",
			want:       map[string]string{"a/b/new.txt": "hello\nworld\n"},
			wantOutput: "Success. Updated the following files:\nA a/b/new.txt",
		},
		{
			name:       "a file is updated with context",
			files:      map[string]string{"m.py": "def f():\n    return 1\n\ndef g():\n    return 2\n"},
			patch:      "*** Begin Patch\n*** Update File: m.py\n@@ def g():\n-    return 2\n+    return 3\n*** End Patch",
			want:       map[string]string{"m.py": "def f():\n    return 1\n\ndef g():\n    return 3\n"},
			wantOutput: "M m.py",
		},
		{
			name:       "a file is moved and updated",
			files:      map[string]string{"src/app.py": "print(\"Hi\")\n"},
			patch:      "*** Begin Patch\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@\n-print(\"Hi\")\n+print(\"Hello\")\n*** End Patch",
			want:       map[string]string{"src/app.py": "", "src/main.py": "print(\"Hello\")\n"},
			wantOutput: "M src/main.py",
		},
		{
			name:       "a file is deleted",
			files:      map[string]string{"old.txt": "x\n"},
			patch:      "*** Begin Patch\n*** Delete File: old.txt\n*** End Patch",
			want:       map[string]string{"old.txt": ""},
			wantOutput: "D old.txt",
		},
		{
			name:       "add, update and delete in one patch",
			files:      map[string]string{"u.txt": "1\n2\n3\n", "d.txt": "gone\n"},
			patch:      "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Update File: u.txt\n@@\n 1\n-2\n+two\n 3\n*** Delete File: d.txt\n*** End Patch",
			want:       map[string]string{"n.txt": "new\n", "u.txt": "1\ntwo\n3\n", "d.txt": ""},
			wantOutput: "Success. Updated the following files:\nA n.txt\nM u.txt\nD d.txt",
		},
		{
			name:    "one failing hunk leaves every file untouched",
			files:   map[string]string{"u.txt": "1\n2\n3\n", "d.txt": "keep\n"},
			patch:   "*** Begin Patch\n*** Add File: n.txt\n+new\n*** Delete File: d.txt\n*** Update File: u.txt\n@@\n-not there\n+x\n*** End Patch",
			want:    map[string]string{"n.txt": "", "u.txt": "1\n2\n3\n", "d.txt": "keep\n"},
			wantErr: "apply_patch verification failed: Failed to find expected lines in",
		},
		{
			name:    "updating a missing file fails",
			patch:   "*** Begin Patch\n*** Update File: none.txt\n@@\n-a\n+b\n*** End Patch",
			wantErr: "Failed to read file to update",
		},
		{
			name:    "deleting a missing file fails",
			patch:   "*** Begin Patch\n*** Delete File: none.txt\n*** End Patch",
			wantErr: "Failed to read file to delete",
		},
		{
			name:    "an empty patch is rejected",
			patch:   "*** Begin Patch\n*** End Patch",
			wantErr: "patch rejected: empty patch",
		},
		{
			name:    "missing markers are a verification error",
			patch:   "*** Add File: x\n+y\n",
			wantErr: "Invalid patch format: missing Begin/End markers",
		},
		{
			name:  "a heredoc wrapper is stripped",
			patch: "cat <<'EOF'\n*** Begin Patch\n*** Add File: h.txt\n+x\n*** End Patch\nEOF\n",
			want:  map[string]string{"h.txt": "x\n"},
		},
		{
			name:  "a CRLF file and its BOM are kept",
			files: map[string]string{"w.txt": "\uFEFFa\r\nb\r\n"},
			patch: "*** Begin Patch\n*** Update File: w.txt\n@@\n a\n-b\n+c\n*** End Patch",
			want:  map[string]string{"w.txt": "\uFEFFa\r\nc\r\n"},
		},
		{
			name:  "typographic quotes and dashes in context still match",
			files: map[string]string{"q.txt": "say \"hi\" - now\nend\n"},
			patch: "*** Begin Patch\n*** Update File: q.txt\n@@\n-say \u201chi\u201d \u2014 now\n+say bye\n end\n*** End Patch",
			want:  map[string]string{"q.txt": "say bye\nend\n"},
		},
		{
			name:  "trailing whitespace differences still match, and context lines are written as the patch has them",
			files: map[string]string{"s.txt": "a   \nb\n"},
			patch: "*** Begin Patch\n*** Update File: s.txt\n@@\n a\n-b\n+B\n*** End Patch",
			want:  map[string]string{"s.txt": "a\nB\n"},
		},
		{
			name:  "two updates of one file apply in turn",
			files: map[string]string{"t.txt": "1\n2\n3\n"},
			patch: "*** Begin Patch\n*** Update File: t.txt\n@@\n-1\n+one\n*** Update File: t.txt\n@@\n-one\n+uno\n*** End Patch",
			want:  map[string]string{"t.txt": "uno\n2\n3\n"},
		},
		{
			name:  "End of File anchors a chunk at the end",
			files: map[string]string{"e.txt": "x\ny\nx\n"},
			patch: "*** Begin Patch\n*** Update File: e.txt\n@@\n-x\n+z\n*** End of File\n*** End Patch",
			want:  map[string]string{"e.txt": "x\ny\nz\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			for name, content := range tt.files {
				e.write(t, name, content)
			}
			res, err := e.call(t, ApplyPatch(), applyPatchParams{PatchText: tt.patch})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if len(e.asks) != 0 {
					t.Errorf("asked %+v before verification passed", e.asks)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if !strings.Contains(res.Output, tt.wantOutput) {
				t.Errorf("output = %q, want %q", res.Output, tt.wantOutput)
			}
			for name, want := range tt.want {
				b, err := os.ReadFile(filepath.Join(e.dir, name))
				if want == "" {
					if err == nil {
						t.Errorf("%s exists with %q", name, b)
					}
					continue
				}
				if string(b) != want {
					t.Errorf("%s = %q, want %q", name, b, want)
				}
			}
		})
	}
}

func TestApplyPatchAsksOnceWithEveryPathAndTheDiff(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	e.write(t, "a.txt", "1\n")
	_, err := e.call(t, ApplyPatch(), applyPatchParams{PatchText: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b/c.txt\n@@\n-1\n+2\n*** Add File: d.txt\n+x\n*** End Patch"})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.asks) != 1 {
		t.Fatalf("asks = %+v, want one", e.asks)
	}
	req := e.asks[0]
	if req.Permission != permissionEdit || !slices.Equal(req.Patterns, []string{"a.txt", "b/c.txt", "d.txt"}) {
		t.Fatalf("request = %+v", req)
	}
	if d, _ := req.Metadata["diff"].(string); !strings.Contains(d, "-1\n+2\n") || !strings.Contains(d, "+x\n") {
		t.Errorf("diff = %q", d)
	}
}

func TestApplyPatchRejectedPermissionWritesNothing(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	e.deny = permissionEdit
	_, err := e.call(t, ApplyPatch(), applyPatchParams{PatchText: "*** Begin Patch\n*** Add File: n.txt\n+x\n*** End Patch"})
	if err == nil {
		t.Fatal("no error")
	}
	if _, err := os.Stat(filepath.Join(e.dir, "n.txt")); err == nil {
		t.Fatal("file written despite the rejection")
	}
}

func TestApplyPatchRestoresFilesWhenAWriteFails(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	e := newFTEnv(t)
	e.write(t, "a.txt", "old\n")
	ro := filepath.Join(e.dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ro, 0o755) })
	// Paths are committed in patch order: a.txt is written, then ro/new.txt fails.
	_, err := e.call(t, ApplyPatch(), applyPatchParams{PatchText: "*** Begin Patch\n*** Update File: a.txt\n@@\n-old\n+new\n*** Add File: ro/new.txt\n+x\n*** End Patch"})
	if err == nil || !strings.Contains(err.Error(), "restored") {
		t.Fatalf("err = %v, want a write failure with the files restored", err)
	}
	if got := e.content(t, "a.txt"); got != "old\n" {
		t.Fatalf("a.txt = %q, want it restored", got)
	}
}

func TestApplyPatchMatchesContextWhateverItsUnicodeNormalisation(t *testing.T) {
	t.Parallel()
	const (
		nfc    = "caf\u00e9"                   // é as one code point
		nfd    = "cafe\u0301"                  // e and a combining acute accent
		hanNFC = "\ud55c"                      // 한 as one syllable
		hanNFD = "\u1112\u1161\u11ab"          // 한 as its three jamo
		newNFC = "cr\u00e8me br\u00fbl\u00e9e" // crème brûlée composed
		newNFD = "cre\u0300me bru\u0302le\u0301e"
	)
	tests := []struct {
		name    string
		file    string
		patch   string // between the Update header and End Patch
		want    string
		wantErr string
	}{
		{name: "an NFC removed line matches the same text stored in NFD",
			file: "x\n" + nfd + "\ny\n", patch: "@@\n-" + nfc + "\n+tea\n", want: "x\ntea\ny\n"},
		{name: "an NFD removed line matches the same text stored in NFC",
			file: "x\n" + nfc + "\ny\n", patch: "@@\n-" + nfd + "\n+tea\n", want: "x\ntea\ny\n"},
		{name: "context lines keep the file's bytes, not the patch's form",
			file: nfd + " 1\nold\n" + nfd + " 2\n", patch: "@@\n " + nfc + " 1\n-old\n+new\n " + nfc + " 2\n", want: nfd + " 1\nnew\n" + nfd + " 2\n"},
		{name: "added lines take an NFD file's form",
			file: nfd + "\nold\n", patch: "@@\n " + nfc + "\n-old\n+" + newNFC + "\n", want: nfd + "\n" + newNFD + "\n"},
		{name: "added lines take an NFC file's form",
			file: nfc + "\nold\n", patch: "@@\n " + nfd + "\n-old\n+" + newNFD + "\n", want: nfc + "\n" + newNFC + "\n"},
		{name: "in a file mixing forms added lines stay as the patch has them",
			file: nfc + "\n" + nfd + "\nold\n", patch: "@@\n " + nfc + "\n " + nfc + "\n-old\n+" + newNFD + "\n", want: nfc + "\n" + nfd + "\n" + newNFD + "\n"},
		{name: "an @@ context line in the other form is found",
			file: "func " + nfd + "() {\n\treturn 1\n}\n", patch: "@@ func " + nfc + "() {\n-\treturn 1\n+\treturn 2\n", want: "func " + nfd + "() {\n\treturn 2\n}\n"},
		{name: "Hangul stored as jamo matches composed syllables",
			file: hanNFD + "\n", patch: "@@\n-" + hanNFC + "\n+" + hanNFC + hanNFC + "\n", want: hanNFD + hanNFD + "\n"},
		{name: "an exact match anywhere wins over a normalised one earlier in the file",
			file: nfd + "\n" + nfc + "\n", patch: "@@\n-" + nfc + "\n+tea\n", want: nfd + "\ntea\n"},
		{name: "normalisation combines with the punctuation and whitespace folding",
			file: "  say \"" + nfd + "\" \n", patch: "@@\n-say \u201c" + nfc + "\u201d\n+said\n", want: "said\n"},
		{name: "a CRLF file with a BOM keeps both after a normalised match",
			file: "\uFEFF" + nfd + "\r\nold\r\n", patch: "@@\n " + nfc + "\n-old\n+new\n", want: "\uFEFF" + nfd + "\r\nnew\r\n"},
		{name: "a different accent does not match",
			file: "cafe\u0300\n", patch: "@@\n-" + nfc + "\n+tea\n", wantErr: "Failed to find expected lines"},
		{name: "a base letter without its accent does not match",
			file: "cafe\n", patch: "@@\n-" + nfd + "\n+tea\n", wantErr: "Failed to find expected lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			e.write(t, "f.txt", tt.file)
			_, err := e.call(t, ApplyPatch(), applyPatchParams{PatchText: "*** Begin Patch\n*** Update File: f.txt\n" + tt.patch + "*** End Patch"})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if got := e.content(t, "f.txt"); got != tt.file {
					t.Fatalf("a failed patch changed the file: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.content(t, "f.txt"); got != tt.want {
				t.Fatalf("file = %q, want %q", got, tt.want)
			}
		})
	}
}
