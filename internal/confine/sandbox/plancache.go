package sandbox

import (
	"encoding/json"
	"os"
	"sync"
)

// CachedPlan is p.Plan(), computed once and reused while nothing it
// depends on has changed: the roots, the protected and hidden locations
// and the carved directories, each compared by device, inode and change
// time (a directory's change time moves when an entry is added, removed,
// renamed or replaced by a link). Carving the home directory reads every
// entry of it; a host running many commands does that once, and checks a
// few dozen stat results per command after.
func CachedPlan(p Policy) Plan {
	key, err := json.Marshal(p)
	if err != nil {
		return p.Plan()
	}
	planCache.Lock()
	c, ok := planCache.m[string(key)]
	planCache.Unlock()
	if ok && c.fresh() {
		return c.plan
	}
	c = &cachedPlan{paths: dependsOn(p)}
	c.stamps = stampAll(c.paths) // before planning: a change meanwhile is seen next time
	c.plan = p.Plan()
	c.paths = append(c.paths, c.plan.Carved...)
	c.paths = append(c.paths, c.plan.Read.Carved...)
	c.stamps = append(c.stamps, stampAll(append(c.plan.Carved, c.plan.Read.Carved...))...)
	planCache.Lock()
	if len(planCache.m) >= maxCachedPlans {
		clear(planCache.m)
	}
	planCache.m[string(key)] = c
	planCache.Unlock()
	return c.plan
}

// maxCachedPlans bounds the cache: policies differ by the directories a
// call was approved, so a long session may make many.
const maxCachedPlans = 32

var planCache = struct {
	sync.Mutex
	m map[string]*cachedPlan
}{m: map[string]*cachedPlan{}}

type cachedPlan struct {
	plan   Plan
	paths  []string
	stamps []stamp
}

// stamp is what identifies a path's state: zero when it does not exist.
type stamp struct {
	dev, ino            uint64
	ctime, mtime, stat2 int64
}

func stampOf(p string) stamp {
	fi, err := os.Stat(p)
	if err != nil {
		return stamp{}
	}
	s, ok := sysStamp(fi)
	if !ok {
		return stamp{mtime: fi.ModTime().UnixNano(), stat2: -1} // never fresh: no caching
	}
	if li, err := os.Lstat(p); err == nil {
		s.stat2 = li.ModTime().UnixNano() // a root that is a link retargeted
	}
	return s
}

func stampAll(paths []string) []stamp {
	out := make([]stamp, len(paths))
	for i, p := range paths {
		out[i] = stampOf(p)
	}
	return out
}

func (c *cachedPlan) fresh() bool {
	for i, p := range c.paths {
		s := stampOf(p)
		if s != c.stamps[i] || s.stat2 == -1 {
			return false
		}
	}
	return true
}

// dependsOn lists the paths p's plan is made from, before carving.
func dependsOn(p Policy) []string {
	paths := []string{"/"}
	paths = append(paths, p.Writable...)
	paths = append(paths, p.Readable...)
	paths = append(paths, p.Protected...)
	for _, s := range p.Hidden {
		paths = append(paths, s.Path)
	}
	return paths
}
