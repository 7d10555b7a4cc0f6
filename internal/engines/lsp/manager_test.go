package lsp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
	"github.com/toolhost/toolhost/runtime/config"
)

func TestMain(m *testing.M) {
	lsptest.ServeIfAsked()
	os.Exit(m.Run())
}

// generous is the tests' wait: long enough that only a server that never
// answers runs into it.
const generous = 60 * time.Second

// fakeManager returns a Manager whose only server is the fake one for
// ".fk" files (every built-in server is turned off), and its log.
func fakeManager(t *testing.T) (*Manager, string) {
	t.Helper()
	s, log := lsptest.Server(t, ".fk")
	servers := map[string]config.LSPServer{"fake": s}
	for name := range config.BuiltinLSPServers() {
		servers[name] = config.LSPServer{Disabled: true}
	}
	m := New(Options{Config: config.LSPConfig{Servers: servers}, Wait: generous})
	t.Cleanup(func() { m.Close(context.Background()) })
	return m, log
}

func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestDiagnoseReportsTheServersDiagnostics(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "fine\nx ERROR: broken here\nWARN: meh\nOTHER b.fk 2\n")
	d := m.Diagnose(context.Background(), root, []string{f})
	if len(d.Notes) != 0 {
		t.Fatalf("notes %q", d.Notes)
	}
	got := d.Files[f]
	if len(got) != 2 || got[0].Severity != 1 || got[0].Message != "broken here" || got[0].Range.Start.Line != 1 || got[0].Range.Start.Character != 2 || got[1].Severity != 2 {
		t.Errorf("diagnostics of a.fk: %+v", got)
	}
	if other := d.Files[filepath.Join(root, "b.fk")]; len(other) != 2 {
		t.Errorf("diagnostics of b.fk: %+v", other)
	}

	// Fixing the file clears its errors, through didChange on the same
	// process.
	write(t, f, "fine\n")
	d = m.Diagnose(context.Background(), root, []string{f})
	if ds, ok := d.Files[f]; !ok || len(ds) != 0 {
		t.Errorf("after the fix: %+v (present %v)", ds, ok)
	}
	if n := lsptest.Count(t, log, "initialize"); n != 1 {
		t.Errorf("%d servers started for one project, want 1", n)
	}
	if n := lsptest.Count(t, log, "textDocument/didChange"); n != 1 {
		t.Errorf("%d didChange sent, want 1: %q", n, lsptest.Log(t, log))
	}

	// Another project gets its own server.
	root2 := t.TempDir()
	g := write(t, filepath.Join(root2, "c.fk"), "ERROR: two\n")
	d = m.Diagnose(context.Background(), root2, []string{g})
	if len(d.Files[g]) != 1 || d.Files[f] != nil {
		t.Errorf("second project: %+v", d.Files)
	}
	if n := lsptest.Count(t, log, "initialize"); n != 2 {
		t.Errorf("%d servers started for two projects, want 2", n)
	}
}

func TestDiagnoseSkipsWhatNoServerServes(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	root := t.TempDir()
	outside := write(t, filepath.Join(t.TempDir(), "x.fk"), "ERROR: not ours\n")
	other := write(t, filepath.Join(root, "x.txt"), "ERROR: no server\n")
	d := m.Diagnose(context.Background(), root, []string{outside, other})
	if len(d.Files) != 0 || len(d.Notes) != 0 {
		t.Errorf("got %+v", d)
	}
	if lines := lsptest.Log(t, log); len(lines) != 0 {
		t.Errorf("a server started: %q", lines)
	}
}

func TestAServerThatCrashesCostsOneNoteAndIsRestartedThenGivenUp(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	root := t.TempDir()
	f := filepath.Join(root, "a.fk")
	for i := 1; i <= MaxCrashes; i++ {
		write(t, f, "CRASH\n")
		d := m.Diagnose(context.Background(), root, []string{f})
		if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "language server fake crashed") || !strings.Contains(d.Notes[0], "crashing as asked") {
			t.Fatalf("crash %d: notes %q", i, d.Notes)
		}
		if i < MaxCrashes && !strings.Contains(d.Notes[0], "starts again") {
			t.Errorf("crash %d: note %q does not say it restarts", i, d.Notes[0])
		}
		if i == MaxCrashes && !strings.Contains(d.Notes[0], "is off until toolhost restarts") {
			t.Errorf("last crash: note %q does not say it is given up", d.Notes[0])
		}
		if i == 1 {
			// A change after a crash starts a new server that works.
			write(t, f, "ERROR: after\n")
			d = m.Diagnose(context.Background(), root, []string{f})
			if len(d.Notes) != 0 || len(d.Files[f]) != 1 {
				t.Fatalf("after a crash: %+v", d)
			}
		}
	}
	started := lsptest.Count(t, log, "initialize")
	write(t, f, "ERROR: again\n")
	d := m.Diagnose(context.Background(), root, []string{f})
	if len(d.Notes) != 0 || len(d.Files) != 0 {
		t.Errorf("a given-up server still reports: %+v", d)
	}
	if n := lsptest.Count(t, log, "initialize"); n != started {
		t.Errorf("a given-up server was started again (%d starts, was %d)", n, started)
	}
}

