package sandbox

import (
	"encoding/json"
	"io/fs"
	"os"
	"strconv"
	"sync"
)

// CachedPlan is p.Plan(), computed once and reused while nothing it
// depends on has changed: the roots, the protected and hidden locations
// and the carved directories, each compared by device, inode and change
// time (a directory's change time moves when an entry is added, removed,
// renamed or replaced by a link). Carving the home directory reads every
// entry of it; a host running many commands does that once, and checks a
// few dozen stat results per command after.
func CachedPlan(p Policy) Plan { return cached(p).Plan() }

// cachedArgs is the encoded helper arguments of CachedPlan(p): what a
// helper is sent, without decoding a kept plan's whole.
func cachedArgs(p Policy) (string, error) {
	c := cached(p)
	return c.enc, c.encErr
}

// cached is the cache entry of p's plan, made or made again when stale.
func cached(p Policy) *cachedPlan {
	key := p.key()
	planCache.Lock()
	c, ok := planCache.m[string(key)]
	planCache.Unlock()
	if ok && c.fresh() {
		return c
	}
	dir := planDirOf(p)
	var kept string
	if dir != "" {
		kept = keyOf(key)
		if c := loadKept(dir, kept); c != nil && c.fresh() {
			remember(key, c)
			return c
		}
	}
	c = &cachedPlan{}
	c.paths, c.ids = dependsOn(p)
	c.stamps = stampAll(c.paths) // before planning: a change meanwhile is seen next time
	c.idStamps = idStampAll(c.ids)
	pl := p.Plan()
	// What links led to (in carved directories, on the way to roots) is
	// granted by its path: replaced by a link, or a directory on the way
	// moved (it may lie where commands write), the path would lead the
	// grant elsewhere.
	c.ids = append(c.ids, pl.linked...)
	c.idStamps = append(c.idStamps, idStampAll(pl.linked)...)
	c.paths = append(c.paths, pl.Carved...)
	c.paths = append(c.paths, pl.Read.Carved...)
	c.stamps = append(c.stamps, stampAll(append(pl.Carved, pl.Read.Carved...))...)
	c.setPlan(p, pl)
	remember(key, c)
	if dir != "" {
		_ = keep(dir, kept, c) // not kept: the next process makes it again
	}
	return c
}

// newCachedPlan is an entry for pl that is never fresh.
func newCachedPlan(p Policy, pl Plan) *cachedPlan {
	c := &cachedPlan{stamps: []stamp{{stat2: -1}}, paths: []string{"/"}}
	c.setPlan(p, pl)
	return c
}

// setPlan sets the entry's plan and what a helper is sent of it.
func (c *cachedPlan) setPlan(p Policy, pl Plan) {
	c.decoded.Do(func() {}) // nothing to decode
	c.plan = pl
	c.args = helperArgsFor(p, pl)
	c.enc, c.encErr = c.args.encode()
}

// Plan is the entry's plan, a kept one decoded on first use.
func (c *cachedPlan) Plan() Plan {
	c.decoded.Do(func() {
		if err := json.Unmarshal(c.planJSON, &c.plan); err != nil {
			// Written by this build's code, checked by its key: only a
			// disk fault gets here. What commands are confined by is
			// c.args, read from the same file; the plan only explains.
			c.plan = Plan{Read: ReadPlan{Grants: c.args.Read, Carved: c.args.List}, Grants: c.args.Write}
		}
		c.planJSON = nil
	})
	return c.plan
}

// remember puts c in the process's cache under key.
func remember(key []byte, c *cachedPlan) {
	planCache.Lock()
	defer planCache.Unlock()
	if len(planCache.m) >= maxCachedPlans {
		clear(planCache.m)
	}
	planCache.m[string(key)] = c
}

// maxCachedPlans bounds the cache: policies differ by the directories a
// call was approved, so a long session may make many.
const maxCachedPlans = 32

var planCache = struct {
	sync.Mutex
	m map[string]*cachedPlan
}{m: map[string]*cachedPlan{}}

