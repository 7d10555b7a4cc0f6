package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// Defaults of Options.
const (
	// DefaultWait bounds the wait for a server's diagnostics after a
	// change, as OpenCode's document wait does.
	DefaultWait = 5 * time.Second
	// DefaultSettle is how long a server must stay quiet after publishing
	// for the file before its diagnostics are taken: servers publish in
	// rounds (syntax first, then types).
	DefaultSettle = 150 * time.Millisecond
	// DefaultStartTimeout bounds a server's start and initialize
	// handshake; OpenCode allows 45 s, which a first edit would wait.
	DefaultStartTimeout = 30 * time.Second
	// MaxCrashes is how many times a server may crash before it is given
	// up for the rest of the host's life.
	MaxCrashes = 3
	// maxFileBytes bounds the text sent to a server for one file; larger
	// files are left to the server's own reading.
	maxFileBytes = 8 << 20
	// shutdownTimeout bounds one server's polite shutdown in Close.
	shutdownTimeout = 3 * time.Second
	// maxNote bounds one note, in bytes.
	maxNote = 4096
)

// Options configure a Manager. Zero values are the defaults.
type Options struct {
	// Config is the "lsp" key (the servers in effect are Config.Resolve()).
	Config config.LSPConfig
	// Logger receives a record per server started, crashed or given up.
	Logger *slog.Logger
	// LookPath finds a server's program. Default exec.LookPath.
	LookPath func(string) (string, error)
	// Wait, Settle and StartTimeout: see DefaultWait, DefaultSettle and
	// DefaultStartTimeout.
	Wait, Settle, StartTimeout time.Duration
}

// Manager runs the language servers of a host: one process per project
// root and server, started on the first change of a file it serves and
// kept until Close. It implements runtime.Diagnoser and is safe for
// concurrent use.
type Manager struct {
	opts    Options
	servers []config.ResolvedLSPServer
	log     *slog.Logger

	mu      sync.Mutex
	entries map[key]*entry
	closed  bool
}

type key struct{ root, server string }

// entry is one (root, server): its running client, if any, and how it has
// fared. mu serialises its start and use, so concurrent edits share one
// process.
type entry struct {
	mu      sync.Mutex
	c       *client
	crashes int
	broken  bool // given up: never started again
}

var _ runtime.Diagnoser = (*Manager)(nil)

// New returns a Manager for the servers opts.Config puts in effect; no
// process starts until Diagnose needs one.
func New(opts Options) *Manager {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.LookPath == nil {
		opts.LookPath = exec.LookPath
	}
	if opts.Wait <= 0 {
		opts.Wait = DefaultWait
	}
	if opts.Settle <= 0 {
		opts.Settle = DefaultSettle
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = DefaultStartTimeout
	}
	return &Manager{opts: opts, servers: opts.Config.Resolve(), log: opts.Logger, entries: map[key]*entry{}}
}

// Servers are the servers in effect, by name.
func (m *Manager) Servers() []config.ResolvedLSPServer { return slices.Clone(m.servers) }

// ServersFor lists the servers in effect for a file, by its extension.
func (m *Manager) ServersFor(path string) []config.ResolvedLSPServer {
	ext := filepath.Ext(path)
	var out []config.ResolvedLSPServer
	if ext == "" {
		return nil
	}
	for _, s := range m.servers {
		if slices.Contains(s.Extensions, ext) {
			out = append(out, s)
		}
	}
	return out
}

// Diagnose implements runtime.Diagnoser: it sends each file's text to the
// servers for its extension (starting them for root on first use), waits
// up to Options.Wait for their diagnostics, and returns what the servers
// of root have published for files inside root. Files outside root are
// skipped. Problems with a
// server become notes, each said once: a configured server that will not
// start, a crash (the server is started again on the next change, and
// given up after MaxCrashes). A built-in server whose program is not on
// PATH is skipped without a note.
func (m *Manager) Diagnose(ctx context.Context, root string, files []string) runtime.Diagnostics {
	out := runtime.Diagnostics{Files: map[string][]runtime.Diagnostic{}}
	if m == nil || root == "" {
		return out
	}
	root = filepath.Clean(root)
	byServer := map[string][]string{}
	var names []string
	files = slices.Clone(files)
	for i, f := range files {
		f = filepath.Clean(f)
		files[i] = f
		if !inside(root, f) {
			continue
		}
		for _, s := range m.ServersFor(f) {
			if _, ok := byServer[s.Name]; !ok {
				names = append(names, s.Name)
			}
			byServer[s.Name] = append(byServer[s.Name], f)
		}
	}
	// Servers are asked at once, so the wait is the slowest one's, not
	// their sum.
	notes := make([]string, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			notes[i] = m.diagnoseWith(ctx, root, m.server(name), byServer[name])
		}()
	}
	wg.Wait()
	for _, n := range notes {
		if n != "" {
			// Notes quote servers (stderr, error messages), and reach
			// the model and a person's terminal.
			out.Notes = append(out.Notes, cleanText(n, maxNote))
		}
	}
	// What every server of root knows, touched files included even when
	// clean, so a client sees their errors cleared.
	m.mu.Lock()
	var live []*entry
	for k, e := range m.entries {
		if k.root == root {
			live = append(live, e)
		}
	}
	m.mu.Unlock()
	for _, e := range live {
		e.mu.Lock()
		c := e.c
		e.mu.Unlock()
		if c == nil {
			continue
		}
		for p, ds := range c.snapshot() {
			if !inside(root, p) {
				continue // the model is told of the project's files only
			}
			if len(ds) > 0 || slices.Contains(files, p) {
				out.Files[p] = append(out.Files[p], ds...)
			}
		}
	}
	return out
}

