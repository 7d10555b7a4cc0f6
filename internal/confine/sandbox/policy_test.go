package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPlan(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mk := func(p string) string {
		p = filepath.Join(root, p)
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	work, cache, data := mk("work"), mk("cache"), mk("share/toolhost")
	thCache, goCache := mk("cache/toolhost"), mk("cache/go-build")
	if err := os.WriteFile(filepath.Join(cache, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(thCache, filepath.Join(cache, "sneaky")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(work, filepath.Join(root, "worklink")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		policy  Policy
		grants  []Grant
		carved  []string
		skipped []string
	}{
		{
			name:   "a root without protected directories beneath is granted whole",
			policy: Policy{Writable: []string{work}, Protected: []string{data}},
			grants: []Grant{{work, true}},
		},
		{
			name:    "a missing or relative root is skipped",
			policy:  Policy{Writable: []string{filepath.Join(root, "missing"), "relative/dir"}},
			skipped: []string{filepath.Join(root, "missing"), "relative/dir"},
		},
		{
			name:   "a symbolic link to a root grants the root once",
			policy: Policy{Writable: []string{filepath.Join(root, "worklink"), work}},
			grants: []Grant{{work, true}},
		},
		{
			name:    "a protected directory beneath a root is carved out, links into it included",
			policy:  Policy{Writable: []string{cache}, Protected: []string{thCache}},
			grants:  []Grant{{filepath.Join(cache, "file"), false}, {goCache, true}},
			carved:  []string{cache},
			skipped: []string{filepath.Join(cache, "sneaky"), thCache},
		},
		{
			name:    "a root inside a protected directory is not granted",
			policy:  Policy{Writable: []string{data}, Protected: []string{filepath.Join(root, "share")}},
			skipped: []string{data},
		},
		{
			name:    "a protected directory that does not exist yet still carves its existing parent",
			policy:  Policy{Writable: []string{root}, Protected: []string{filepath.Join(work, "later", "toolhost")}},
			grants:  []Grant{{cache, true}, {mk("share"), true}},
			carved:  []string{root, work},
			skipped: []string{filepath.Join(root, "worklink")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pl := tt.policy.Plan()
			if !slices.Equal(pl.Grants, tt.grants) {
				t.Errorf("grants = %v, want %v", pl.Grants, tt.grants)
			}
			if !slices.Equal(pl.Carved, tt.carved) {
				t.Errorf("carved = %v, want %v", pl.Carved, tt.carved)
			}
			var skipped []string
			for _, s := range pl.Skipped {
				skipped = append(skipped, s.Path)
			}
			if !slices.Equal(skipped, tt.skipped) {
				t.Errorf("skipped = %v, want %v (%v)", skipped, tt.skipped, pl.Skipped)
			}
		})
	}
}

func TestThePlanRoundTripsThroughTheHelperArgument(t *testing.T) {
	t.Parallel()
	a := helperArgs{Write: []Grant{{"/a b", true}}, Read: []Grant{{"/ü\n", false}}, List: []string{"/"}, Network: false}
	s, err := a.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeHelperArgs(s)
	if err != nil || !slices.Equal(got.Write, a.Write) || !slices.Equal(got.Read, a.Read) || !slices.Equal(got.List, a.List) || got.Network {
		t.Errorf("decode(encode(a)) = %+v, %v", got, err)
	}
	for _, bad := range []string{
		"", "null x", `{"write": "/"}`, argsHeader, // no network setting
		argsHeader + "\nnet 1\nnet 0", // twice
		argsHeader + "\nnet 2",
		argsHeader + "\nnet 0\nW d /unquoted",
		argsHeader + "\nnet 0\nW x \"/a\"",
		argsHeader + "\nnet 0\nR d \"relative\"",
		argsHeader + "\nnet 0\nL \"/a",
		argsHeader + "\nnet 0\nX \"/a\"",
		argsHeader + "\nnet 0\n",
		"toolhost-sandbox-plan 0\nnet 0",
	} {
		if _, err := decodeHelperArgs(bad); err == nil {
			t.Errorf("decodeHelperArgs(%q) accepted a malformed plan", bad)
		}
	}
}

func TestRefusals(t *testing.T) {
	t.Parallel()
	in, out := t.TempDir(), t.TempDir()
	plan := Policy{Writable: []string{in}}.Plan()
	data, err := os.ReadFile("testdata/refusals.txt")
	if err != nil {
		t.Fatal(err)
	}
	cases := strings.Split(string(data), "\n== ")[1:]
	if len(cases) < 10 {
		t.Fatalf("corpus has %d cases", len(cases))
	}
	for _, c := range cases {
		head, body, _ := strings.Cut(c, "\n")
		name, want, _ := strings.Cut(head, " | ")
		t.Run(name, func(t *testing.T) {
			body = strings.ReplaceAll(strings.ReplaceAll(body, "OUT", out), "IN", in)
			var got []string
			for _, r := range Refusals(body, plan, "", nil) {
				got = append(got, strings.Replace(r.Path, out, "OUT", 1))
			}
			var wantPaths []string
			if want != "-" {
				wantPaths = strings.Split(want, ",")
			}
			if !slices.Equal(got, wantPaths) {
				t.Errorf("Refusals = %v, want %v", got, wantPaths)
			}
		})
	}
}

func TestRefusalsNamesProtectedStateAndTheDirectoryToGrant(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	data := filepath.Join(out, "toolhost")
	rs := Refusals("bash: "+data+"/sessions.db: Permission denied\nmkdir: cannot create directory '"+out+"': Permission denied", Policy{}.Plan(), "", []string{data})
	if len(rs) != 2 || !rs[0].Protected || rs[0].Dir != data || rs[1].Protected || rs[1].Dir != out {
		t.Errorf("Refusals = %+v", rs)
	}
	// A huge hostile output is read only so far.
	huge := strings.Repeat("Permission denied /x"+strings.Repeat("a", 10000)+"\n", 5000)
	if rs := Refusals(huge, Plan{}, "", nil); len(rs) > maxRefusals {
		t.Errorf("got %d refusals, want at most %d", len(rs), maxRefusals)
	}
}

func TestRefusalsOfReadsNameWhatToGrant(t *testing.T) {
	t.Parallel()
	home := fakeHome(t)
	project, other := filepath.Join(home, "src", "app"), t.TempDir()
	pl := Policy{ConfineReads: true, Writable: []string{project}, Hidden: HomeSecrets(home, nil)}.Plan()
	out := "grep: " + rel(t, project, other) + "/x: Permission denied\n" +
		"dd: failed to open '" + home + "/.ssh/id_ed25519': Permission denied\n" +
		"cat: ../app/main.go: Permission denied\n"
	rs := Refusals(out, pl, project, nil)
	if len(rs) != 2 {
		t.Fatalf("Refusals = %+v, want the read outside and the key", rs)
	}
	if !rs[0].Read || rs[0].Path != filepath.Join(other, "x") || rs[0].Dir != other || rs[0].Credential != "" {
		t.Errorf("the read outside = %+v", rs[0])
	}
	if !rs[1].Read || rs[1].Credential != "~/.ssh/id_ed25519" {
		t.Errorf("the key = %+v", rs[1])
	}
	if MayHoldRefusal("all fine\n") || !MayHoldRefusal(out) {
		t.Error("MayHoldRefusal is wrong")
	}
}

func rel(t *testing.T, from, to string) string {
	t.Helper()
	r, err := filepath.Rel(from, to)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCarvingJudgesEachEntryByTheProtectedPathsAtOrBelowIt(t *testing.T) {
	t.Parallel()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(root, "home")
	for _, d := range []string{".ssh", ".sshx", ".config/gh", ".config/other"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".ss"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// A name that is a prefix of a protected one's, a protected path
	// written uncleanly and two beneath one entry.
	pl := Policy{Writable: []string{home}, Protected: []string{
		filepath.Join(home, ".ssh"), home + "/.config//gh/", filepath.Join(home, ".config/gh/hosts.yml"), "relative/.ssh",
	}}.Plan()
	wantGrants := []Grant{{filepath.Join(home, ".config/other"), true}, {filepath.Join(home, ".ss"), false}, {filepath.Join(home, ".sshx"), true}}
	if !slices.Equal(pl.Grants, wantGrants) {
		t.Errorf("grants = %v, want %v", pl.Grants, wantGrants)
	}
	if want := []string{home, filepath.Join(home, ".config")}; !slices.Equal(pl.Carved, want) {
		t.Errorf("carved = %v, want %v", pl.Carved, want)
	}
	var skipped []string
	for _, s := range pl.Skipped {
		skipped = append(skipped, s.Path)
	}
	if want := []string{filepath.Join(home, ".config/gh"), filepath.Join(home, ".ssh")}; !slices.Equal(skipped, want) {
		t.Errorf("skipped = %v, want %v", skipped, want)
	}
}
