package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/trust"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// projectTrust is what New decided about the project's own config and
// tool files (internal/trust): trusted, or held back until a person runs
// `toolhost trust`.
type projectTrust struct {
	status trust.Status
	dirs   config.DirOptions
	store  trust.Store
	held   []string    // the project's .toolhost directories, when untrusted
	gate   *trust.Gate // a watching host's check that changed content is trusted too

	mu    sync.Mutex
	stamp string // the project tool files the gate last judged, and its answer
	ok    bool
}

// checkTrust scans the project and looks it up in the trust store in the
// data directory.
func checkTrust(opts Options, worktree string) *projectTrust {
	d := config.DirOptions{Directory: opts.Directory, Worktree: worktree, Env: opts.Env}
	store := trust.StoreIn(opts.DataDir)
	st := trust.Check(d, store)
	pt := &projectTrust{status: st, dirs: d, store: store, gate: trust.NewGate(d, store)}
	if !st.Trusted {
		pt.held = config.ProjectDirs(d)
		opts.Logger.Info(st.Notice())
	}
	return pt
}

// load loads the config, holding the project back unless it is trusted
// and the bytes read are the bytes judged: a config file swapped between
// the scan and the load (by a process a command left running) makes the
// project untrusted for this host.
func (pt *projectTrust) load(opts Options, worktree string) (*config.Loaded, error) {
	lo := config.LoadOptions{Directory: opts.Directory, Worktree: worktree, Env: opts.Env, UntrustedProject: !pt.status.Trusted}
	loaded, err := config.Load(lo)
	if err != nil || !pt.status.Trusted || pt.status.Manifest == nil || pt.status.ByEnv || pt.status.Manifest.SameContent(loaded.ProjectSums) {
		return loaded, err
	}
	pt.status = trust.Status{Manifest: pt.status.Manifest, Err: errors.New("its config changed while it was being loaded")}
	pt.held = config.ProjectDirs(pt.dirs)
	opts.Logger.Info(pt.status.Notice())
	lo.UntrustedProject = true
	return config.Load(lo)
}

// TrustStatus is the project's trust as New found it: Trusted false means
// the project's config files kept only their deny rules, the MCP and
// language servers they name were not started and the project's tool
// files are listed but not loaded. Notice is the line to show a person.
func (h *Host) TrustStatus() trust.Status {
	if h.trust == nil {
		return trust.Status{Trusted: true}
	}
	return h.trust.status
}

// TrustReviewer reviews and trusts the host's project now, for a front
// end that lets a person trust it (the inbox page).
func (h *Host) TrustReviewer() trust.Reviewer {
	if h.trust == nil {
		return trust.Reviewer{}
	}
	return trust.Reviewer{Dirs: h.trust.dirs, Store: h.trust.store}
}

// toolDirs are the config directories whose tool and plugin folders load:
// all of them for a trusted project, the user's own otherwise.
func (h *Host) toolDirs() []string {
	if h.trust == nil || len(h.trust.held) == 0 {
		return h.Dirs
	}
	return slices.DeleteFunc(slices.Clone(h.Dirs), func(d string) bool { return slices.Contains(h.trust.held, d) })
}

// watchedDirs are the directories a watching host follows: with the
// project untrusted, the user's own only, so that a tool folder the
// project creates later is not loaded either.
func (h *Host) watchedDirs(directory string) []string {
	if h.trust != nil && !h.trust.status.Trusted {
		return h.toolDirs()
	}
	return watchDirs(h.Dirs, h.Worktree, directory)
}

// inProject reports whether path is inside the worktree and not inside
// one of the user's own config directories (OpenCode's global one too).
func (h *Host) inProject(path string) bool {
	if !within(h.Worktree, path) {
		return false
	}
	user := config.UserDirs(h.trust.dirs)
	if h.js != nil && h.js.where.ConfigHome != "" {
		// OpenCode's global tool folder is the user's, even in a
		// worktree that is the home directory.
		user = append(user, filepath.Join(h.js.where.ConfigHome, "opencode"))
	}
	for _, d := range user {
		if within(d, path) {
			return false
		}
	}
	return true
}

func within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// admitFiles drops the project's script tool files (JS, Python) from a
// load unless the project was trusted at start and its content now is
// trusted too: a tool folder that changed while a watching host runs (a
// file a bash command wrote) loads only once a person has trusted the new
// content.
func (h *Host) admitFiles(files []string) []string {
	if h.trust == nil {
		return files
	}
	var project []string
	for _, f := range files {
		if h.inProject(f) {
			project = append(project, f+"\x00"+stampOf(f))
		}
	}
	if len(project) == 0 {
		return files
	}
	stamp := strings.Join(project, "\n")
	pt := h.trust
	pt.mu.Lock()
	if stamp != pt.stamp {
		pt.stamp, pt.ok = stamp, pt.status.Trusted && pt.gate.StillTrusted()
	}
	ok := pt.ok
	pt.mu.Unlock()
	if ok {
		return files
	}
	return slices.DeleteFunc(slices.Clone(files), h.inProject)
}

// stubID is what a stub's id may be: a name a model reads as a tool id,
// never text that could pass for instructions.
var stubID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// addUntrustedStubs lists the untrusted project's tool files as tools that
// are not started: a call answers with the command that trusts the
// project. A stub never takes the id of a tool already present.
func (h *Host) addUntrustedStubs() {
	if h.trust == nil || h.trust.status.Trusted || h.trust.status.Manifest == nil {
		return
	}
	for _, e := range h.trust.status.Manifest.Entries {
		parts := strings.Split(e.Rel, "/")
		if len(parts) < 3 || (parts[len(parts)-2] != "tool" && parts[len(parts)-2] != "tools") {
			continue
		}
		name := parts[len(parts)-1]
		ext := filepath.Ext(name)
		src := map[string]runtime.Source{".wasm": runtime.SourceWasm, ".ts": runtime.SourceJS, ".js": runtime.SourceJS, ".py": runtime.SourcePython}[ext]
		id := strings.TrimSuffix(name, ext)
		if src == "" || strings.HasSuffix(name, ".d.ts") || (ext == ".py" && strings.HasPrefix(name, "_")) || !stubID().MatchString(id) || h.Registry.Has(id) {
			continue
		}
		file, worktree := e.Rel, h.Worktree
		h.Registry.Add(src, runtime.Define(id, fmt.Sprintf("Tool from this project's %s, not started: the project is not trusted.", file),
			func(context.Context, map[string]any, *runtime.Context) (runtime.Result, error) {
				return runtime.Result{}, fmt.Errorf("tool %s comes from project %s, whose config and tools are not trusted, so it was not started; a person must review and trust the project with `%s` in %s first", file, worktree, trust.Command, worktree)
			}))
	}
}

// admitChanged passes tools a watching host found in changed folders,
// unless the project was trusted at start and its content now is not:
// then nothing new loads (nil) until a person trusts the new content.
func (h *Host) admitChanged(log *slog.Logger, added []runtime.Tool) []runtime.Tool {
	if h.trust == nil || !h.trust.status.Trusted || h.trust.gate.StillTrusted() {
		return added
	}
	log.Warn("the project's config or tools changed since they were trusted; the change is not loaded", "project", h.Worktree, "fix", "review and trust it with `"+trust.Command+"`")
	return nil
}
