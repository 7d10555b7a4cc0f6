package runtime

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
	"github.com/toolhost/toolhost/runtime/session"
)

// Options configure a Registry. Zero values are usable: no store means
// session state lives only in memory, no asker means every "ask" outcome is
// refused with a message saying how to allow it.
type Options struct {
	Config     *config.Config
	Store      session.Store
	Asker      permission.Asker
	Questioner Questioner
	// Diagnoser runs language servers for the edit tools' diagnostics;
	// nil: none.
	Diagnoser Diagnoser
	Logger    *slog.Logger
	// Agents overrides the agents resolved from Config.
	Agents map[string]*Agent
	// DataDir holds saved full outputs (tool-output/). Default
	// $XDG_DATA_HOME/toolhost, else ~/.local/share/toolhost.
	DataDir string
	// CacheDir is toolhost's cache (compiled modules, inspections), kept
	// out of the bash sandbox's reach like DataDir. Empty: none.
	CacheDir string
	// Directory is the working directory; Worktree the project root.
	Directory string
	Worktree  string
}

// Registry holds every tool from every source (table.go), initialises
// them per agent and model (prepare.go), and runs calls through the chain
// of steps (chain.go): the gate, hooks, validation, execution with panic
// recovery, truncation, logging. It is safe for concurrent use.
type Registry struct {
	opts   Options
	log    *slog.Logger
	perms  *permission.Service
	trunc  *Truncation
	agents map[string]*Agent

	mu    sync.RWMutex
	tools toolTable
	hooks []Hook
	defs  map[defKey]*prepared
	gen   uint64 // counts changes of tools and hooks; see Generation

	delegates delegatingIDs // the delegating tools of generation gen (call.go)

	roots projectRoots // real paths of Worktree and Directory (pathcache.go)

	changes  subscribers[func()]      // told of every change of tools or hooks (changes.go)
	watchers subscribers[CallWatcher] // told of every call (watch.go)
	tracer   tracerSlot               // a span around every call (trace.go)
}

// NewRegistry returns an empty registry; add tools with Add and Register.
func NewRegistry(opts Options) (*Registry, error) {
	if opts.Config == nil {
		opts.Config = &config.Config{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Directory == "" {
		opts.Directory, _ = os.Getwd()
	}
	if opts.Worktree == "" {
		opts.Worktree = opts.Directory
	}
	if opts.DataDir == "" {
		opts.DataDir = DefaultDataDir()
	}
	if opts.Store == nil {
		opts.Store = session.NewMemory()
	}
	agents := opts.Agents
	if agents == nil {
		var err error
		if agents, err = ResolveAgents(opts.Config); err != nil {
			return nil, err
		}
	}
	allowSavedOutputs(agents, filepath.Join(opts.DataDir, "tool-output"))
	r := &Registry{
		opts:   opts,
		log:    opts.Logger,
		trunc:  &Truncation{MaxLines: opts.Config.ToolOutput.Lines(), MaxBytes: opts.Config.ToolOutput.Bytes(), Dir: filepath.Join(opts.DataDir, "tool-output")},
		agents: agents,
		tools:  toolTable{},
		defs:   map[defKey]*prepared{},
	}
	r.perms = permission.NewService(opts.Store, r.announce(opts.Asker), opts.Logger)
	return r, nil
}

// allowSavedOutputs lets every agent read the full outputs the wrapper
// saves, without an external_directory question: the truncation hint sends
// the model there. The rule goes after the defaults and the built-in
// agent's own rules, before the user's, so a user's rule still decides.
func allowSavedOutputs(agents map[string]*Agent, dir string) {
	rule := permission.Rule{Permission: PermissionExternalDirectory, Pattern: filepath.Join(dir, "*"), Action: permission.Allow, Source: "saved tool output"}
	for _, a := range agents {
		i := 0
		for i < len(a.Rules) && (a.Rules[i].Source == RuleSourceDefault || strings.HasPrefix(a.Rules[i].Source, ruleSourceAgent)) {
			i++
		}
		a.Rules = slices.Insert(slices.Clone(a.Rules), i, rule)
	}
}

// DefaultDataDir is $XDG_DATA_HOME/toolhost, else ~/.local/share/toolhost.
func DefaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "toolhost")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "toolhost")
}

