package builtins

import (
	"reflect"
	"strings"
	"testing"
)

func TestParsePatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		text    string
		want    []patchHunk
		wantErr string
	}{
		{
			name: "every kind of hunk",
			text: "*** Begin Patch\n*** Add File: a.txt\n+1\n+2\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d.txt\n@@ func f\n x\n-y\n+z\n*** End of File\n*** End Patch",
			want: []patchHunk{
				{Kind: hunkAdd, Path: "a.txt", Contents: "1\n2\n"},
				{Kind: hunkDelete, Path: "b.txt"},
				{Kind: hunkUpdate, Path: "c.txt", MovePath: "d.txt", Chunks: []patchChunk{{Context: "func f", Old: []string{"x", "y"}, New: []string{"x", "z"}, From: []int{0, -1}, EOF: true}}},
			},
		},
		{
			name: "CRLF patch text, a chunk without @@ and a blank context line",
			text: "*** Begin Patch\r\n*** Update File: c.txt\r\n a\r\n\r\n-b\r\n+c\r\n*** End Patch\r\n",
			want: []patchHunk{{Kind: hunkUpdate, Path: "c.txt", Chunks: []patchChunk{{Old: []string{"a", "", "b"}, New: []string{"a", "", "c"}, From: []int{0, 1, -1}}}}},
		},
		{
			name: "a unified-diff range is not a context line",
			text: "*** Begin Patch\n*** Update File: c.txt\n@@ -1,2 +1,2 @@\n-a\n+b\n@@ def g():\n-c\n+d\n*** End Patch",
			want: []patchHunk{{Kind: hunkUpdate, Path: "c.txt", Chunks: []patchChunk{
				{Old: []string{"a"}, New: []string{"b"}, From: []int{-1}},
				{Context: "def g():", Old: []string{"c"}, New: []string{"d"}, From: []int{-1}},
			}}},
		},
		{
			name: "a heredoc with apply_patch in front",
			text: "apply_patch <<\"PATCH\"\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nPATCH",
			want: []patchHunk{{Kind: hunkDelete, Path: "x"}},
		},
		{name: "no markers", text: "*** Delete File: x", wantErr: "missing Begin/End markers"},
		{name: "end before begin", text: "*** End Patch\n*** Begin Patch", wantErr: "missing Begin/End markers"},
		{name: "an update without changes", text: "*** Begin Patch\n*** Update File: x\n*** End Patch", wantErr: "has no changes"},
		{name: "a header without path", text: "*** Begin Patch\n*** Add File: \n+x\n*** End Patch", wantErr: "names no file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parsePatch(tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestApplyChunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string
		chunks  []patchChunk
		want    string
		wantErr string
	}{
		{name: "an insertion after a context line goes right after it", file: "a\nb\nc\n",
			chunks: []patchChunk{{Context: "a", New: []string{"a2"}}}, want: "a\na2\nb\nc\n"},
		{name: "an insertion without context goes at the end", file: "a\n",
			chunks: []patchChunk{{New: []string{"z"}}}, want: "a\nz\n"},
		{name: "chunks are found in order", file: "x\n1\nx\n2\n",
			chunks: []patchChunk{{Old: []string{"x", "1"}, New: []string{"x", "one"}}, {Old: []string{"x"}, New: []string{"X"}}}, want: "x\none\nX\n2\n"},
		{name: "a missing context line is an error", file: "a\n",
			chunks: []patchChunk{{Context: "nope", Old: []string{"a"}, New: []string{"b"}}}, wantErr: "Failed to find context 'nope'"},
		{name: "a file without final newline gets one", file: "a\nb",
			chunks: []patchChunk{{Old: []string{"b"}, New: []string{"c"}}}, want: "a\nc\n"},
		{name: "a trailing empty old line matches the final newline", file: "a\nb\n",
			chunks: []patchChunk{{Old: []string{"b", ""}, New: []string{"c", ""}}}, want: "a\nc\n"},
		{name: "trimmed whitespace still matches", file: "\tif x {\n",
			chunks: []patchChunk{{Old: []string{"if x {"}, New: []string{"\tif y {"}}}, want: "\tif y {\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := applyChunks("f", tt.file, tt.chunks)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzParsePatch checks the parser and the chunk applier never panic, and
// that every hunk they accept names a file. Seeds live in
// testdata/fuzz/FuzzParsePatch.
func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** End Patch", "")
	f.Add("*** Begin Patch\n*** Update File: a\n@@ c\n x\n-y\n+z\n*** End of File\n*** End Patch", "c\nx\ny\n")
	f.Add("cat <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF", "a")
	f.Fuzz(func(t *testing.T, text, file string) {
		hunks, err := parsePatch(text)
		if err != nil {
			return
		}
		for _, h := range hunks {
			if h.Path == "" {
				t.Fatalf("hunk without path from %q", text)
			}
			if h.Kind == hunkUpdate {
				out, err := applyChunks(h.Path, file, h.Chunks)
				if err == nil && !strings.HasSuffix(out, "\n") {
					t.Fatalf("applied update %q lacks a final newline", out)
				}
			}
		}
	})
}
