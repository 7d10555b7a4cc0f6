package builtins

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolhost/toolhost/internal/confine/sandbox"
	"github.com/toolhost/toolhost/internal/confine/shellperm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// bashSandbox decides the kernel sandbox one bash call runs under (see
// package internal/confine/sandbox): nil when the config turns it off or the kernel
// lacks Landlock (host warned once at start; the permission rules alone
// apply). approved are the directories outside the project that this call
// was allowed to reach (bashPermissions' ExternalDirs, past the
// external_directory question): what a person or rule allowed for the call
// is writable for it. It fails closed when the policy asks for what the
// kernel cannot enforce.
func bashSandbox(tc *runtime.Context, approved []string) (*sandbox.Policy, error) {
	cfg := tc.Config
	if cfg == nil {
		cfg = config.Default()
	}
	if !cfg.Sandbox.On() {
		return nil, nil
	}
	abi, err := sandbox.Available()
	if err != nil {
		return nil, nil
	}
	if !cfg.Sandbox.NetworkOn() {
		if abi < sandbox.MinNetworkABI {
			return nil, fmt.Errorf(`bash: "sandbox": {"network": false} needs Landlock ABI %d (Linux 6.12) and this kernel has ABI %d, so commands are not run; set "network": true or upgrade the kernel`, sandbox.MinNetworkABI, abi)
		}
		if err := sandbox.SocketFilterSupported(); err != nil {
			return nil, fmt.Errorf(`bash: "sandbox": {"network": false} cannot be enforced: %w; commands are not run; set "network": true`, err)
		}
	}
	p := BashSandboxPolicy(tc, cfg, os.Getenv)
	p.Writable = append(p.Writable, approved...)
	return &p, nil
}

// BashSandboxPolicy is the policy bash commands run under in this call's
// context, without the directories a single call was approved: the
// worktree and working directory, the temporary directory, the toolchain
// caches, the devices, what external_directory allow rules allow (the
// agent's rules and the call's), and sandbox.writable are writable;
// toolhost's state directories protected; the credential locations hidden
// unless sandbox.readable names them; and, when external_directory denies
// what lies outside the project, reading confined to the writable roots,
// the system and toolchain directories and sandbox.readable. `toolhost
// doctor` shows it.
func BashSandboxPolicy(tc *runtime.Context, cfg *config.Config, env func(string) string) sandbox.Policy {
	home, _ := os.UserHomeDir()
	if h := env("HOME"); filepath.IsAbs(h) {
		home = h
	}
	var w []string
	for _, d := range []string{tc.Worktree, tc.Directory, os.TempDir()} {
		if d != "" {
			w = append(w, d)
		}
	}
	w = append(w, config.SandboxCaches(env, home)...)
	w = append(w, sandbox.Devices...)
	rules := bashExternalRules(tc)
	w = append(w, externalAllowed(rules, home)...)
	root := tc.Worktree
	if root == "" {
		root = tc.Directory
	}
	for _, d := range cfg.Sandbox.Writable {
		w = append(w, resolveAgainst(root, home, d))
	}
	var readable []string
	for _, d := range cfg.Sandbox.Readable {
		readable = append(readable, resolveAgainst(root, home, d))
	}
	protected := tc.StateDirs
	if len(protected) == 0 {
		protected = []string{runtime.DefaultDataDir()}
	}
	hidden := append(sandbox.HomeSecrets(home, readable), sandbox.EnvSecrets(env, home, readable)...)
	// $HOME may name another directory than the account's own (a
	// wrapper's HOME=/tmp/x, or HOME=/): the keys in the account's home
	// are hidden all the same.
	if ph := passwdHome(); filepath.IsAbs(ph) && filepath.Clean(ph) != filepath.Clean(home) {
		hidden = append(hidden, sandbox.HomeSecrets(filepath.Clean(ph), readable)...)
	}
	hidden = append(hidden, sandbox.RawDevices(readable)...)
	p := sandbox.Policy{Writable: w, Protected: protected, Network: cfg.Sandbox.NetworkOn(), Hidden: hidden}
	// Plans kept for the next process (`toolhost call bash` makes one
	// each time) in toolhost's cache directory, the last state directory,
	// which no command may write.
	p.PlanDir = filepath.Join(protected[len(protected)-1], "sandbox-plans")
	if externalDenied(rules) {
		p.ConfineReads = true
		p.Readable = append(sandbox.ReadRoots(env, home), readable...)
	}
	return p
}

// passwdHome is the home directory the user database gives this process's
// user, whatever $HOME says; "" when it cannot be looked up.
var passwdHome = func() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}

// bashExternalRules are the rules external_directory is judged by for
// this call: the agent's, then the call's.
func bashExternalRules(tc *runtime.Context) permission.Ruleset {
	var rules permission.Ruleset
	if tc.Rulebook != nil {
		if agentRules, err := tc.Rulebook.AgentRules(tc.Agent); err == nil {
			rules = append(rules, agentRules...)
		}
	}
	return append(rules, tc.Rules...)
}

