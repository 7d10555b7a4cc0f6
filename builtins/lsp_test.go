package builtins

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/engines/lsp"
	"github.com/toolhost/toolhost/internal/engines/lsp/lsptest"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

func TestMain(m *testing.M) {
	// The test binary doubles as a fake language server (lsptest).
	lsptest.ServeIfAsked()
	os.Exit(m.Run())
}

// lspWait is the tests' bound on a server's answer: generous, so it only
// tells a late answer from none.
const lspWait = 60 * time.Second

// withLanguageServers gives e's calls a Diagnoser running the fake server
// for .fk files (built-in servers off); it returns the server's log.
func withLanguageServers(t *testing.T, e *ftEnv) string {
	t.Helper()
	s, log := lsptest.Server(t, ".fk")
	servers := map[string]config.LSPServer{"fake": s}
	for name := range config.BuiltinLSPServers() {
		servers[name] = config.LSPServer{Disabled: true}
	}
	m := lsp.New(lsp.Options{Config: config.LSPConfig{Servers: servers}, Wait: lspWait})
	t.Cleanup(func() { m.Close(context.Background()) })
	e.tc.Diagnoser = m
	return log
}

func TestEditToolsAppendTheLanguageServersErrors(t *testing.T) {
	t.Parallel()
	const bad = "one\nx ERROR: undefined: y\nOTHER b.fk 1\n"
	tests := []struct {
		name string
		run  func(t *testing.T, e *ftEnv, path string) (runtime.Result, error)
		head string // the tool's own first line
	}{
		{name: "edit", head: "Edit applied successfully.", run: func(t *testing.T, e *ftEnv, path string) (runtime.Result, error) {
			e.write(t, "a.fk", "one\nfine\nOTHER b.fk 1\n")
			e.readAndStamp(t, path)
			return e.call(t, Edit(), editParams{FilePath: path, OldString: "fine", NewString: "x ERROR: undefined: y"})
		}},
		{name: "multiedit", head: "Applied 2 edits successfully.", run: func(t *testing.T, e *ftEnv, path string) (runtime.Result, error) {
			e.write(t, "a.fk", "one\nfine\nlast\n")
			e.readAndStamp(t, path)
			return e.call(t, MultiEdit(), multiEditParams{FilePath: path, Edits: []multiEditItem{
				{OldString: "fine", NewString: "x ERROR: undefined: y"}, {OldString: "last", NewString: "OTHER b.fk 1"}}})
		}},
		{name: "write", head: "Wrote file successfully.", run: func(t *testing.T, e *ftEnv, path string) (runtime.Result, error) {
			return e.call(t, Write(), writeParams{FilePath: path, Content: bad})
		}},
		{name: "apply_patch", head: "Success. Updated the following files:\nA a.fk", run: func(t *testing.T, e *ftEnv, path string) (runtime.Result, error) {
			return e.call(t, ApplyPatch(), applyPatchParams{PatchText: "*** Begin Patch\n*** Add File: a.fk\n+one\n+x ERROR: undefined: y\n+OTHER b.fk 1\n*** End Patch"})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newFTEnv(t)
			withLanguageServers(t, e)
			path := filepath.Join(e.dir, "a.fk")
			res, err := tt.run(t, e, path)
			if err != nil {
				t.Fatal(err)
			}
			if got := e.content(t, "a.fk"); got != bad {
				t.Fatalf("file = %q", got)
			}
			header := "LSP errors detected in this file, please fix:"
			if tt.name == "apply_patch" {
				header = "LSP errors detected in a.fk, please fix:"
			}
			other := filepath.Join(e.dir, "b.fk")
			want := tt.head + "\n\n" + header + "\n" +
				fmt.Sprintf("<diagnostics file=%q>\nERROR [2:3] undefined: y\n</diagnostics>", path) +
				"\n\nLSP errors detected in other files:\n" +
				fmt.Sprintf("<diagnostics file=%q>\nERROR [1:1] other error 1\n</diagnostics>", other)
			if res.Output != want {
				t.Errorf("output:\n%s\nwant:\n%s", res.Output, want)
			}
			diags, ok := res.Metadata["diagnostics"].(map[string][]runtime.Diagnostic)
			if !ok || len(diags[path]) != 1 || diags[path][0].Message != "undefined: y" || diags[path][0].Range.Start.Line != 1 || len(diags[other]) != 1 {
				t.Errorf("metadata diagnostics: %#v", res.Metadata["diagnostics"])
			}
		})
	}
}

