package builtins

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/runtime"
)

// TestTheReadCheckFollowsTheFrontEnd: the refusal names the read tool as
// the model sees it with the exact call to make, and a front end that
// turns the check off lets an unread file be written — but never one read
// through toolhost and changed since.
func TestTheReadCheckFollowsTheFrontEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		front   runtime.Front
		stale   bool // read the file, then change it behind the session's back
		wantErr []string
	}{
		{
			name:    "toolhost's own front ends name read and give the call",
			wantErr: []string{"You must read the file", "with the read tool first: read {\"filePath\":"},
		},
		{
			name:    "an OpenCode session is told to call toolhost_read with the file's path",
			front:   runtime.Front{ToolPrefix: "toolhost_"},
			wantErr: []string{"with the toolhost_read tool first: toolhost_read {\"filePath\":\"{path}\"}"},
		},
		{
			name:  "a front end without the check writes a file it never read",
			front: runtime.Front{ToolPrefix: "toolhost_", SkipReadCheck: true},
		},
		{
			name:    "a front end without the check still refuses a file changed since toolhost read it",
			front:   runtime.Front{ToolPrefix: "toolhost_", SkipReadCheck: true},
			stale:   true,
			wantErr: []string{"has been modified since it was last read", "toolhost_read {\"filePath\":\"{path}\"}"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, tool := range []struct {
				tool runtime.Tool
				args func(path string) any
			}{
				{Write(), func(p string) any { return writeParams{FilePath: p, Content: "new\n"} }},
				{Edit(), func(p string) any { return editParams{FilePath: p, OldString: "old", NewString: "new"} }},
			} {
				e := newFTEnv(t)
				e.tc.Front = tt.front
				p := e.write(t, "notes.txt", "old\n")
				if tt.stale {
					e.readAndStamp(t, p)
					later := time.Now().Add(time.Hour)
					if err := os.Chtimes(p, later, later); err != nil {
						t.Fatal(err)
					}
				}
				_, err := e.call(t, tool.tool, tool.args(p))
				if len(tt.wantErr) == 0 {
					if err != nil {
						t.Fatalf("%s: %v", tool.tool.ID(), err)
					}
					if got := e.content(t, "notes.txt"); got != "new\n" {
						t.Errorf("%s: the file holds %q", tool.tool.ID(), got)
					}
					continue
				}
				if err == nil {
					t.Fatalf("%s: no error, want %q", tool.tool.ID(), tt.wantErr)
				}
				for _, w := range tt.wantErr {
					if w = strings.ReplaceAll(w, "{path}", p); !strings.Contains(err.Error(), w) {
						t.Errorf("%s: %v\nwant it to contain %q", tool.tool.ID(), err, w)
					}
				}
				if got := e.content(t, "notes.txt"); got != "old\n" {
					t.Errorf("%s: a refused change wrote %q", tool.tool.ID(), got)
				}
			}
		})
	}
}
