package trust

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/source"
)

// Project is what a host decided about its project's own config and tool
// files: trusted, or held back until a person runs `toolhost trust`. It
// is the source.Trust every tool source applies.
type Project struct {
	Status Status
	dirs   config.DirOptions
	store  Store
	held   []string // the project's .toolhost directories, when untrusted
	gate   *Gate    // a watching host's check that changed content is trusted too
	log    *slog.Logger

	mu    sync.Mutex
	stamp string // the project tool files and trust store the gate last judged, and its answer
	ok    bool
}

// hookAfterLoad runs between OpenProject's load and its decision of
// what to hold back, for tests that change the project there.
var hookAfterLoad func()

// OpenProject opens the project of d: it resolves its paths
// (config.DirOptions.Resolve), decides whether the project is trusted by
// the trust store in dataDir and loads the config as that allows (Load).
func OpenProject(d config.DirOptions, dataDir string, log *slog.Logger) (*Project, *config.Loaded, error) {
	d, err := d.Resolve()
	if err != nil {
		return nil, nil, err
	}
	store := StoreIn(dataDir)
	loaded, st, err := Load(d, store)
	if hookAfterLoad != nil {
		hookAfterLoad()
	}
	p := &Project{Status: st, dirs: d, store: store, gate: NewGate(d, store), log: log}
	if !st.Trusted {
		p.held = heldDirs(d)
		log.Info(st.Notice())
	}
	if err != nil {
		return nil, nil, err
	}
	return p, loaded, nil
}

// heldDirs are the .toolhost directories an untrusted project holds
// back: every one from the worktree down to the working directory, by
// name, whether it exists now or not, except those that are the user's
// own (config.UserDirs). Not config.ProjectDirs, which lists those that
// exist when it looks: a folder moved away after the load listed it and
// back before the sources read it would not be held back.
func heldDirs(d config.DirOptions) []string {
	user := config.UserDirs(d)
	var held []string
	for _, dir := range config.Chain(d.Worktree, d.Directory) {
		if p := filepath.Join(dir, config.ProjectDirName); !slices.Contains(user, p) {
			held = append(held, p)
		}
	}
	return held
}

// Dirs are the project's paths, resolved: the absolute working directory,
// the worktree found from it, the environment.
func (p *Project) Dirs() config.DirOptions { return p.dirs }

// Reviewer reviews and trusts the project now.
func (p *Project) Reviewer() Reviewer { return Reviewer{Dirs: p.dirs, Store: p.store} }

// ToolDirs are the config directories of dirs whose tool and plugin
// folders load: all of them for a trusted project, the user's own
// otherwise.
func (p *Project) ToolDirs(dirs []string) []string {
	return slices.DeleteFunc(slices.Clone(dirs), func(d string) bool { return slices.Contains(p.held, d) })
}

// WatchDirs are the directories a watching host follows: with the project
// untrusted, the user's own only, so that a tool folder the project
// creates later is not loaded either.
func (p *Project) WatchDirs(dirs []string) []string {
	if !p.Status.Trusted {
		return p.ToolDirs(dirs)
	}
	return config.WatchDirs(dirs, p.dirs.Worktree, p.dirs.Directory)
}

// inProject reports whether path is inside the worktree and not inside
// one of the user's own config directories (OpenCode's global one too,
// even in a worktree that is the home directory).
func (p *Project) inProject(path string) bool {
	if !within(p.dirs.Worktree, path) {
		return false
	}
	user := config.UserDirs(p.dirs)
	if home := configHome(p.dirs.Env); home != "" {
		user = append(user, filepath.Join(home, "opencode"))
	}
	for _, d := range user {
		if within(d, path) {
			return false
		}
	}
	return true
}

func configHome(env func(string) string) string {
	if env != nil {
		if h := env(config.EnvXDGConfigHome); h != "" {
			return h
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".config")
	}
	return ""
}

