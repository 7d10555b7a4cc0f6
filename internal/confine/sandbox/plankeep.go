//go:build linux

package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Plans kept between processes (Policy.PlanDir).
//
// Making a plan reads the home directory and looks up every credential
// location, a few milliseconds; `toolhost call bash` makes one per
// process, so the plan it made last time is kept in toolhost's cache
// directory and reused while every path it was made from is unchanged —
// the check CachedPlan makes within one process. A kept plan is trusted
// because no command can write where it is kept: PlanDir must lie in a
// protected directory (Plan never grants those), or nothing is kept. A
// file there that is not a regular file of this user's, writable by no one
// else, or that is for another policy or another build's sandbox code is
// ignored and replaced.

// maxKeptPlans bounds the plans kept: policies differ by the directories
// calls were approved, so a long-lived project may make many.
const maxKeptPlans = 32

// A kept plan's file: a header line, "key" and keyOf's key, the stamps
// ("P" for cachedPlan.paths, "I" for its ids: device, inode, change time,
// modification time, second stat and the quoted path), the helper
// arguments as they are sent (helperArgs' encoding, from its own header
// line on) and last "plan" and the whole plan in JSON, which only
// explanations need (decoded on first use). Reading it costs what
// checking the stamps does; decoding it all as JSON took a fresh process
// longer than making the plan.
const keptHeader = "toolhost-kept-plan 1"

// keyOf names a policy's plan as made by this build's sandbox code.
func keyOf(policy []byte) string {
	h := sha256.New()
	io.WriteString(h, identity()+"\x00")
	h.Write(policy)
	return hex.EncodeToString(h.Sum(nil))
}

// planDirOf returns where p's plans may be kept, or "" when nowhere: its
// PlanDir when that lies in one of its protected directories.
func planDirOf(p Policy) string {
	if p.PlanDir == "" || !filepath.IsAbs(p.PlanDir) {
		return ""
	}
	dir := filepath.Clean(p.PlanDir)
	for _, prot := range p.Protected {
		if prot = filepath.Clean(prot); filepath.IsAbs(prot) && (dir == prot || strings.HasPrefix(dir, prot+string(filepath.Separator))) {
			return dir
		}
	}
	return ""
}

// loadKept returns the plan kept in dir for key, or nil.
func loadKept(dir, key string) *cachedPlan {
	if c := takePreloaded(dir, key); c != nil {
		return c
	}
	s, ok := readKept(dir, key[:32])
	if !ok {
		return nil
	}
	c, err := parseKept(s, key)
	if err != nil {
		return nil
	}
	c.keptIn = dir
	return c
}

// adoptPrepared reports whether c, a kept plan read and prepared before
// p was known (PreloadPlans), is p's: kept for p's key in p's own plan
// directory (the key is no secret: the kept files are readable). It is
// then this process's plan for p.
func adoptPrepared(p Policy, c *cachedPlan) bool {
	if c == nil {
		return false
	}
	key := p.key()
	if c.kept != keyOf(key) || c.keptIn != planDirOf(p) {
		return false
	}
	remember(key, c)
	return true
}

