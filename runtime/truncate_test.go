package runtime

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func numbered(n int) string {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d", i+1)
	}
	return strings.Join(lines, "\n")
}

func TestTruncateKeepsHeadOrTailWithExactMarkers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		text       string
		maxLines   int
		maxBytes   int
		direction  string
		truncated  bool
		wantPrefix string
		wantSuffix string
		marker     string
	}{
		{name: "short output passes through untouched", text: numbered(10), maxLines: 20, maxBytes: 1000, direction: KeepHead,
			wantPrefix: "line 1\n", wantSuffix: "line 9\nline 10"},
		{name: "too many lines keeps the head and counts removed lines", text: numbered(2500), maxLines: 2000, maxBytes: 1 << 20, direction: KeepHead, truncated: true,
			wantPrefix: "line 1\nline 2\n", marker: "\n\n...500 lines truncated...\n\n"},
		{name: "too many lines keeps the tail when asked", text: numbered(2500), maxLines: 2000, maxBytes: 1 << 20, direction: KeepTail, truncated: true,
			wantPrefix: "...500 lines truncated...\n\n", wantSuffix: "Read with offset/limit to view specific sections.\n\nline 501\nline 502", marker: "line 2499\nline 2500"},
		{name: "byte limit cuts at a line boundary and counts bytes", text: numbered(100), maxLines: 2000, maxBytes: 20, direction: KeepHead, truncated: true,
			wantPrefix: "line 1\nline 2\nline 3\n\n...", marker: fmt.Sprintf("...%d bytes truncated...", len(numbered(100))-20)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := &Truncation{MaxLines: tc.maxLines, MaxBytes: tc.maxBytes, Dir: t.TempDir()}
			got, err := tr.Truncate(tc.text, tc.direction, Hint{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Truncated != tc.truncated {
				t.Fatalf("Truncated = %v, want %v", got.Truncated, tc.truncated)
			}
			if !strings.HasPrefix(got.Content, tc.wantPrefix) {
				t.Errorf("content does not start with %q:\n%.200s", tc.wantPrefix, got.Content)
			}
			if tc.wantSuffix != "" && !strings.Contains(got.Content, tc.wantSuffix) {
				t.Errorf("content lacks %q", tc.wantSuffix)
			}
			if tc.marker != "" && !strings.Contains(got.Content, tc.marker) {
				t.Errorf("content lacks marker %q", tc.marker)
			}
			if !tc.truncated {
				if got.Content != tc.text || got.Path != "" {
					t.Errorf("untruncated output changed or saved")
				}
				return
			}
			saved, err := os.ReadFile(got.Path)
			if err != nil || string(saved) != tc.text {
				t.Fatalf("saved file does not hold the whole output (err %v)", err)
			}
			if !strings.Contains(got.Content, "Full output saved to: "+got.Path) || !strings.Contains(got.Content, "Read with offset/limit") {
				t.Errorf("hint does not name the file and how to read it:\n%s", got.Content[len(got.Content)-300:])
			}
			if !strings.HasPrefix(filepath.Base(got.Path), "tool_") {
				t.Errorf("saved file name %q does not start with tool_", got.Path)
			}
		})
	}
}

func TestTruncateHintSuggestsDelegationWhenTaskToolIsAvailable(t *testing.T) {
	t.Parallel()
	tr := &Truncation{MaxLines: 10, Dir: t.TempDir()}
	got, _ := tr.Truncate(numbered(50), KeepHead, Hint{Delegate: true})
	if !strings.Contains(got.Content, "Task tool") {
		t.Errorf("hint does not mention the Task tool:\n%s", got.Content)
	}
}

func TestCleanupDeletesOutputsOlderThanSevenDaysAtMostHourly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	tr := &Truncation{Dir: dir, Now: func() time.Time { return now }}
	old := filepath.Join(dir, "tool_old")
	fresh := filepath.Join(dir, "tool_fresh")
	for _, p := range []string{old, fresh} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Chtimes(old, now.Add(-8*24*time.Hour), now.Add(-8*24*time.Hour))
	os.Chtimes(fresh, now.Add(-6*24*time.Hour), now.Add(-6*24*time.Hour))
	tr.Cleanup()
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("output older than 7 days survived cleanup")
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Error("output younger than 7 days was deleted")
	}
	// A second sweep within the hour does nothing, even for an old file.
	older := filepath.Join(dir, "tool_older")
	os.WriteFile(older, []byte("x"), 0o644)
	os.Chtimes(older, now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour))
	now = now.Add(30 * time.Minute)
	tr.Cleanup()
	if _, err := os.Stat(older); err != nil {
		t.Error("cleanup ran twice within an hour")
	}
	now = now.Add(31 * time.Minute)
	tr.Cleanup()
	if _, err := os.Stat(older); !os.IsNotExist(err) {
		t.Error("cleanup did not run after an hour")
	}
}

func TestTruncateHintNamesToolsAsTheFrontEndDoes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		hint      Hint
		want      []string // with {path}, {dir} and {file} of the saved output
		forbidden []string
	}{
		{
			name: "toolhost's own front ends keep OpenCode's wording",
			hint: Hint{},
			want: []string{"Use Grep to search the full content or Read with offset/limit"},
		},
		{
			name:      "an MCP client that prefixes names is told the exact calls to make",
			hint:      Hint{Front: Front{ToolPrefix: "toolhost_"}},
			want:      []string{`toolhost_grep {"include":"{file}","path":"{dir}","pattern":"<regular expression>"}`, `toolhost_read {"filePath":"{path}","limit":200,"offset":1}`},
			forbidden: []string{"Use Grep", "Read with offset/limit"},
		},
		{
			name:      "delegation is suggested through the client's name for task",
			hint:      Hint{Delegate: true, Front: Front{ToolPrefix: "mcp__toolhost__"}},
			want:      []string{"Use mcp__toolhost__task to have the explore agent process this file with mcp__toolhost__grep and mcp__toolhost__read"},
			forbidden: []string{"Task tool"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tr := &Truncation{MaxLines: 5, Dir: t.TempDir()}
			got, err := tr.Truncate(numbered(20), KeepHead, tc.hint)
			if err != nil || !got.Truncated {
				t.Fatalf("Truncate: %v, truncated %v", err, got.Truncated)
			}
			r := strings.NewReplacer("{path}", got.Path, "{dir}", filepath.Dir(got.Path), "{file}", filepath.Base(got.Path))
			for _, w := range tc.want {
				if w = r.Replace(w); !strings.Contains(got.Content, w) {
					t.Errorf("hint lacks %q:\n%s", w, got.Content)
				}
			}
			for _, f := range tc.forbidden {
				if strings.Contains(got.Content, f) {
					t.Errorf("hint still says %q:\n%s", f, got.Content)
				}
			}
		})
	}
}
