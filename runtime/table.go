package runtime

import (
	"slices"
	"sort"
)

// The registry keeps every tool of every source under (source, id), so that
// sources come and go independently: a wasm module that shadows the
// built-in read and is then removed gives read back, instead of taking it
// with it. An id resolves to the tool of the highest-precedence source
// holding it:
//
//	runtime (Register) > mcp > plugin > python > js > wasm > builtin
//
// Front ends see only resolved tools; Sources shows what a resolution hid.

// precedence lists the sources from lowest to highest.
var precedence = []Source{SourceBuiltin, SourceWasm, SourceJS, SourcePython, SourcePlugin, SourceMCP, SourceRuntime}

// rank is src's place in precedence; -1 for a source the registry does not
// know, which it refuses.
func rank(src Source) int { return slices.Index(precedence, src) }

// entry is one tool of one source.
type entry struct {
	tool   Tool
	source Source
	traits Traits
	gen    uint64 // the registry generation that added it
}

// toolTable maps an id to its tools, one per source. It is not safe for
// concurrent use; the Registry guards it.
type toolTable map[string]map[Source]entry

// put adds or replaces src's tool e.tool.ID() and reports the entry that
// resolved the id before, if any.
func (t toolTable) put(e entry) (before entry, had bool) {
	id := e.tool.ID()
	before, had = t.resolve(id)
	if t[id] == nil {
		t[id] = map[Source]entry{}
	}
	t[id][e.source] = e
	return before, had
}

// drop removes src's tool id and reports whether there was one.
func (t toolTable) drop(src Source, id string) bool {
	bySrc, ok := t[id]
	if !ok {
		return false
	}
	if _, ok := bySrc[src]; !ok {
		return false
	}
	delete(bySrc, src)
	if len(bySrc) == 0 {
		delete(t, id)
	}
	return true
}

// resolve is the tool id names: the one of the highest-precedence source.
func (t toolTable) resolve(id string) (entry, bool) {
	bySrc := t[id]
	for i := len(precedence) - 1; i >= 0; i-- {
		if e, ok := bySrc[precedence[i]]; ok {
			return e, true
		}
	}
	return entry{}, false
}

// sources lists the sources holding id, highest precedence first.
func (t toolTable) sources(id string) []Source {
	var out []Source
	for i := len(precedence) - 1; i >= 0; i-- {
		if _, ok := t[id][precedence[i]]; ok {
			out = append(out, precedence[i])
		}
	}
	return out
}

// ids lists every id, sorted.
func (t toolTable) ids() []string {
	ids := make([]string, 0, len(t))
	for id := range t {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Add adds tools from a source; a tool replaces the same source's tool of
// the same id. Which source's tool an id names is decided by precedence
// (see Source), not by the order of Add calls; shadowing a lower source's
// tool is logged. A source the registry does not know is refused with a
// logged error.
func (r *Registry) Add(src Source, tools ...Tool) {
	if rank(src) < 0 {
		r.log.Error("tools from an unknown source left out; use one of the runtime.Source constants", "source", src, "tools", len(tools))
		return
	}
	if len(tools) == 0 {
		return
	}
	r.mu.Lock()
	for _, t := range tools {
		r.gen++
		before, had := r.tools.put(entry{tool: t, source: src, traits: TraitsOf(t), gen: r.gen})
		if had && before.source != src && rank(src) > rank(before.source) {
			r.log.Warn("tool id collision: higher-precedence source shadows it", "tool", t.ID(), "hidden", before.source, "now", src)
		}
	}
	clear(r.defs)
	r.mu.Unlock()
	r.changed()
}

// Register adds or replaces a tool at run time, above every other source.
func (r *Registry) Register(t Tool) { r.Add(SourceRuntime, t) }

// Remove deletes src's tools with the given ids. An id another source also
// holds resolves to that source's tool again. A source the registry does
// not know (a tool id passed as the source by mistake) is logged as an
// error and removes nothing.
func (r *Registry) Remove(src Source, ids ...string) {
	if rank(src) < 0 {
		r.log.Error("remove from an unknown source ignored; use one of the runtime.Source constants", "source", src, "ids", ids)
		return
	}
	r.mu.Lock()
	removed := false
	for _, id := range ids {
		removed = r.tools.drop(src, id) || removed
	}
	if removed {
		r.gen++
		clear(r.defs)
	}
	r.mu.Unlock()
	if removed {
		r.changed()
	}
}

// Replace removes src's tools with the ids in remove and adds tools under
// src, in one step: a call resolves an id either to the old tool or to the
// new one, never to nothing in between. A long-running host replaces the
// tools of a changed module or plugin this way.
func (r *Registry) Replace(src Source, remove []string, tools ...Tool) {
	if rank(src) < 0 {
		r.log.Error("replace in an unknown source ignored; use one of the runtime.Source constants", "source", src, "ids", remove)
		return
	}
	r.mu.Lock()
	changed := false
	for _, id := range remove {
		changed = r.tools.drop(src, id) || changed
	}
	for _, t := range tools {
		r.gen++
		r.tools.put(entry{tool: t, source: src, traits: TraitsOf(t), gen: r.gen})
		changed = true
	}
	if changed {
		r.gen++
		clear(r.defs)
	}
	r.mu.Unlock()
	if changed {
		r.changed()
	}
}

// IDs lists every tool id, sorted.
func (r *Registry) IDs() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tools.ids()
}

// Has reports whether a tool id exists.
func (r *Registry) Has(id string) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	_, ok := r.tools.resolve(id)
	return ok
}

// Source returns the source of the tool id names.
func (r *Registry) Source(id string) (Source, bool) {
	e, ok := r.lookup(id)
	return e.source, ok
}

// Sources lists every source holding a tool id, the one it resolves to
// first: ["wasm", "builtin"] for a module read.wasm beside the built-in.
func (r *Registry) Sources(id string) []Source {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tools.sources(id)
}

// Traits returns what the tool id names declares (zero when none, or for
// an unknown id).
func (r *Registry) Traits(id string) Traits {
	e, _ := r.lookup(id)
	return e.traits
}

// Permission is the permission that governs the tool id names (its
// declared Traits.Permission, else its id); for an unknown id, the id.
func (r *Registry) Permission(id string) string {
	return permissionOf(id, r.Traits(id))
}

// Generation counts the registry's changes: tools added or removed, hooks
// added. A front end that lists tools compares it to know when to list
// again.
func (r *Registry) Generation() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gen
}

// lookup resolves id under the read lock.
func (r *Registry) lookup(id string) (entry, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.tools.resolve(id)
}

// fallback is the tool that receives calls the registry cannot understand
// (Traits.Fallback; the lowest id when several declare it).
func (r *Registry) fallback() (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, id := range r.tools.ids() {
		if e, _ := r.tools.resolve(id); e.traits.Fallback {
			return id, true
		}
	}
	return "", false
}