// externalDenied reports whether external_directory denies what no rule
// names specifically: the catch-all ("external_directory": "deny", or
// {"*": "deny", ...}). Commands then read only inside the project and the
// directories the sandbox makes readable; a deny for one directory among
// allowed ones is left to the permission rules.
func externalDenied(rules permission.Ruleset) bool {
	dec, _ := permission.Evaluate(runtime.PermissionExternalDirectory, shellperm.ExternalGlob(string(filepath.Separator)), rules)
	return dec.Action == permission.Deny
}

// externalAllowed lists the directories external_directory allow rules
// name that the whole rule set, last match winning, really allows: the
// default "*": "allow" for every permission does not open the disk when a
// later "external_directory": {"*": "ask"} takes it back. A pattern's
// directory is its part before the first wildcard ("/srv/*" → /srv, "*" →
// /; see patternDir). Deny rules for a subdirectory of an allowed one are not carved out:
// the kernel's rule is the coarser of the two, the permission rules still
// judge what the command line names.
func externalAllowed(rules permission.Ruleset, home string) []string {
	var out []string
	for _, r := range rules {
		if r.Action != permission.Allow || !permission.Match(r.Permission, runtime.PermissionExternalDirectory) {
			continue
		}
		d := patternDir(r.Pattern, home)
		if d == "" {
			continue
		}
		if dec, _ := permission.Evaluate(runtime.PermissionExternalDirectory, shellperm.ExternalGlob(d), rules); dec.Action == permission.Allow && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// patternDir is the directory a path pattern covers: the part before the
// first wildcard, which must end a directory name. "" when the pattern is
// relative (it cannot name a directory outside the project) or cut
// mid-name ("/srv/da*": the kernel grants whole directories only).
func patternDir(pattern, home string) string {
	if strings.HasPrefix(pattern, "~/") && home != "" {
		pattern = filepath.Join(home, pattern[2:])
	}
	if pattern == "*" || pattern == "**" {
		return string(filepath.Separator)
	}
	if !filepath.IsAbs(pattern) {
		return ""
	}
	if i := strings.IndexAny(pattern, "*?["); i >= 0 {
		prefix := pattern[:i]
		if !strings.HasSuffix(prefix, string(filepath.Separator)) {
			// "/srv/da*" allows some of /srv's entries; the kernel
			// can grant only whole directories, so it grants none.
			return ""
		}
		return filepath.Clean(prefix)
	}
	return filepath.Clean(pattern)
}

// resolveAgainst makes a configured path absolute: "~/" is home, a
// relative path lies in root.
func resolveAgainst(root, home, p string) string {
	switch {
	case strings.HasPrefix(p, "~/") && home != "":
		return filepath.Join(home, p[2:])
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	default:
		return filepath.Join(root, p)
	}
}

// sandboxNotes explains reads and writes the output shows refused at
// paths the sandbox does not grant, naming the config that would allow
// each. dir is the command's working directory.
func sandboxNotes(p *sandbox.Policy, output, dir string) []string {
	if p == nil || !sandbox.MayHoldRefusal(output) {
		return nil
	}
	var notes []string
	for _, r := range sandbox.Refusals(output, sandbox.CachedPlan(*p), dir, p.Protected) {
		switch {
		case r.Protected:
			notes = append(notes, fmt.Sprintf("The sandbox refused writing %s: it is toolhost's own state, which commands may never write.", r.Path))
		case r.Credential != "":
			grant, _ := json.Marshal(r.Credential)
			notes = append(notes, fmt.Sprintf(`The sandbox refused %s: it is a credential location, which commands may neither read nor write whatever the permission rules say. To allow reading it, add "sandbox": {"readable": [%s]} to toolhost.json (ssh and git reach hosts through an ssh agent without it).`, r.Path, grant))
		case r.Read:
			d, _ := json.Marshal(r.Dir)
			notes = append(notes, fmt.Sprintf(`The sandbox may have refused reading %s: external_directory denies reading outside the project, so bash commands may read only the project, the system and toolchain directories and what the config allows. To allow it, add "sandbox": {"readable": [%s]} to toolhost.json.`, r.Path, d))
		default:
			d, _ := json.Marshal(r.Dir)
			glob, _ := json.Marshal(shellperm.ExternalGlob(r.Dir))
			notes = append(notes, fmt.Sprintf(`The sandbox may have refused writing %s: bash commands may write only inside the project, the temporary directory, toolchain caches and directories the config allows. To allow it, add "sandbox": {"writable": [%s]} or "permission": {"external_directory": {%s: "allow"}} to toolhost.json.`, r.Path, d, glob))
		}
	}
	return notes
}
