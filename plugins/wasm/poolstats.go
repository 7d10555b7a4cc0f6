package wasm

import "sort"

// PoolSize is how many instances of one wasm module exist: idle in its
// pool, and in use by calls (hooks included) now. A module compiled with
// several sets of limits counts all of them.
type PoolSize struct {
	Module string
	Idle   int
	InUse  int
}

// Pools returns the instance pools of every loaded module (tool modules
// and plugins' modules), by module name; modules not compiled yet are
// left out. It takes each pool's lock briefly, so it suits a metrics
// scrape, not a hot path.
func (h *Engine) Pools() []PoolSize {
	h.mu.Lock()
	mods := make([]*module, 0, len(h.modules)+len(h.pluginMods))
	for _, m := range h.modules {
		mods = append(mods, m)
	}
	mods = append(mods, h.pluginMods...)
	h.mu.Unlock()
	by := map[string]*PoolSize{}
	for _, m := range mods {
		m.mu.Lock()
		groups := make([]*groupOnce, 0, len(m.groups))
		for _, g := range m.groups {
			groups = append(groups, g)
		}
		m.mu.Unlock()
		for _, g := range groups {
			c := g.compiled()
			if c == nil {
				continue
			}
			idle, active := c.sizes()
			p := by[m.name]
			if p == nil {
				p = &PoolSize{Module: m.name}
				by[m.name] = p
			}
			p.Idle += idle
			p.InUse += active
		}
	}
	out := make([]PoolSize, 0, len(by))
	for _, p := range by {
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Module < out[j].Module })
	return out
}

// sizes are the pool's idle and in-use instance counts.
func (c *compiled) sizes() (idle, inUse int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.idle), c.active
}
