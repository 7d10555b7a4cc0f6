//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// restrictThread confines the calling thread alone by a, with what
// restrict enforces on the whole process: the same ruleset, no_new_privs,
// the socket filter. It locks the goroutine to the thread, which must
// execute the shell next (runHelper): execve keeps the calling thread's
// credentials (the Landlock domain), no_new_privs and seccomp filter, and
// ends the other threads, which never ran anything but the Go runtime.
// Before Landlock ABI 8 restricting the whole process stops the world and
// signals each thread to make the same system calls: on a busy machine
// each thread waits its turn on a CPU, for a helper that is about to be
// one thread anyway.
func restrictThread(a helperArgs) error {
	r, err := buildRuleset(a)
	if err != nil {
		return err
	}
	defer r.close()
	return r.enter()
}

// builtRuleset is a Landlock ruleset with a plan's rules added, which
// restricts nothing until a thread enters it. A one-shot helper builds it
// when it is sent the plan in advance (oneShotPrepare), so that the
// command waits only for the thread to enter it.
type builtRuleset struct {
	fd      int
	rs      ruleset
	network bool
}

// buildRuleset creates a's ruleset and adds every rule: the paths are
// opened (and so bound to the files they name) now.
func buildRuleset(a helperArgs) (*builtRuleset, error) {
	rs, err := rulesetFor(a)
	if err != nil {
		return nil, err
	}
	attr := ll.RulesetAttr{HandledAccessFS: uint64(rs.fs), HandledAccessNet: uint64(rs.net), Scoped: uint64(rs.scoped)}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("restrict with Landlock ABI %d: create the ruleset: %w", rs.abi, err)
	}
	if err := addPathRules(fd, rs.grants); err != nil {
		syscall.Close(fd)
		return nil, fmt.Errorf("restrict with Landlock ABI %d: %w", rs.abi, err)
	}
	if !a.Network {
		// Assembled now, so that entering costs only the system call.
		if _, err := socketFilter(); err != nil {
			syscall.Close(fd)
			return nil, fmt.Errorf(`%w; "network": false cannot be enforced here, set "sandbox": {"network": true}`, err)
		}
	}
	return &builtRuleset{fd: fd, rs: rs, network: a.Network}, nil
}

func (r *builtRuleset) close() { syscall.Close(r.fd) }

// enter confines the calling thread by r, for good: it locks the
// goroutine to the thread, which must execute the command next.
func (r *builtRuleset) enter() error {
	runtime.LockOSThread() // never unlocked: the thread becomes the shell
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(r.fd, 0); err != nil {
		return fmt.Errorf("restrict with Landlock ABI %d: %w", r.rs.abi, err)
	}
	if !r.network {
		if err := installSocketFilter(false); err != nil {
			return fmt.Errorf(`%w; "network": false cannot be enforced here, set "sandbox": {"network": true}`, err)
		}
	}
	return nil
}

// addPathRules adds every grant to the ruleset, all before it returns.
// A plan has a couple of hundred paths, each an open and a system call
// while the command waits and toolhost, waiting too, leaves the other
// core idle: a second thread adds half of them. Where the rules come
// from makes no difference to the ruleset, which restricts nothing
// until the calling thread enters it.
func addPathRules(ruleset int, grants []pathGrant) error {
	type rule struct {
		path   string
		rights landlock.AccessFSSet
	}
	var rules []rule
	for _, g := range grants {
		for _, path := range g.paths {
			rules = append(rules, rule{path, g.rights})
		}
	}
	add := func(rules []rule) error {
		for _, r := range rules {
			if err := addPathRule(ruleset, r.path, r.rights); err != nil {
				return err
			}
		}
		return nil
	}
	if len(rules) < 64 {
		return add(rules)
	}
	half := len(rules) / 2
	other := make(chan error, 1)
	go func() { other <- add(rules[:half]) }()
	err := add(rules[half:])
	return errors.Join(<-other, err)
}

// addPathRule grants rights beneath path, as go-landlock's PathAccess
// with IgnoreIfMissing does: a path gone since the plan was made is
// granted nothing, any other failure refuses the plan. Every path of a
// plan is resolved (Plan follows links before it grants), so a link met
// on the way now is one put there since, maybe by a command writing
// where the path leads through: it is not followed, and the path is
// granted nothing, as one gone is (a link to a credential would
// otherwise carry the grant to it).
func addPathRule(ruleset int, path string, rights landlock.AccessFSSet) error {
	fd, err := unix.Openat2(unix.AT_FDCWD, path, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS})
	if errors.Is(err, syscall.ENOSYS) || errors.Is(err, syscall.EPERM) {
		// No openat2 (a container's seccomp profile that predates it
		// refuses it with either): the last name at least is not
		// followed.
		fd, err = syscall.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err == nil && isLink(fd) {
			syscall.Close(fd)
			return nil
		}
	}
	if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ELOOP) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer syscall.Close(fd)
	if err := ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{ParentFd: fd, AllowedAccess: uint64(rights)}, 0); err != nil {
		return fmt.Errorf("landlock_add_rule %s (rights %#x): %w", path, uint64(rights), err)
	}
	return nil
}

// isLink reports whether fd, opened with O_PATH|O_NOFOLLOW, is a link.
func isLink(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK
}