// DefaultCacheDir is $XDG_CACHE_HOME/toolhost, else ~/.cache/toolhost,
// reading the environment through env.
func DefaultCacheDir(env func(string) string) string {
	if d := env("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "toolhost")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "toolhost")
}

// Permissions returns the permission service (approvals, pending requests).
func (r *Registry) Permissions() *permission.Service { return r.perms }

// Config returns the registry's configuration.
func (r *Registry) Config() *config.Config { return r.opts.Config }

// Agent returns the named agent, or the default agent for "".
func (r *Registry) Agent(name string) (*Agent, error) {
	if name == "" {
		name = r.opts.Config.DefaultAgent
		if name == "" {
			name = config.DefaultAgent
		}
	}
	a, ok := r.agents[name]
	if !ok {
		names := make([]string, 0, len(r.agents))
		for n := range r.agents {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown agent %q; agents: %s", name, strings.Join(names, ", "))
	}
	return a, nil
}

// Agents returns every agent by name.
func (r *Registry) Agents() map[string]*Agent { return r.agents }

// AgentRules returns the named agent's complete rule set (see Agent.Rules);
// part of Rulebook.
func (r *Registry) AgentRules(name string) (permission.Ruleset, error) {
	a, err := r.Agent(name)
	if err != nil {
		return nil, err
	}
	return a.Rules, nil
}

// Approved returns a session's "always" approvals; part of Rulebook.
func (r *Registry) Approved(ctx context.Context, session string) (permission.Ruleset, error) {
	return r.perms.Approved(ctx, session)
}

// AddHook appends a hook; hooks run in the order added.
func (r *Registry) AddHook(h Hook) {
	r.mu.Lock()
	r.hooks = append(r.hooks, h)
	r.gen++
	clear(r.defs) // definition hooks may change what is cached
	r.mu.Unlock()
	r.changed()
}

// SwapHooks removes the hooks in old and appends those in add, in one
// step: a call sees either the old hooks or the new ones, never neither.
// Hooks are removed by identity, so only hooks of a comparable type (a
// pointer, like a plugin's) can be removed; others are left in place.
// Long-running hosts use it to replace a plugin whose folder changed.
func (r *Registry) SwapHooks(old, add []Hook) {
	r.mu.Lock()
	r.hooks = slices.DeleteFunc(r.hooks, func(h Hook) bool {
		return slices.ContainsFunc(old, func(o Hook) bool { return sameHook(h, o) })
	})
	r.hooks = append(r.hooks, add...)
	r.gen++
	clear(r.defs)
	r.mu.Unlock()
	r.changed()
}

// sameHook reports whether a and b are the same hook; values of types that
// cannot be compared (a HookFuncs holds functions) are never the same.
func sameHook(a, b Hook) bool {
	ta, tb := reflect.TypeOf(a), reflect.TypeOf(b)
	return ta == tb && ta != nil && ta.Comparable() && a == b
}

// hookList is the hooks at the start of a call.
func (r *Registry) hookList() []Hook {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.hooks)
}

// StateDirs returns toolhost's own directories: the data directory and,
// when set, the cache directory.
func (r *Registry) StateDirs() []string {
	dirs := []string{r.opts.DataDir}
	if r.opts.CacheDir != "" {
		dirs = append(dirs, r.opts.CacheDir)
	}
	return dirs
}

// OutputDir is where the wrapper saves the full outputs it truncates.
func (r *Registry) OutputDir() string { return r.trunc.Dir }

// NewID returns a time-sortable id with a prefix: "ses_0189ab…".
func NewID(prefix string) string {
	return fmt.Sprintf("%s_%x%s", prefix, time.Now().UnixNano(), randHex(4))
}
