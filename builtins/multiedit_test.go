package builtins

import (
	"strings"
	"testing"
)

func TestMultiEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		file    string // "" for no file
		edits   []multiEditItem
		want    string
		wantErr string
	}{
		{name: "edits apply in order, each to the previous result", file: "a b c\n",
			edits: []multiEditItem{{OldString: "a", NewString: "x"}, {OldString: "x b", NewString: "y"}},
			want:  "y c\n"},
		{name: "a failing edit leaves the file untouched and is named", file: "a b c\n",
			edits:   []multiEditItem{{OldString: "a", NewString: "x"}, {OldString: "b", NewString: "y"}, {OldString: "zzz", NewString: "q"}},
			wantErr: "edit 3 of 3 failed (no edit was applied, the file is unchanged): Could not find oldString"},
		{name: "an ambiguous edit is named", file: "a a\n",
			edits:   []multiEditItem{{OldString: "a", NewString: "b"}},
			wantErr: "edit 1 of 1 failed (no edit was applied, the file is unchanged): Found multiple matches"},
		{name: "replaceAll works per edit", file: "a a b\n",
			edits: []multiEditItem{{OldString: "a", NewString: "c", ReplaceAll: true}, {OldString: "b", NewString: "d"}},
			want:  "c c d\n"},
		{name: "an empty first oldString creates the file for the later edits",
			edits: []multiEditItem{{OldString: "", NewString: "one two\n"}, {OldString: "two", NewString: "2"}},
			want:  "one 2\n"},
		{name: "an empty later oldString is refused", file: "a\n",
			edits:   []multiEditItem{{OldString: "a", NewString: "b"}, {OldString: "", NewString: "c"}},
			wantErr: "edit 2 of 2 failed"},
		{name: "CRLF is kept across edits", file: "a\r\nb\r\n",
			edits: []multiEditItem{{OldString: "a\nb", NewString: "x\ny\nz"}, {OldString: "z\r\n", NewString: "w\n"}},
			want:  "x\r\ny\r\nw\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			if tt.file != "" {
				e.readAndStamp(t, e.write(t, "f.txt", tt.file))
			}
			res, err := e.call(t, MultiEdit(), multiEditParams{FilePath: "f.txt", Edits: tt.edits})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if got := e.content(t, "f.txt"); got != tt.file {
					t.Fatalf("file changed to %q", got)
				}
				if n := len(e.asks); n != 1 { // only the read's request
					t.Errorf("%d permission requests, want none from the failed multiedit", n-1)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := e.content(t, "f.txt"); got != tt.want {
				t.Fatalf("file = %q, want %q", got, tt.want)
			}
			if got := res.Metadata["replacers"].([]string); len(got) != len(tt.edits) {
				t.Errorf("replacers = %v", got)
			}
		})
	}
}
