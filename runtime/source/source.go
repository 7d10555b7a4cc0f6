// Package source is the contract every tool source implements: built-in
// tools, wasm modules, TypeScript/JavaScript and Python tool files, plugin
// packages, MCP servers, and whatever an embedder adds. A host (package
// host) is a loop over sources: it loads each one's tools and hooks into a
// runtime.Registry (LoadInto), closes them in reverse order, and — for a
// long-running host — drives every source that declares the Watcher
// capability from one loop (Follow, FollowInto), so each kind changes
// while a host runs the same way.
//
// Adding a language or a source is one package that implements Source
// (and Watcher, if its tools change on disk) and one line where the host
// lists its sources. The interfaces are small on purpose, as io/fs's are:
// Source is what every source can do, Watcher is a declared capability a
// host type-asserts for.
//
// Why github.com/fsnotify/fsnotify: Follow wakes on file-system events
// (inotify, kqueue, ReadDirectoryChangesW) so a dropped-in file takes
// effect in about 100 ms; it also looks once a second, which covers
// network file systems and platforms without events.
//
// It sits just above runtime: it imports runtime and runtime/config, and
// never an engine, builtins, host or a front end.
package source

import (
	"context"
	"log/slog"

	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// A Source is one place tools come from.
type Source interface {
	// Kind is the registry source its tools are added under, which
	// decides their precedence (runtime.Source).
	Kind() runtime.Source
	// Load loads the source's tools and hooks. A file, package or server
	// that fails is reported in Loaded.Errors and skipped; an error ends
	// the host's start (nothing a source can live without should fail so).
	Load(ctx context.Context) (Loaded, error)
	// Close releases what Load opened. Calls in flight finish first.
	Close(ctx context.Context) error
}

// Loaded is what a Source's Load found. Tools are added to the registry
// in order, so of two tools with one id the later wins (a source lists
// its files lowest precedence first).
type Loaded struct {
	Tools  []runtime.Tool
	Hooks  []runtime.Hook
	Errors []runtime.LoadError
}

// Watcher is the capability of a source whose tools change while a host
// runs (files added, edited or removed). Follow drives it.
type Watcher interface {
	// Folders are the folders whose file-system events should wake a
	// look; Follow watches the nearest existing one of each folder, its
	// parent and grandparent, so a folder created later is noticed too.
	// Every look also happens on a timer, so Folders only makes changes
	// quicker to see.
	Folders() []string
	// Look compares what the source holds with what it last reported and
	// hands apply each change, once the change may take effect. What the
	// change retires (a replaced module) is released after apply returns,
	// so calls in flight on it finish on the old version.
	Look(ctx context.Context, apply func(Change))
}

// Change is what a Watcher's look found: tool ids to remove and tools to
// add in one step (runtime.Registry.Replace), and hooks to swap
// (runtime.Registry.SwapHooks).
type Change struct {
	Remove   []string
	Add      []runtime.Tool
	OldHooks []runtime.Hook
	NewHooks []runtime.Hook
}

// Empty reports whether c changes nothing.
func (c Change) Empty() bool {
	return len(c.Remove) == 0 && len(c.Add) == 0 && len(c.OldHooks) == 0 && len(c.NewHooks) == 0
}

// Opener makes a source from what a host knows when it opens its sources:
// how an embedder hands a host a source of its own.
type Opener func(Env) Source

// Env is what a host knows when it opens its sources: the configuration
// it loaded, where to look, and its decision about the project's trust.
// A source takes from it what its own options need.
type Env struct {
	Config *config.Config
	// Dirs are the config directories, lowest precedence first.
	Dirs []string
	// ToolDirs are the config directories whose tool and plugin folders
	// load: Dirs without the project's when it is not trusted.
	ToolDirs []string
	// WatchDirs are the directories a watching host follows: ToolDirs
	// plus a trusted project's config directories not yet created.
	WatchDirs []string
	// Directory is the working directory, Worktree the project root.
	Directory, Worktree string
	// CacheDir is the host's cache directory ($XDG_CACHE_HOME/toolhost).
	CacheDir string
	// Getenv reads environment variables.
	Getenv func(string) string
	Logger *slog.Logger
	// Watch is set for a long-running host, which follows its sources.
	Watch bool
	// Trust admits the project's own files; nil admits everything.
	Trust Trust
}

// Trust is a host's decision about the project's own files, which a
// source applies to what it loads (package internal/confine/trust decides).
type Trust interface {
	// AdmitFiles drops the project's tool files from files unless the
	// project is trusted with its current content.
	AdmitFiles(files []string) []string
	// AdmitChange reports whether a change found while the host runs may
	// load: false once the project's content is no longer what a person
	// trusted (a module a command dropped into .toolhost/tool/). content
	// names what the change would load, when the source has read it
	// already: absolute path → hex SHA-256 of the bytes it read. Each of
	// the project's files there must be what the person trusted, not only
	// what is on disk now (a file swapped back and forth between the
	// read and the check).
	AdmitChange(content map[string]string) bool
	// Decisions changes whenever a person's trust decisions may have
	// changed. A source that held a change back asks AdmitChange again
	// once it differs from what it was when the change was held, so the
	// change loads when a person trusts it, with no further edit.
	Decisions() string
}

// AdmitFiles is t.AdmitFiles, or files when t is nil.
func AdmitFiles(t Trust, files []string) []string {
	if t == nil {
		return files
	}
	return t.AdmitFiles(files)
}

// AdmitChange is t.AdmitChange(nil), or true when t is nil.
func AdmitChange(t Trust) bool { return t == nil || t.AdmitChange(nil) }

// Held is a change a source held back until a person trusts it
// (Trust.AdmitChange): the zero Held holds nothing.
type Held struct {
	on        bool
	decisions string
}

// Admit is t.AdmitChange(content) for a change found now; when it
// refuses, h remembers t's decisions then, for Retry.
func (h *Held) Admit(t Trust, content map[string]string) bool {
	if t == nil {
		return true
	}
	d := t.Decisions()
	if t.AdmitChange(content) {
		h.on = false
		return true
	}
	h.on, h.decisions = true, d
	return false
}

// Retry reports whether a change held back earlier should be looked at
// again: a person's decisions changed since it was held. It is cheap (one
// stat) until they do.
func (h *Held) Retry(t Trust) bool {
	if !h.on || t == nil || t.Decisions() == h.decisions {
		return false
	}
	h.on = false
	return true
}

// Tools is a source of a fixed set of tools: the built-ins, or tools an
// embedder hands a host.
func Tools(kind runtime.Source, tools ...runtime.Tool) Source { return fixed{kind, tools} }

type fixed struct {
	kind  runtime.Source
	tools []runtime.Tool
}

func (f fixed) Kind() runtime.Source                 { return f.kind }
func (f fixed) Load(context.Context) (Loaded, error) { return Loaded{Tools: f.tools}, nil }
func (f fixed) Close(context.Context) error          { return nil }
