package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/host"
)

// TestExplainBashShowsWhatAnAllowedProgramRuns: explaining a command line
// in which an allowed program runs another command shows that command's
// own request, its decision and why it is asked.
func TestExplainBashShowsWhatAnAllowedProgramRuns(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	env := map[string]string{
		"HOME":                    home,
		"XDG_CONFIG_HOME":         home + "/config",
		"XDG_DATA_HOME":           home + "/data",
		"XDG_CACHE_HOME":          home + "/cache",
		"TOOLHOST_CONFIG_CONTENT": `{"permission": {"bash": {"*": "deny", "awk *": "allow", "tar *": "allow"}}}`,
	}
	for _, tt := range []struct{ command, want string }{
		{`awk 'BEGIN{system("touch p")}'`, `deny  bash "touch p"` + "\n      decided by: " + `bash "*": deny`},
		{`awk 'BEGIN{system("touch p")}'`, "why: awk's system() runs this with sh -c: touch p"},
		{`tar -xf a.tar --to-command="$c"`, "why: tar runs this with sh -c for every file it extracts; the command is not fixed text"},
		{`awk '{print $1}' f`, "allow bash \"awk {print $1} f\"\n      decided by: " + `bash "awk *": allow`},
	} {
		var out bytes.Buffer
		g := &Globals{
			Dir:     t.TempDir(),
			Streams: IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &bytes.Buffer{}},
			NewHost: func(ctx context.Context, opts host.Options) (*host.Host, error) {
				opts.Env = func(k string) string { return env[k] }
				opts.NoWasm = true
				return host.New(ctx, opts)
			},
		}
		cmd := NewCmdExplain(g, nil)
		cmd.SetArgs([]string{"bash", tt.command})
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("explain %s:\n%s\nwant it to contain %q", tt.command, out.String(), tt.want)
		}
	}
}