type cachedPlan struct {
	decoded  sync.Once
	plan     Plan   // once decoded
	planJSON []byte // a kept plan's, until decoded
	kept     string // a kept plan's key (keyOf)
	// keptIn is the directory a kept plan was read from: it is trusted
	// for a policy only when that is the policy's plan directory
	// (planDirOf), its key being no secret (the kept files are readable).
	keptIn string
	// rules is the plan's ruleset, built on first use (ruleset).
	rulesMu sync.Mutex
	rules   *builtRuleset
	args    helperArgs
	enc     string // args encoded
	encErr  error
	paths   []string
	stamps  []stamp
	// ids are the paths of which only which file or directory they name
	// matters, not their entries (dependsOn).
	ids      []string
	idStamps []stamp
}

// stamp is what identifies a path's state: zero when it does not exist.
type stamp struct {
	dev, ino            uint64
	ctime, mtime, stat2 int64
}

func stampOf(p string) stamp {
	fi, li, err := statBoth(p)
	if err != nil {
		return stamp{}
	}
	s, ok := sysStamp(fi)
	if !ok {
		return stamp{mtime: fi.ModTime().UnixNano(), stat2: -1} // never fresh: no caching
	}
	s.stat2 = li.ModTime().UnixNano() // a root that is a link retargeted
	return s
}

// statBoth returns what p names, links followed, and p itself: one
// system call unless p is a link (a fresh process checks a kept plan's
// couple of hundred paths before its command can start).
func statBoth(p string) (target, self fs.FileInfo, err error) {
	self, err = os.Lstat(p)
	if err != nil || self.Mode()&fs.ModeSymlink == 0 {
		return self, self, err
	}
	target, err = os.Stat(p)
	return target, self, err
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
	for i, p := range c.ids {
		s := idStampOf(p)
		if s != c.idStamps[i] || s.stat2 == -1 {
			return false
		}
	}
	return true
}

// idStampOf is what identifies which directory p names: its device and
// inode, and its own inode when it is a symbolic link (retargeted, it is
// another link).
func idStampOf(p string) stamp {
	fi, li, err := statBoth(p)
	if err != nil {
		return stamp{}
	}
	s, ok := sysStamp(fi)
	l, lok := sysStamp(li)
	if !ok || !lok {
		return stamp{mtime: fi.ModTime().UnixNano(), stat2: -1} // never fresh: no caching
	}
	s.ctime, s.mtime, s.stat2 = 0, 0, int64(l.ino)
	return s
}

func idStampAll(paths []string) []stamp {
	out := make([]stamp, len(paths))
	for i, p := range paths {
		out[i] = idStampOf(p)
	}
	return out
}

// dependsOn lists the paths p's plan is made from, before carving: those
// whose entries it reads (a credential location with exceptions is
// listed), and those of which only which file or directory they name
// matters (ids): the roots, which are granted whole unless carved (and
// then in Plan.Carved, stamped whole), the protected directories, carved
// around, and the credential locations hidden whole. Stamping those by
// their identity alone keeps a plan valid while toolhost and commands
// write beneath the roots, which is what they are for.
func dependsOn(p Policy) (paths, ids []string) {
	ids = []string{"/"}
	ids = append(ids, p.Writable...)
	ids = append(ids, p.Readable...)
	ids = append(ids, p.Protected...)
	for _, s := range p.Hidden {
		if len(s.Except) > 0 {
			paths = append(paths, s.Path)
		} else {
			ids = append(ids, s.Path)
		}
	}
	return paths, ids
}

// key names p in the plan caches: every field Plan reads, each string
// with its length before it (a path may hold any byte but NUL, a grant's
// name any at all). JSON did the same at half the cost of checking a kept
// plan.
func (p Policy) key() []byte {
	b := make([]byte, 0, 4096)
	str := func(s string) []byte {
		b = strconv.AppendInt(b, int64(len(s)), 10)
		b = append(b, ':')
		return append(b, s...)
	}
	list := func(tag byte, ss []string) {
		b = append(b, tag)
		b = strconv.AppendInt(b, int64(len(ss)), 10)
		for _, s := range ss {
			b = str(s)
		}
	}
	list('W', p.Writable)
	list('P', p.Protected)
	list('R', p.Readable)
	b = append(b, 'C')
	b = strconv.AppendBool(b, p.ConfineReads)
	b = append(b, 'N')
	b = strconv.AppendBool(b, p.Network)
	b = append(b, 'H')
	b = strconv.AppendInt(b, int64(len(p.Hidden)), 10)
	for _, s := range p.Hidden {
		b = str(s.Path)
		b = str(s.Grant)
		list('E', s.Except)
	}
	return b
}
