package runtime

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/confine/fspath"
)

// callPaths remembers, for one call, what its paths resolve to and what
// the external_directory rules said about them. A read resolves the
// project root and its file in the external_directory check and again to
// open it; a walker meets the same linked directory many times. Resolving
// once per call keeps those consistent and cheap; the cache dies with the
// call, so a link changed between calls is seen by the next one, and the
// opening tools (os.Root, openat) still refuse a link swapped in during
// the call.
type callPaths struct {
	mu        sync.Mutex
	real      map[string]string
	allowed   map[externalKey]bool // CheckExternalDirectory let it through
	decisions map[externalKey]ExternalDecision
}

// externalKey is what an external_directory decision depends on: the path
// and the Context fields a holder could change between two questions (a
// test does), the rules counted rather than compared.
type externalKey struct {
	target         string
	isDir          bool
	agent, session string
	bypass         bool
	rules          int
}

func (c *Context) externalKey(target string, isDir bool) externalKey {
	return externalKey{target: target, isDir: isDir, agent: c.Agent, session: c.SessionID, bypass: c.bypassExternal(), rules: len(c.Rules)}
}

func newCallPaths() *callPaths {
	return &callPaths{real: map[string]string{}, allowed: map[externalKey]bool{}, decisions: map[externalKey]ExternalDecision{}}
}

// RealPath is p with every symlink resolved (of its longest existing
// prefix, for a path that does not exist yet), remembered for the rest of
// the call: the file tools, the external_directory check and Contains
// resolve a path once per call. Outside a call (a Context built by hand)
// it resolves every time.
func (c *Context) RealPath(p string) string {
	pc := c.paths
	if pc == nil {
		return c.resolve(p)
	}
	pc.mu.Lock()
	r, ok := pc.real[p]
	pc.mu.Unlock()
	if ok {
		return r
	}
	r = c.resolve(p)
	pc.mu.Lock()
	pc.real[p] = r
	pc.mu.Unlock()
	return r
}

// resolve is realPath(p), taking the project's roots from the registry's
// memory (projectRoots) and walking only the part of p below them.
func (c *Context) resolve(p string) string {
	if c.roots == nil || !filepath.IsAbs(p) {
		return realPath(p)
	}
	p = filepath.Clean(p)
	for _, root := range [...]string{c.Worktree, c.Directory} {
		if root == "" || !filepath.IsAbs(root) {
			continue
		}
		root = filepath.Clean(root)
		if p == root {
			return c.roots.real(root)
		}
		if rel, ok := strings.CutPrefix(p, root); ok && len(root) > 1 && rel[0] == filepath.Separator {
			if r, ok := fspath.RealBelow(c.RealPath(root), rel[1:]); ok {
				return r
			}
			break
		}
	}
	return realPath(p)
}

// projectRoots remembers, across calls, the real paths of the project's
// roots (a registry's Worktree and Directory). Every file tool call
// resolves the root — one lstat per component of its path, a tenth of a
// read call over MCP — though it seldom changes. A remembered root is
// used only while the root's path and the remembered real path both still
// lead to the directory it was resolved from (a stat each, one when they
// are the same string); otherwise it is resolved again. Should a parent
// of the root be moved and replaced by a link to the same directory, the
// remembered path still leads into the project, so what it contains is
// still the project: a stale answer can make a path inside look outside
// (and be asked about), never the reverse.
type projectRoots struct {
	mu sync.Mutex
	m  map[string]rootEntry
}

type rootEntry struct {
	real string
	dir  os.FileInfo
}

// real returns the real path of root (absolute and clean).
func (pr *projectRoots) real(root string) string {
	info, err := os.Stat(root)
	if err != nil || !info.IsDir() {
		return realPath(root)
	}
	pr.mu.Lock()
	e, ok := pr.m[root]
	pr.mu.Unlock()
	if ok && os.SameFile(e.dir, info) {
		if e.real == root {
			return e.real
		}
		if ri, err := os.Stat(e.real); err == nil && os.SameFile(ri, info) {
			return e.real
		}
	}
	real := realPath(root)
	if ri, err := os.Stat(real); err == nil && os.SameFile(ri, info) {
		pr.mu.Lock()
		if pr.m == nil {
			pr.m = map[string]rootEntry{}
		}
		pr.m[root] = rootEntry{real: real, dir: info}
		pr.mu.Unlock()
	}
	return real
}

// rememberAllowed records that CheckExternalDirectory let target through.
// Only allowed outcomes are kept: a refusal is an error the tool returns,
// and a question answered "once" must not be asked again within the call.
func (c *Context) rememberAllowed(k externalKey) {
	if pc := c.paths; pc != nil {
		pc.mu.Lock()
		pc.allowed[k] = true
		pc.mu.Unlock()
	}
}

func (c *Context) wasAllowed(k externalKey) bool {
	pc := c.paths
	if pc == nil {
		return false
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return pc.allowed[k]
}

// decideOnce is DecideExternal's memory: one evaluation per path per call.
func (c *Context) decideOnce(ctx context.Context, k externalKey, decide func(context.Context) ExternalDecision) ExternalDecision {
	pc := c.paths
	if pc == nil {
		return decide(ctx)
	}
	pc.mu.Lock()
	d, ok := pc.decisions[k]
	pc.mu.Unlock()
	if ok {
		return d
	}
	d = decide(ctx)
	pc.mu.Lock()
	pc.decisions[k] = d
	pc.mu.Unlock()
	return d
}