// inside reports whether the clean path p is root or under it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (m *Manager) server(name string) config.ResolvedLSPServer {
	for _, s := range m.servers {
		if s.Name == name {
			return s
		}
	}
	return config.ResolvedLSPServer{}
}

// diagnoseWith runs one server over files and returns a note, or "".
func (m *Manager) diagnoseWith(ctx context.Context, root string, s config.ResolvedLSPServer, files []string) string {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ""
	}
	k := key{root, s.Name}
	e := m.entries[k]
	if e == nil {
		e = &entry{}
		m.entries[k] = e
	}
	m.mu.Unlock()

	e.mu.Lock()
	defer e.mu.Unlock()
	if e.broken {
		return ""
	}
	if e.c == nil {
		if ctx.Err() != nil {
			return "" // a cancelled call starts nothing
		}
		path, err := m.opts.LookPath(s.Command[0])
		if err != nil {
			e.broken = true
			if s.Builtin {
				// The table lists servers a machine may lack; a missing
				// one is no news.
				m.log.Debug("language server not on PATH", "server", s.Name, "command", s.Command[0])
				return ""
			}
			return fmt.Sprintf("language server %s (%s) is not available: %v; install it, fix \"lsp\".%s.command in the config, or turn it off with \"lsp\": {%q: {\"disabled\": true}}", s.Name, s.Command[0], err, s.Name, s.Name)
		}
		sctx, cancel := context.WithTimeout(ctx, m.opts.StartTimeout)
		c, err := start(sctx, s, path, root)
		cancel()
		if err != nil && ctx.Err() != nil {
			// The call was cancelled, which says nothing of the server:
			// the next change tries again.
			return ""
		}
		if err != nil {
			e.broken = true
			m.log.Warn("language server failed to start", "server", s.Name, "root", root, "err", err)
			return fmt.Sprintf("language server %s failed to start, and is off until toolhost restarts: %v", s.Name, err)
		}
		m.log.Info("language server started", "server", s.Name, "root", root, "pid", c.cmd.Process.Pid)
		m.mu.Lock()
		closed := m.closed
		m.mu.Unlock()
		if closed {
			c.kill()
			return ""
		}
		e.c = c
	}
	c := e.c
	// The wait starts after the start: a cold server's first diagnostics
	// are its slowest.
	ctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	marks := map[string]uint64{}
	var sendErr error
	for _, f := range files {
		text, exists, err := readText(f)
		if err != nil {
			m.log.Debug("file not sent to language server", "server", s.Name, "file", f, "err", err)
			continue
		}
		mark, wait, err := c.touch(ctx, f, text, exists)
		if err != nil {
			// The server is going away: waiting for this file's
			// diagnostics ends with why (or, when the wait ends first,
			// the send's error says it). One that stopped reading is
			// gone already.
			marks[f] = mark
			sendErr = err
			break
		}
		if wait {
			marks[f] = mark
		}
	}
	err := sendErr
	if !errors.Is(err, errStoppedReading) {
		if err = c.wait(ctx, marks, m.opts.Settle); err == nil {
			err = sendErr
		}
	}
	if err != nil {
		e.c = nil
		e.crashes++
		m.log.Warn("language server crashed", "server", s.Name, "root", root, "crashes", e.crashes, "err", err)
		if e.crashes >= MaxCrashes {
			e.broken = true
			return fmt.Sprintf("language server %s crashed (%v) %d times and is off until toolhost restarts; no diagnostics for this change", s.Name, err, e.crashes)
		}
		return fmt.Sprintf("language server %s crashed (%v); no diagnostics for this change, it starts again on the next one", s.Name, err)
	}
	return ""
}

// readText reads a file's text for a server; exists is false when it is
// gone.
func readText(path string) (text []byte, exists bool, err error) {
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !info.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file", path)
	}
	if info.Size() > maxFileBytes {
		return nil, false, fmt.Errorf("%s is over %d bytes", path, maxFileBytes)
	}
	text, err = os.ReadFile(path)
	return text, err == nil, err
}

// Close shuts every server down (asking politely, then killing), within
// ctx; a Manager is unusable after. It returns nil: a server that will not
// stop is killed.
func (m *Manager) Close(ctx context.Context) error {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	m.closed = true
	entries := m.entries
	m.entries = map[key]*entry{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, e := range entries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e.mu.Lock()
			c := e.c
			e.c = nil
			e.mu.Unlock()
			if c == nil {
				return
			}
			sctx, cancel := context.WithTimeout(ctx, shutdownTimeout)
			defer cancel()
			c.shutdown(sctx)
		}()
	}
	wg.Wait()
	return nil
}
