//go:build linux

package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// keptPolicy is a policy whose plans are kept in its protected state
// directory, and the file its plan is kept in.
func keptPolicy(t *testing.T) (Policy, string) {
	t.Helper()
	home := fakeHome(t)
	state := filepath.Join(t.TempDir(), "state") // toolhost's cache directory: it exists
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	// A writable root with a folder a command could keep a plan in.
	work := t.TempDir()
	if err := os.Mkdir(filepath.Join(work, "plans"), 0o700); err != nil {
		t.Fatal(err)
	}
	p := Policy{Writable: []string{home, work}, Protected: []string{state}, Hidden: HomeSecrets(home, nil), PlanDir: filepath.Join(state, "sandbox-plans")}
	return p, filepath.Join(p.PlanDir, keyOfPolicy(t, p)[:32]+".plan")
}

// forget empties this process's plans, as a new process starts.
func forget() {
	planCache.Lock()
	clear(planCache.m)
	planCache.Unlock()
}

// marked rewrites the kept plan at file with a grant no plan makes, so a
// plan read from it can be told from one made again.
func marked(t *testing.T, file string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no plan was kept: %v", err)
	}
	s := string(b)
	for _, net := range []string{"\nnet 0\n", "\nnet 1\n"} {
		s = strings.Replace(s, net, net+`W d "/marker"`+"\n", 1)
	}
	if s == string(b) {
		t.Fatalf("the kept plan has no network record:\n%s", b)
	}
	if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// hasMarker reports whether p's helper would be sent the marked plan.