func within(root, path string) bool {
	r, err := filepath.Rel(root, path)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// AdmitFiles drops the project's script tool files (JS, Python) from a
// load unless the project was trusted at start and its content now is
// trusted too: a tool folder that changed while a watching host runs (a
// file a bash command wrote) loads only once a person has trusted the new
// content.
func (p *Project) AdmitFiles(files []string) []string {
	var project []string
	for _, f := range files {
		if p.inProject(f) {
			project = append(project, f+"\x00"+stampOf(f))
		}
	}
	if len(project) == 0 {
		return files
	}
	// The store's stamp is part of the key: a person trusting the files
	// as they are lets them load at the next look, with no other change.
	stamp := strings.Join(append(project, p.Decisions()), "\n")
	p.mu.Lock()
	if stamp != p.stamp {
		p.stamp, p.ok = stamp, p.Status.Trusted && p.gate.StillTrusted()
	}
	ok := p.ok
	p.mu.Unlock()
	if ok {
		return files
	}
	return slices.DeleteFunc(slices.Clone(files), p.inProject)
}

// stampOf is what tells that path's file changed: its size and
// modification time, and where the system has them its device, inode and
// change time, which a command cannot set back (os.Chtimes sets the
// modification time to anything): a file swapped for other bytes of the
// same size and time is a change.
func stampOf(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s/%d/%s", st.ModTime(), st.Size(), inodeStamp(st))
}

// AdmitChange passes a change a watching host found in its folders,
// unless the project was trusted at start and its content now is not:
// then nothing new loads until a person trusts the new content. The
// project's files in content (what the source read: path → hex SHA-256)
// must be the very bytes trusted, so a file swapped after the source read
// it, or swapped back before this scan, is refused.
func (p *Project) AdmitChange(content map[string]string) bool {
	if !p.Status.Trusted || p.gate.TrustedWith(content, p.inProject) {
		return true
	}
	p.log.Warn("the project's config or tools changed since they were trusted; the change is not loaded", "project", p.dirs.Worktree, "fix", "review and trust it with `"+Command+"`")
	return false
}

// Decisions is the trust store's stamp (size and modification time): it
// changes whenever a person trusts or forgets a project, so a source that
// held a change back (AdmitChange) asks again only once it has changed.
func (p *Project) Decisions() string { return stampOf(p.store.Path) }

// stubID is what a stub's id may be: a name a model reads as a tool id,
// never text that could pass for instructions.
var stubID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

// AddStubs lists an untrusted project's tool files in reg as tools that
// are not started: a call answers with the command that trusts the
// project. A stub never takes the id of a tool already present.
func (p *Project) AddStubs(reg *runtime.Registry) {
	if p.Status.Trusted || p.Status.Manifest == nil {
		return
	}
	for _, e := range p.Status.Manifest.Entries {
		parts := strings.Split(e.Rel, "/")
		if len(parts) < 3 || (parts[len(parts)-2] != "tool" && parts[len(parts)-2] != "tools") {
			continue
		}
		name := parts[len(parts)-1]
		ext := filepath.Ext(name)
		src := map[string]runtime.Source{".wasm": runtime.SourceWasm, ".ts": runtime.SourceJS, ".js": runtime.SourceJS, ".py": runtime.SourcePython}[ext]
		id := strings.TrimSuffix(name, ext)
		if src == "" || strings.HasSuffix(name, ".d.ts") || (ext == ".py" && strings.HasPrefix(name, "_")) || !stubID().MatchString(id) || reg.Has(id) {
			continue
		}
		file, worktree := e.Rel, p.dirs.Worktree
		reg.Add(src, runtime.Define(id, fmt.Sprintf("Tool from this project's %s, not started: the project is not trusted.", file),
			func(context.Context, map[string]any, *runtime.Context) (runtime.Result, error) {
				return runtime.Result{}, fmt.Errorf("tool %s comes from project %s, whose config and tools are not trusted, so it was not started; a person must review and trust the project with `%s` in %s first", file, worktree, Command, worktree)
			}))
	}
}

var _ source.Trust = (*Project)(nil)
