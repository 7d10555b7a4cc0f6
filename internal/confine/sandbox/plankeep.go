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
	"strings"
	"syscall"
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

// keptPlan is a plan as kept on disk.
type keptPlan struct {
	// Key is keyOf's: this build's sandbox code and the whole policy.
	Key      string      `json:"key"`
	Paths    []string    `json:"paths"`
	Stamps   []keptStamp `json:"stamps"`
	IDs      []string    `json:"ids"`
	IDStamps []keptStamp `json:"id_stamps"`
	Plan     Plan        `json:"plan"`
}

type keptStamp struct {
	Dev, Ino            uint64
	Ctime, Mtime, Stat2 int64
}

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
	f, err := os.OpenFile(filepath.Join(dir, key[:32]+".json"), os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !ownedPrivately(fi) || fi.Size() > maxPlan {
		return nil
	}
	var k keptPlan
	if err := json.NewDecoder(io.LimitReader(f, maxPlan)).Decode(&k); err != nil || k.Key != key || len(k.Paths) != len(k.Stamps) || len(k.IDs) != len(k.IDStamps) {
		return nil
	}
	return &cachedPlan{plan: k.Plan, paths: k.Paths, stamps: fromKept(k.Stamps), ids: k.IDs, idStamps: fromKept(k.IDStamps)}
}

func fromKept(ks []keptStamp) []stamp {
	out := make([]stamp, len(ks))
	for i, s := range ks {
		out[i] = stamp{dev: s.Dev, ino: s.Ino, ctime: s.Ctime, mtime: s.Mtime, stat2: s.Stat2}
	}
	return out
}

func toKept(ss []stamp) ([]keptStamp, error) {
	out := make([]keptStamp, len(ss))
	for i, s := range ss {
		if s.stat2 == -1 {
			return nil, errors.New("a path has no stamp on this system")
		}
		out[i] = keptStamp{Dev: s.dev, Ino: s.ino, Ctime: s.ctime, Mtime: s.mtime, Stat2: s.stat2}
	}
	return out, nil
}

// keep writes c to dir for key, replacing the file at once (a reader
// sees the old plan or the new one). Failing to keep a plan costs the next
// process the time to make it, nothing else.
func keep(dir, key string, c *cachedPlan) error {
	k := keptPlan{Key: key, Paths: c.paths, IDs: c.ids, Plan: c.plan}
	var err error
	if k.Stamps, err = toKept(c.stamps); err != nil {
		return err
	}
	if k.IDStamps, err = toKept(c.idStamps); err != nil {
		return err
	}
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
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
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, key[:32]+".json")); err != nil {
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