// readKept returns the file name.plan in dir when it may hold a plan: a
// regular file, not a link, of this user's, writable by no one else.
func readKept(dir, name string) (string, bool) {
	f, err := os.OpenFile(filepath.Join(dir, name+".plan"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !ownedPrivately(fi) || fi.Size() > maxPlan {
		return "", false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPlan))
	return string(b), err == nil
}

// PlansKept reports whether dir (a policy's PlanDir) holds plans kept by
// an earlier process: whether the sandbox confined a command of this
// user's before, so that prestarting a helper is likely to pay.
func PlansKept(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// preloaded are the plans PreloadPlans read, by key.
var preloaded struct {
	sync.Mutex
	dir   string
	done  chan struct{} // closed once plans is set
	plans map[string]*cachedPlan
}

// PreloadPlans reads, in the background, the plans kept in dir (the
// directory a policy's PlanDir will name), so that a process about to
// run one command (`toolhost call bash`) has read its plan while it loads
// its config. Each is still checked when it is used: its key against the
// policy's, its stamps against the paths it was made from. Only the first
// call does anything.
func PreloadPlans(dir string) {
	preloaded.Lock()
	defer preloaded.Unlock()
	if preloaded.done != nil || !filepath.IsAbs(dir) {
		return
	}
	done := make(chan struct{})
	preloaded.dir, preloaded.done = filepath.Clean(dir), done
	go func() {
		defer close(done)
		identity() // what a kept plan's key is checked against, computed meanwhile
		plans := map[string]*cachedPlan{}
		// The plan used last, the one most likely wanted (reading every
		// kept plan cost more than it saved).
		var newest string
		var newestTime time.Time
		entries, _ := os.ReadDir(dir)
		for _, e := range entries[:min(len(entries), maxKeptPlans)] {
			name, ok := strings.CutSuffix(e.Name(), ".plan")
			if !ok {
				continue
			}
			if fi, err := e.Info(); err == nil && fi.ModTime().After(newestTime) {
				newest, newestTime = name, fi.ModTime()
			}
		}
		if s, ok := readKept(dir, newest); ok && newest != "" {
			keyLine, _, _ := strings.Cut(strings.TrimPrefix(s, keptHeader+"\n"), "\n")
			key, ok := strings.CutPrefix(keyLine, "key ")
			if ok && len(key) >= 32 && key[:32] == newest {
				if c, err := parseKept(s, key); err == nil {
					c.keptIn = filepath.Clean(dir)
					plans[key] = c
					prepareSpare(c)
				}
			}
		}
		preloaded.Lock()
		preloaded.plans = plans
		preloaded.Unlock()
	}()
}

// takePreloaded returns the plan PreloadPlans read from dir for key, once
// it is done reading, or nil.
func takePreloaded(dir, key string) *cachedPlan {
	preloaded.Lock()
	done, from := preloaded.done, preloaded.dir
	preloaded.Unlock()
	if done == nil || from != dir {
		return nil
	}
	<-done
	preloaded.Lock()
	defer preloaded.Unlock()
	c := preloaded.plans[key]
	delete(preloaded.plans, key)
	return c
}

// parseKept reads a kept plan's file for key.
func parseKept(s, key string) (*cachedPlan, error) {
	head, rest, _ := strings.Cut(s, "\n")
	keyLine, rest, _ := strings.Cut(rest, "\n")
	if head != keptHeader || keyLine != "key "+key {
		return nil, errors.New("another version's, or another policy's")
	}
	c := &cachedPlan{kept: key}
	for {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		kind, fields, _ := strings.Cut(line, " ")
		if kind != "P" && kind != "I" {
			if line != argsHeader {
				return nil, fmt.Errorf("unexpected %q", line)
			}
			break
		}
		path, st, err := parseStamp(fields)
		if err != nil {
			return nil, err
		}
		if kind == "P" {
			c.paths, c.stamps = append(c.paths, path), append(c.stamps, st)
		} else {
			c.ids, c.idStamps = append(c.ids, path), append(c.idStamps, st)
		}
	}
	argsStart := len(s) - len(rest) - len(argsHeader) - 1
	sawNet := false
	for {
		line, more, ok := strings.Cut(rest, "\n")
		if js, isPlan := strings.CutPrefix(line, "plan "); isPlan && !ok {
			c.planJSON = []byte(js) // the last line
			c.enc = s[argsStart : len(s)-len(rest)-1]
			break
		}
		if !ok {
			return nil, errors.New("no plan")
		}
		if err := c.args.decodeLine(line, &sawNet); err != nil {
			return nil, err
		}
		rest = more
	}
	if !sawNet {
		return nil, errors.New("no network setting")
	}
	return c, nil
}

// parseStamp reads "dev ino ctime mtime stat2 quoted-path".
func parseStamp(fields string) (string, stamp, error) {
	var st stamp
	var nums [5]int64
	for i := range nums {
		var f string
		f, fields, _ = strings.Cut(fields, " ")
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return "", st, fmt.Errorf("bad stamp: %w", err)
		}
		nums[i] = n
	}
	path, err := strconv.Unquote(fields)
	if err != nil || !filepath.IsAbs(path) {
		return "", st, fmt.Errorf("bad stamped path %q", fields)
	}
	st = stamp{dev: uint64(nums[0]), ino: uint64(nums[1]), ctime: nums[2], mtime: nums[3], stat2: nums[4]}
	return path, st, nil
}

// keep writes c to dir for key, replacing the file at once (a reader
// sees the old plan or the new one). Failing to keep a plan costs the next
// process the time to make it, nothing else.
func keep(dir, key string, c *cachedPlan) error {
	if c.encErr != nil {
		return c.encErr
	}
	var b strings.Builder
	b.WriteString(keptHeader + "\nkey " + key + "\n")
	stamps := func(kind string, paths []string, ss []stamp) error {
		for i, s := range ss {
			if s.stat2 == -1 {
				return errors.New("a path has no stamp on this system")
			}
			fmt.Fprintf(&b, "%s %d %d %d %d %d %s\n", kind, int64(s.dev), int64(s.ino), s.ctime, s.mtime, s.stat2, strconv.Quote(paths[i]))
		}
		return nil
	}
	if err := stamps("P", c.paths, c.stamps); err != nil {
		return err
	}
	if err := stamps("I", c.ids, c.idStamps); err != nil {
		return err
	}
	pl, err := json.Marshal(c.Plan())
	if err != nil {
		return err
	}
	b.WriteString(c.enc + "\nplan ")
	b.Write(pl)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) >= maxKeptPlans {
		for _, e := range entries {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	tmp, err := os.CreateTemp(dir, ".plan-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(b.String()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, key[:32]+".plan")); err != nil {
		return fmt.Errorf("keep the sandbox plan: %w", err)
	}
	return nil
}

// ownedPrivately reports whether fi is a regular file of this process's
// user that no one else may write.
func ownedPrivately(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && fi.Mode().IsRegular() && fi.Mode().Perm()&0o022 == 0 && int(st.Uid) == syscall.Geteuid()
}
