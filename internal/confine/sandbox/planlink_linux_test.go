//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// linkedPolicy is a kept policy whose home directory (carved around the
// credentials) holds a link to a file in the project, as a home linked to
// a dotfiles repository does: the plan grants the file the link leads to,
// by its path in the project, which commands may write.
func linkedPolicy(t *testing.T) (p Policy, file, target, secret string) {
	t.Helper()
	p, _ = keptPolicy(t)
	home := p.Writable[0]
	secret = filepath.Join(home, ".aws", "credentials")
	project := filepath.Join(p.Writable[1], "dotfiles")
	target = filepath.Join(project, "shell", "bashrc")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("plain bashrc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(home, ".bashrc")); err != nil {
		t.Fatal(err)
	}
	p.Writable = append(slices.Clone(Devices), project)
	return p, filepath.Join(p.PlanDir, keyOfPolicy(t, p)[:32]+".plan"), target, secret
}

// swapForLink replaces target, as a command writing in the project may,
// with a link to the home directory's cloud credentials.
func swapForLink(t *testing.T, target, secret string) {
	t.Helper()
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, target); err != nil {
		t.Fatal(err)
	}
}

// Not parallel: it empties the process's plan cache.
func TestAPlanIsStaleOnceAFileALinkLedToBecomesALink(t *testing.T) {
	p, file, target, secret := linkedPolicy(t)
	if !keptPlanUsed(t, p, file) {
		t.Fatal("the control: the kept plan was not used untouched")
	}
	if !strings.Contains(cachedEnc(t, p), `R f "`+target+`"`) {
		t.Fatalf("the test proves nothing: the plan does not grant %s by its path", target)
	}
	swapForLink(t, target, secret)
	forget()
	if hasMarker(t, p) {
		t.Error("a kept plan was used after a file it granted through a link became a link to a credential")
	}
	if strings.Contains(cachedEnc(t, p), `R f "`+target+`"`) {
		t.Error("the plan still grants the path that now leads to a credential")
	}
}

// The same, end to end: an earlier command swaps the file, and the next
// process's command reads the credential through the kept plan.
func TestAnEarlierCommandCannotReadCredentialsThroughAKeptPlansLinkedGrant(t *testing.T) {
	requireLandlock(t, 1)
	p, _, target, secret := linkedPolicy(t)
	p.Network = true
	forget()
	if out, err := confined(t, p, "cat "+target); err != nil || !strings.Contains(out, "plain bashrc") {
		t.Fatalf("the control: the linked file is not readable: %v\n%s", err, out)
	}
	swapForLink(t, target, secret)
	forget() // the next `toolhost call bash`
	if out, _ := confined(t, p, "cat "+target+"; cat "+secret); strings.Contains(out, "secret of") {
		t.Errorf("a command read a credential through a plan kept from before the swap:\n%s", out)
	}
}

func cachedEnc(t *testing.T, p Policy) string {
	t.Helper()
	enc, err := cachedArgs(p)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

// Between the freshness check and the helper opening each grant, a
// command still running from an earlier call may swap a file it can
// write for a link: the helper must not carry the grant along it. The
// plan here is made first and the swap follows, as such a race would
// have it.
func TestAGrantWhosePathBecameALinkGrantsNothing(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	home := fakeHome(t)
	secret := filepath.Join(home, ".aws", "credentials")
	target := filepath.Join(t.TempDir(), "notes")
	if err := os.WriteFile(target, []byte("plain notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: slices.Clone(Devices), Hidden: HomeSecrets(home, nil), Network: true, ConfineReads: true,
		Readable: append([]string{target}, ReadRoots(func(string) string { return "" }, "")...)}
	c := newCachedPlan(p, p.Plan())
	c.paths, c.stamps = nil, nil // fresh whatever changes: the race won
	remember(p.key(), c)
	if out, err := confined(t, p, "cat "+target); err != nil || !strings.Contains(out, "plain notes") {
		t.Fatalf("the control: the granted file is not readable: %v\n%s", err, out)
	}
	swapForLink(t, target, secret)
	if out, _ := confined(t, p, "cat "+target+"; cat "+secret); strings.Contains(out, "secret of") {
		t.Errorf("a grant followed a link put in its path after the plan was made:\n%s", out)
	}
}

// A root named through a link (here a directory a command may write)
// is granted by its resolved path. Moving the directory the link led
// through and linking its old name elsewhere keeps the root naming the
// same directory, but the granted path now leads to what the command
// put there.
func TestAPlanIsStaleOnceARootsResolvedPathLeadsElsewhere(t *testing.T) {
	t.Parallel()
	w := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(w, "a", "proj"), 0o755))
	must(os.Symlink(filepath.Join(w, "a"), filepath.Join(w, "l1")))
	p := Policy{Writable: []string{filepath.Join(w, "l1", "proj")}, Network: true}
	granted := `W d "` + filepath.Join(w, "a", "proj") + `"`
	if !strings.Contains(cachedEnc(t, p), granted) {
		t.Fatalf("the test proves nothing: the plan does not grant %s:\n%s", granted, cachedEnc(t, p))
	}
	// The command's moves: the root still names the same directory.
	must(os.Rename(filepath.Join(w, "a"), filepath.Join(w, "b")))
	must(os.Remove(filepath.Join(w, "l1")))
	must(os.Symlink(filepath.Join(w, "b"), filepath.Join(w, "l1")))
	must(os.Mkdir(filepath.Join(w, "a"), 0o755))
	must(os.Symlink(t.TempDir(), filepath.Join(w, "a", "proj"))) // a credential folder, say
	if strings.Contains(cachedEnc(t, p), granted) {
		t.Error("the plan still grants the path the root resolved to, which now leads elsewhere")
	}
}