func TestMissingServers(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.go"), "package a\n")
	notFound := func(string) (string, error) { return "", errors.New("executable file not found in $PATH") }

	t.Run("a built-in server that is not on PATH is skipped without a note", func(t *testing.T) {
		m := New(Options{LookPath: notFound, Wait: generous})
		defer m.Close(context.Background())
		for range 3 {
			if d := m.Diagnose(context.Background(), root, []string{f}); len(d.Notes) != 0 || len(d.Files) != 0 {
				t.Fatalf("got %+v", d)
			}
		}
	})
	t.Run("a configured server that is missing costs one note, once", func(t *testing.T) {
		cfg := config.LSPConfig{Servers: map[string]config.LSPServer{"gopls": {Command: []string{"/nonexistent/gopls"}}}}
		m := New(Options{Config: cfg, Wait: generous})
		defer m.Close(context.Background())
		d := m.Diagnose(context.Background(), root, []string{f})
		if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "language server gopls (/nonexistent/gopls) is not available") || !strings.Contains(d.Notes[0], `"disabled": true`) {
			t.Fatalf("notes %q", d.Notes)
		}
		for range 3 {
			if d := m.Diagnose(context.Background(), root, []string{f}); len(d.Notes) != 0 {
				t.Fatalf("the note came again: %q", d.Notes)
			}
		}
	})
}

func TestServersOff(t *testing.T) {
	t.Parallel()
	s, log := lsptest.Server(t, ".go")
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.go"), "ERROR: x\n")
	tests := []struct {
		name string
		cfg  config.LSPConfig
	}{
		{name: `"lsp": false starts nothing`, cfg: config.LSPConfig{Off: true}},
		{name: "a disabled server starts nothing", cfg: config.LSPConfig{Servers: map[string]config.LSPServer{"gopls": {Disabled: true}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The fake is what PATH would find for gopls.
			m := New(Options{Config: tt.cfg, Wait: generous, LookPath: func(string) (string, error) { return s.Command[0], nil }})
			defer m.Close(context.Background())
			if d := m.Diagnose(context.Background(), root, []string{f}); len(d.Files) != 0 || len(d.Notes) != 0 {
				t.Errorf("got %+v", d)
			}
		})
	}
	if lines := lsptest.Log(t, log); len(lines) != 0 {
		t.Errorf("a server started: %q", lines)
	}
}

func TestCloseShutsServersDown(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "ERROR: x\n")
	m.Diagnose(context.Background(), root, []string{f})
	var c *client
	for _, e := range m.entries {
		c = e.c
	}
	if c == nil {
		t.Fatal("no server running")
	}
	m.Close(context.Background())
	select {
	case <-c.exited:
	default:
		t.Fatal("the server process was not reaped by Close")
	}
	if lsptest.Count(t, log, "shutdown") != 1 || lsptest.Count(t, log, "exit") != 1 {
		t.Errorf("not shut down politely: %q", lsptest.Log(t, log))
	}
	if d := m.Diagnose(context.Background(), root, []string{f}); len(d.Files) != 0 {
		t.Errorf("a closed manager started a server: %+v", d)
	}
}

func TestDeletedFilesAreClosed(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "ERROR: x\n")
	m.Diagnose(context.Background(), root, []string{f})
	os.Remove(f)
	d := m.Diagnose(context.Background(), root, []string{f})
	if len(d.Notes) != 0 {
		t.Errorf("notes %q", d.Notes)
	}
	// Nothing waits for a deleted file; a change after it does, and the
	// server handles messages in order.
	g := write(t, filepath.Join(root, "b.fk"), "ERROR: y\n")
	m.Diagnose(context.Background(), root, []string{g})
	if lsptest.Count(t, log, "textDocument/didClose") != 1 {
		t.Errorf("deleted file not closed: %q", lsptest.Log(t, log))
	}
}