func TestEditReportsNoErrorsOnceFixed(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	withLanguageServers(t, e)
	path := e.write(t, "a.fk", "ok\n")
	e.readAndStamp(t, path)
	res, err := e.call(t, Edit(), editParams{FilePath: path, OldString: "ok", NewString: "ERROR: bad"})
	if err != nil || !strings.Contains(res.Output, "ERROR [1:1] bad") {
		t.Fatalf("%v\n%s", err, res.Output)
	}
	res, err = e.call(t, Edit(), editParams{FilePath: path, OldString: "ERROR: bad", NewString: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "Edit applied successfully." {
		t.Errorf("output after the fix:\n%s", res.Output)
	}
	if ds := res.Metadata["diagnostics"].(map[string][]runtime.Diagnostic); len(ds[path]) != 0 {
		t.Errorf("diagnostics after the fix: %v", ds)
	}
}

func TestDiagnosticsOutputKeepsOpenCodesLimits(t *testing.T) {
	t.Parallel()
	errs := func(n int) []runtime.Diagnostic {
		var ds []runtime.Diagnostic
		for i := range n {
			ds = append(ds, runtime.Diagnostic{Range: runtime.DiagnosticRange{Start: runtime.DiagnosticPosition{Line: i, Character: 1}}, Severity: 1, Message: fmt.Sprintf("e%d", i)})
		}
		return ds
	}
	files := map[string][]runtime.Diagnostic{"/p/main.go": errs(25)}
	for i := range 7 {
		files[fmt.Sprintf("/p/o%d.go", i)] = errs(1)
	}
	// Warnings and duplicates do not count.
	files["/p/main.go"] = append(files["/p/main.go"], runtime.Diagnostic{Severity: 2, Message: "warn"}, files["/p/main.go"][0])
	files["/p/warn.go"] = []runtime.Diagnostic{{Severity: 2, Message: "only a warning"}}
	out := fileDiagnosticsOutput("/p/main.go", runtime.Diagnostics{Files: files, Notes: []string{"language server x crashed"}})
	if n := strings.Count(out, "ERROR ["); n != 20+5 {
		t.Errorf("%d error lines, want 20 for the file and 5 others:\n%s", n, out)
	}
	for _, want := range []string{"ERROR [20:2] e19\n... and 5 more\n</diagnostics>", `<diagnostics file="/p/o4.go">`, "\n\nNote: language server x crashed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{`"/p/o5.go"`, "warn", "e20"} {
		if strings.Contains(out, not) {
			t.Errorf("output has %q:\n%s", not, out)
		}
	}
	if n := strings.Count(out, "LSP errors detected in other files:"); n != 5 {
		t.Errorf("%d other-file headers, want 5", n)
	}
}

func TestACrashingServerCostsOneNoteAndTheEditLands(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	withLanguageServers(t, e)
	path := e.write(t, "a.fk", "ok\n")
	e.readAndStamp(t, path)
	res, err := e.call(t, Edit(), editParams{FilePath: path, OldString: "ok", NewString: "CRASH"})
	if err != nil {
		t.Fatal(err)
	}
	if e.content(t, "a.fk") != "CRASH\n" {
		t.Errorf("the edit did not land")
	}
	if n := strings.Count(res.Output, "Note: "); n != 1 || !strings.HasPrefix(res.Output, "Edit applied successfully.\n\nNote: language server fake crashed") {
		t.Errorf("output:\n%s", res.Output)
	}
	// The next edit has a new server and no note.
	res, err = e.call(t, Edit(), editParams{FilePath: path, OldString: "CRASH", NewString: "ERROR: back"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "Note:") || !strings.Contains(res.Output, "ERROR [1:1] back") {
		t.Errorf("output after the crash:\n%s", res.Output)
	}
}

func TestWithoutLanguageServersEditsReportNone(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	path := e.write(t, "a.fk", "ok\n")
	e.readAndStamp(t, path)
	res, err := e.call(t, Edit(), editParams{FilePath: path, OldString: "ok", NewString: "ERROR: bad"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "Edit applied successfully." {
		t.Errorf("output %q", res.Output)
	}
	if ds, ok := res.Metadata["diagnostics"].(map[string][]runtime.Diagnostic); !ok || len(ds) != 0 {
		t.Errorf("metadata diagnostics %#v", res.Metadata["diagnostics"])
	}
}

func TestLSPToolReportsTheFilesErrors(t *testing.T) {
	t.Parallel()
	e := newFTEnv(t)
	withLanguageServers(t, e)
	e.write(t, "a.fk", "x ERROR: broken\nOTHER b.fk 1\n")
	res, err := e.call(t, LSP(), lspParams{FilePath: "a.fk"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"This file has errors, please fix:\n<diagnostics file=", "ERROR [1:3] broken", "LSP errors detected in other files:", "other error 1"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q:\n%s", want, res.Output)
		}
	}
	if res.Metadata["errors"] != 1 {
		t.Errorf("metadata %v", res.Metadata)
	}
	if len(e.asks) != 1 || e.asks[0].Permission != "lsp" || e.asks[0].Patterns[0] != "a.fk" {
		t.Errorf("asked %+v", e.asks)
	}
	e.write(t, "c.zig", "const x = 1;")
	if _, err := e.call(t, LSP(), lspParams{FilePath: "c.zig"}); err == nil || !strings.Contains(err.Error(), "no language server reported on c.zig") {
		t.Errorf("error %v", err)
	}
	e.tc.Diagnoser = nil
	if _, err := e.call(t, LSP(), lspParams{FilePath: "a.fk"}); err == nil || !strings.Contains(err.Error(), "runs no language servers") {
		t.Errorf("error %v", err)
	}
}

// goplsPath finds gopls on PATH or in the Go bin directory (where .ci/run
// installs it). Without it the test is skipped locally and fails in CI.
func goplsPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gopls"); err == nil {
		return p
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gopls")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("gopls is not installed; .ci/run installs it with go install golang.org/x/tools/gopls")
	}
	t.Skip("gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0); skipping")
	return ""
}

func TestGoplsErrorsAppearAfterAnEditAndClearWhenFixed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts gopls")
	}
	gopls := goplsPath(t)
	e := newFTEnv(t)
	e.write(t, "go.mod", "module example.com/m\n\ngo 1.22\n")
	main := e.write(t, "main.go", "package m\n\nfunc Count() int {\n\treturn 1\n}\n")
	use := e.write(t, "use.go", "package m\n\nvar N int = Count()\n")
	m := lsp.New(lsp.Options{Config: config.LSPConfig{Servers: map[string]config.LSPServer{"gopls": {Command: []string{gopls}}}}, Wait: lspWait})
	defer m.Close(context.Background())
	e.tc.Diagnoser = m
	e.readAndStamp(t, main)

	// A type error in the file, which also breaks its user in another file.
	res, err := e.call(t, Edit(), editParams{FilePath: main, OldString: "func Count() int {\n\treturn 1", NewString: "func Count() string {\n\treturn 1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output:\n%s", res.Output)
	if !strings.HasPrefix(res.Output, "Edit applied successfully.\n\nLSP errors detected in this file, please fix:\n"+fmt.Sprintf("<diagnostics file=%q>\n", main)) {
		t.Errorf("no errors for the file:\n%s", res.Output)
	}
	if !regexp.MustCompile(`ERROR \[4:9\] cannot use 1 \(untyped int constant\) as string value in return statement`).MatchString(res.Output) {
		t.Errorf("the type error is missing:\n%s", res.Output)
	}
	if ds := res.Metadata["diagnostics"].(map[string][]runtime.Diagnostic); len(ds[main]) == 0 || ds[main][0].Source == "" {
		t.Errorf("metadata diagnostics: %#v", ds)
	}
	if !strings.Contains(res.Output, "LSP errors detected in other files:\n"+fmt.Sprintf("<diagnostics file=%q>\n", use)) {
		t.Errorf("the broken user in use.go is missing:\n%s", res.Output)
	}

	// The fix clears them.
	res, err = e.call(t, Edit(), editParams{FilePath: main, OldString: "func Count() string {", NewString: "func Count() int {"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Output, "LSP errors detected in this file") {
		t.Errorf("errors remain after the fix:\n%s", res.Output)
	}
	if ds := res.Metadata["diagnostics"].(map[string][]runtime.Diagnostic); len(ds[main]) != 0 {
		t.Errorf("diagnostics after the fix: %#v", ds[main])
	}
}