func hasMarker(t *testing.T, p Policy) bool {
	t.Helper()
	enc, err := cachedArgs(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(enc, `"/marker"`)
}

// keptPlanUsed makes p's plan, marks the kept copy and reports whether
// a new process uses it. The plan carves the shared temporary directory
// (the fixture's home is in it), so another program's file there makes
// it stale meanwhile: it tries a few times.
func keptPlanUsed(t *testing.T, p Policy, file string) bool {
	t.Helper()
	for range 5 {
		forget()
		CachedPlan(p)
		marked(t, file)
		forget()
		if hasMarker(t, p) {
			return true
		}
	}
	return false
}

// Not parallel: it empties the process's plan cache.
func TestAKeptPlanServesTheNextProcessUntilSomethingItWasMadeFromChanges(t *testing.T) {
	p, file := keptPolicy(t)
	if !keptPlanUsed(t, p, file) {
		t.Fatal("the kept plan was not used by the next process")
	}
	// A file added to the home directory (carved around the
	// credentials): the plan is made again, and lets it be read.
	late := filepath.Join(p.Writable[0], "late.txt")
	if CachedPlan(p).AllowsRead(late) {
		t.Fatal("the test proves nothing: the kept plan lets a file that did not exist be read")
	}
	if err := os.WriteFile(late, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	forget()
	if hasMarker(t, p) || !CachedPlan(p).AllowsRead(late) {
		t.Error("a kept plan was used after the directory it carved changed")
	}
}

// Not parallel: it empties the process's plan cache and swaps the build.
func TestAKeptPlanIsUsedOnlyWhenNoCommandCouldHaveWrittenIt(t *testing.T) {
	oldIdentity := identity
	t.Cleanup(func() { identity = oldIdentity })
	tests := []struct {
		name   string
		tamper func(t *testing.T, p *Policy, file string)
	}{
		{"kept outside the protected directories", func(t *testing.T, p *Policy, file string) {
			p.PlanDir = filepath.Join(p.Writable[1], "plans") // where a command could write
			if err := os.Rename(file, filepath.Join(p.PlanDir, filepath.Base(file))); err != nil {
				t.Fatal(err)
			}
		}},
		{"writable by others", func(t *testing.T, p *Policy, file string) {
			if err := os.Chmod(file, 0o666); err != nil {
				t.Fatal(err)
			}
		}},
		{"a symbolic link", func(t *testing.T, p *Policy, file string) {
			moved := filepath.Join(filepath.Dir(file), "elsewhere")
			if err := os.Rename(file, moved); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(moved, file); err != nil {
				t.Fatal(err)
			}
		}},
		{"another policy's plan under this one's name", func(t *testing.T, p *Policy, file string) {
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			key := keyOfPolicy(t, *p)
			other := strings.Replace(string(b), "key "+key, "key 0"+key[1:], 1)
			if other == string(b) {
				other = strings.Replace(string(b), "key "+key, "key 1"+key[1:], 1)
			}
			if err := os.WriteFile(file, []byte(other), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"cut short", func(t *testing.T, p *Policy, file string) {
			if err := os.Truncate(file, 100); err != nil {
				t.Fatal(err)
			}
		}},
		{"kept by another build's sandbox code", func(t *testing.T, p *Policy, file string) {
			identity = func() string { return "another build" }
			t.Cleanup(func() { identity = oldIdentity })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, file := keptPolicy(t)
			// The control: untouched, the kept plan is used.
			if !keptPlanUsed(t, p, file) {
				t.Fatal("the kept plan was not used even untouched")
			}
			tt.tamper(t, &p, file)
			forget()
			if hasMarker(t, p) {
				t.Errorf("a kept plan %s was used", tt.name)
			}
		})
	}
}

func keyOfPolicy(t *testing.T, p Policy) string {
	t.Helper()
	return keyOf(p.key())
}

// Every field of a policy but PlanDir changes its plan, so each must
// change its key: a field added to Policy or Secret and not to key
// would let two policies share a plan.
func TestAPolicysKeyNamesEveryFieldItsPlanReads(t *testing.T) {
	t.Parallel()
	base := Policy{Writable: []string{"/w"}, Protected: []string{"/p"}, Readable: []string{"/r"}, Hidden: []Secret{{Path: "/h", Grant: "~/h", Except: []string{"x"}}}}
	changed := map[string]func(p *Policy){
		"Writable":     func(p *Policy) { p.Writable = []string{"/w2"} },
		"Protected":    func(p *Policy) { p.Protected = append(p.Protected, "/p2") },
		"ConfineReads": func(p *Policy) { p.ConfineReads = true },
		"Readable":     func(p *Policy) { p.Readable = nil },
		"Hidden":       func(p *Policy) { p.Hidden = nil },
		"Network":      func(p *Policy) { p.Network = true },
		"Hidden.Path":  func(p *Policy) { p.Hidden = []Secret{{Path: "/h2", Grant: "~/h", Except: []string{"x"}}} },
		"Hidden.Grant": func(p *Policy) { p.Hidden = []Secret{{Path: "/h", Grant: "~/h2", Except: []string{"x"}}} },
		"Hidden.Except": func(p *Policy) {
			p.Hidden = []Secret{{Path: "/h", Grant: "~/h", Except: []string{"x", "y"}}}
		},
		"a path split differently": func(p *Policy) { p.Writable = []string{"/w", ""}; p.Protected = []string{"/p"} },
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Policy{})) {
		if _, ok := changed[f.Name]; !ok && f.Name != "PlanDir" {
			t.Errorf("Policy.%s is not in the key's test: add it to key and here", f.Name)
		}
	}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Secret{})) {
		if _, ok := changed["Hidden."+f.Name]; !ok {
			t.Errorf("Secret.%s is not in the key's test: add it to key and here", f.Name)
		}
	}
	for name, change := range changed {
		p := base
		change(&p)
		if string(p.key()) == string(base.key()) {
			t.Errorf("a policy with another %s has the same key", name)
		}
	}
	p := base
	p.PlanDir = "/elsewhere"
	if string(p.key()) != string(base.key()) {
		t.Error("where plans are kept changes the key")
	}
}

func TestAKeptPlanReadsBackAsItWasWritten(t *testing.T) {
	t.Parallel()
	p, _ := keptPolicy(t)
	p.Network = false
	c := newCachedPlan(p, p.Plan())
	c.paths, c.stamps = []string{"/a b", "/ü\n"}, []stamp{{dev: 1, ino: 2, ctime: 3, mtime: 4, stat2: 5}, {}}
	c.ids, c.idStamps = []string{"/"}, []stamp{{dev: 1<<63 + 7, ino: 1<<64 - 1}}
	dir := t.TempDir()
	key := keyOfPolicy(t, p)
	if err := keep(dir, key, c); err != nil {
		t.Fatal(err)
	}
	got := loadKept(dir, key)
	if got == nil {
		t.Fatal("the plan just kept does not read back")
	}
	if got.enc != c.enc || jsonOf(t, got.Plan()) != jsonOf(t, c.Plan()) || jsonOf(t, got.args) != jsonOf(t, c.args) {
		t.Errorf("read back differently:\n%s\n%s", got.enc, c.enc)
	}
	if !slices.Equal(got.paths, c.paths) || !slices.Equal(got.stamps, c.stamps) || !slices.Equal(got.ids, c.ids) || !slices.Equal(got.idStamps, c.idStamps) {
		t.Errorf("stamps read back differently: %v %v / %v %v", got.paths, got.stamps, got.ids, got.idStamps)
	}
	if loadKept(dir, "f"+key[1:]) != nil && key[0] != 'f' {
		t.Error("a plan was read for another key")
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// resetPreload lets a test preload again (PreloadPlans works once per
// process).
func resetPreload(t *testing.T) {
	t.Helper()
	preloaded.Lock()
	done := preloaded.done
	preloaded.Unlock()
	if done != nil {
		<-done
	}
	preloaded.Lock()
	preloaded.dir, preloaded.done, preloaded.plans = "", nil, nil
	preloaded.Unlock()
}

// Not parallel: it empties the process's plan cache and preloads.
func TestPreloadedPlansAreCheckedLikeKeptOnes(t *testing.T) {
	t.Cleanup(func() { resetPreload(t) })
	p, file := keptPolicy(t)
	if !keptPlanUsed(t, p, file) {
		t.Fatal("the kept plan was not used even untouched")
	}
	preload := func() {
		resetPreload(t)
		forget()
		PreloadPlans(p.PlanDir)
		preloaded.Lock()
		done := preloaded.done
		preloaded.Unlock()
		<-done // read before the test changes anything
	}

	// Used: read before the policy was known.
	preload()
	os.Remove(file) // only the preloaded copy is left
	if !hasMarker(t, p) {
		t.Fatal("the preloaded plan was not used")
	}

	// Stale by the time it is used: made again.
	forget()
	CachedPlan(p) // nothing kept any more: keeps a fresh one
	marked(t, file)
	preload()
	late := filepath.Join(p.Writable[0], "late.txt")
	if err := os.WriteFile(late, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if hasMarker(t, p) || !CachedPlan(p).AllowsRead(late) {
		t.Error("a preloaded plan was used after the directory it carved changed")
	}

	// A file under another name than its key's, or that others may write.
	for _, tamper := range []func(){
		func() {
			other := strings.Repeat("0", 32)
			if strings.HasPrefix(filepath.Base(file), other) {
				other = strings.Repeat("1", 32)
			}
			if err := os.Rename(file, filepath.Join(filepath.Dir(file), other+".plan")); err != nil {
				t.Fatal(err)
			}
		},
		func() { os.Chmod(file, 0o666) },
	} {
		if !keptPlanUsed(t, p, file) {
			t.Fatal("the kept plan was not used even untouched")
		}
		tamper()
		preload()
		if hasMarker(t, p) {
			t.Error("a preloaded plan that failed a check was used")
		}
	}
}

// /dev/fd and /dev/stdin lead into /proc/self: a plan that granted where
// they led would name this process's id and never be fresh in another.
func TestAPlanDoesNotDependOnTheProcessMakingIt(t *testing.T) {
	t.Parallel()
	if _, err := os.Readlink("/dev/fd"); err != nil {
		t.Skip("no /dev/fd link here")
	}
	// /dev is carved around the raw devices, so its links are judged.
	p := Policy{Hidden: RawDevices(nil)}
	pl := p.Plan()
	self := "/proc/" + strconv.Itoa(os.Getpid())
	b, _ := json.Marshal(pl)
	if strings.Contains(string(b), self) || slices.ContainsFunc(pl.linked, func(l string) bool { return strings.HasPrefix(l, "/proc/") }) {
		t.Errorf("the plan names this process's /proc entries:\n%s", b)
	}
}