func TestCancellingTheCallEndsTheWait(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	m.opts.Wait = time.Hour // only the cancellation can end it
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "SILENT\n")

	// Cancelled before anything starts: no server, and none given up.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d := m.Diagnose(ctx, root, []string{f}); len(d.Notes) != 0 || len(d.Files) != 0 {
		t.Errorf("a cancelled call: %+v", d)
	}

	// Cancelled while the server says nothing.
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		for lsptest.Count(t, log, "textDocument/didOpen") == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	if d := m.Diagnose(ctx, root, []string{f}); len(d.Notes) != 0 {
		t.Errorf("a silent server: %+v", d)
	}
	// The server is kept, and answers the next change.
	write(t, f, "ERROR: now\n")
	m.opts.Wait = generous
	if d := m.Diagnose(context.Background(), root, []string{f}); len(d.Files[f]) != 1 {
		t.Errorf("after the cancellations: %+v", d)
	}
	if n := lsptest.Count(t, log, "initialize"); n != 1 {
		t.Errorf("%d servers started, want 1", n)
	}
}

// TestDiagnoseKeepsToTheProjectAndCleansMessages: what a server publishes
// reaches the model. Files outside the project are not reported (a
// hostile or confused server must not name and describe other places), and
// a message loses the terminal controls it carried (escape sequences,
// carriage returns that overwrite what a person reads) and its excess.
func TestDiagnoseKeepsToTheProjectAndCleansMessages(t *testing.T) {
	t.Parallel()
	m, _ := fakeManager(t)
	root := filepath.Join(t.TempDir(), "proj")
	long := strings.Repeat("y", 3*maxDiagnosticMessage)
	f := write(t, filepath.Join(root, "a.fk"), "x ERROR: red \x1b[31mtext\x1b[0m\rhidden\x07 tab\there\n"+
		"ERROR: "+long+"\nOTHER ../outside.fk 2\nOTHER b.fk 1\n")
	d := m.Diagnose(context.Background(), root, []string{f})
	for p := range d.Files {
		if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("diagnostics reported for %s, outside the project %s", p, root)
		}
	}
	if len(d.Files[filepath.Join(root, "b.fk")]) != 1 {
		t.Errorf("the project's other file lost its diagnostics: %+v", d.Files)
	}
	got := d.Files[f]
	if len(got) != 2 {
		t.Fatalf("diagnostics of a.fk: %+v", got)
	}
	if want := "red [31mtext[0mhidden tab\there"; got[0].Message != want {
		t.Errorf("message = %q, want %q", got[0].Message, want)
	}
	if n := len(got[1].Message); n > maxDiagnosticMessage+len("…") || !strings.HasSuffix(got[1].Message, "…") {
		t.Errorf("a long message kept %d bytes (limit %d): %q…", n, maxDiagnosticMessage, got[1].Message[:20])
	}
}

// TestAServerThatStopsReadingCannotHoldAnEdit: sending a file to a server
// that reads nothing fills the pipe; the write must end with the wait, and
// the server (whose input now holds half a message) be replaced.
func TestAServerThatStopsReadingCannotHoldAnEdit(t *testing.T) {
	t.Parallel()
	m, log := fakeManager(t)
	m.opts.Wait = time.Second // the bound under test; the test's own limit is generous
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "DEAF\n")
	m.Diagnose(context.Background(), root, []string{f})
	big := write(t, filepath.Join(root, "b.fk"), strings.Repeat("a long line of text\n", 1<<16))
	done := make(chan []string, 1)
	go func() { done <- m.Diagnose(context.Background(), root, []string{big}).Notes }()
	select {
	case notes := <-done:
		if len(notes) != 1 || !strings.Contains(notes[0], "stopped reading") {
			t.Errorf("notes %q, want one saying the server stopped reading", notes)
		}
	case <-time.After(generous):
		t.Fatalf("an edit waited %s on a server that reads nothing: %q", generous, lsptest.Log(t, log))
	}
}

// TestACrashNoteCarriesNoTerminalControls: a crash note quotes the
// server's stderr, and reaches the model and a person's terminal.
func TestACrashNoteCarriesNoTerminalControls(t *testing.T) {
	t.Parallel()
	m, _ := fakeManager(t)
	root := t.TempDir()
	f := write(t, filepath.Join(root, "a.fk"), "CRASH \x1b[2J\x1b]0;title\x07\rhidden\u202e\n")
	d := m.Diagnose(context.Background(), root, []string{f})
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "crashing as asked") {
		t.Fatalf("notes %q", d.Notes)
	}
	if strings.ContainsAny(d.Notes[0], "\x1b\x07\r\u202e") {
		t.Errorf("note %q carries terminal controls", d.Notes[0])
	}
}