// toolhost's cache directory named through a link that lies where
// commands write (a project-local XDG_CACHE_HOME linked to a volume,
// say): Plan protects where the link leads, and the link too, so that no
// command can replace it with a directory of its own holding a plan it
// wrote (the real kept plan copied, any grant added, its stamps what they
// now are), which the next process would read.
func TestALinkOnTheWayToAProtectedDirectoryCannotBeReplaced(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	w, real := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(real, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(w, "cache")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(link, "state")
	p := Policy{Writable: append([]string{w}, Devices...), Protected: []string{state}, PlanDir: filepath.Join(state, "sandbox-plans"), Network: true}
	if out, err := confined(t, p, "touch "+filepath.Join(w, "src", "ok")); err != nil {
		t.Fatalf("the control: the writable root is not writable: %v\n%s", err, out)
	}
	out, err := confined(t, p, "rm "+link+" && mkdir -p "+p.PlanDir)
	if fi, lerr := os.Lstat(link); err == nil || lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("a command replaced the link on the way to toolhost's cache directory (err=%v):\n%s", err, out)
	}
}

// A credential the environment names through a link in the project
// (KUBECONFIG=$PROJECT/k8s/config, k8s a link to the cluster's folder) is
// hidden where the link leads; a command that retargeted the link would
// have the next plan hide its decoy instead and the credential readable.
func TestALinkOnTheWayToACredentialCannotBeRetargeted(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	w, real, decoy := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(real, "config"), []byte("secret of the cluster\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(w, "k8s")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: append([]string{w}, Devices...), Hidden: []Secret{{Path: filepath.Join(link, "config"), Grant: "KUBECONFIG"}}, Network: true}
	out, err := confined(t, p, "rm "+link+" && ln -s "+decoy+" "+link)
	if fi, lerr := os.Lstat(link); err == nil || lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("a command replaced the link to a credential's folder (err=%v):\n%s", err, out)
	}
	if target, _ := os.Readlink(link); target != real {
		t.Errorf("the link now leads to %s", target)
	}
}

// The same for a link met on the way of where another leads: the cache
// directory named in a directory no command writes, through a link there
// to a link in the project.
func TestALinkALinkToAProtectedDirectoryLeadsThroughCannotBeReplaced(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	w, real, outside := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(real, "state"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(w, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	hop := filepath.Join(w, "hop")
	if err := os.Symlink(real, hop); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hop, filepath.Join(outside, "cache")); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(outside, "cache", "state")
	p := Policy{Writable: append([]string{w}, Devices...), Protected: []string{state}, PlanDir: filepath.Join(state, "sandbox-plans"), Network: true}
	if out, err := confined(t, p, "touch "+filepath.Join(w, "src", "ok")); err != nil {
		t.Fatalf("the control: the writable root is not writable: %v\n%s", err, out)
	}
	out, err := confined(t, p, "rm "+hop+" && mkdir -p "+filepath.Join(hop, "state", "sandbox-plans"))
	if fi, lerr := os.Lstat(hop); err == nil || lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("a command replaced a link on the way to toolhost's cache directory (err=%v):\n%s", err, out)
	}
}

// And a credential's: KUBECONFIG named in a directory no command writes,
// through a link there to a link in the project.
func TestALinkALinkToACredentialLeadsThroughCannotBeRetargeted(t *testing.T) {
	requireLandlock(t, 1)
	t.Parallel()
	w, real, outside, decoy := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(real, "config"), []byte("secret of the cluster\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hop := filepath.Join(w, "hop")
	if err := os.Symlink(real, hop); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hop, filepath.Join(outside, "k8s")); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: append([]string{w}, Devices...), Hidden: []Secret{{Path: filepath.Join(outside, "k8s", "config"), Grant: "KUBECONFIG"}}, Network: true}
	out, err := confined(t, p, "rm "+hop+" && ln -s "+decoy+" "+hop)
	if fi, lerr := os.Lstat(hop); err == nil || lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("a command replaced a link on the way to a credential's folder (err=%v):\n%s", err, out)
	}
}

// Protecting names does not protect more than before where no link is
// on the way: ~/.ssh's known_hosts stays writable in a writable home.
func TestAnExceptedCredentialFileStaysWritableInAWritableHome(t *testing.T) {
	t.Parallel()
	home := fakeHome(t)
	p := Policy{Writable: []string{home}, Hidden: HomeSecrets(home, nil)}
	pl := p.Plan()
	if !pl.Allows(filepath.Join(home, ".ssh", "known_hosts")) {
		t.Error("known_hosts is not writable in a writable home")
	}
	if pl.Allows(filepath.Join(home, ".ssh", "id_ed25519")) {
		t.Error("a private key is writable")
	}
}
