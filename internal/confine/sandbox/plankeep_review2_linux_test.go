//go:build linux

package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A plan read in advance (PreloadPlans, for `toolhost call bash`) is
// trusted because of where it is kept: the policy's PlanDir, in a
// protected directory no command can write. A kept plan read at use
// (cached, takePreloaded) is taken only from that directory; the plan
// built in advance for a forked command (takeForkPrepared) and the one
// sent in advance to a one-shot helper (startByOneShot) were checked by
// their key alone, which a command can copy from the readable plan
// directory: a plan preloaded from anywhere else (a caller's directory
// that is not the policy's PlanDir, a writable one) confined the command
// by whatever it granted.
//
// Not parallel: it empties the process's plan cache and preloads.
func TestAPlanPreparedInAdvanceIsUsedOnlyFromThePolicysPlanDirectory(t *testing.T) {
	requireLandlock(t, 1)
	for _, byFork := range []bool{true, false} {
		if byFork && !forkSupported {
			continue
		}
		t.Run(wayName(byFork), func(t *testing.T) {
			saved := forkStarts
			forkStarts = byFork
			t.Cleanup(func() {
				forkStarts = saved
				resetPreload(t)
				DropSpare()
				forkPrepared.Lock()
				forkPrepared.on, forkPrepared.done, forkPrepared.c, forkPrepared.ready = false, nil, nil, false
				forkPrepared.Unlock()
			})
			p, file := keptPolicy(t)
			p.Writable = append(p.Writable, Devices...)
			p.Network = true
			file = filepath.Join(p.PlanDir, keyOfPolicy(t, p)[:32]+".plan")
			outside := t.TempDir()
			// What a command writes beneath a writable root: p's kept
			// plan (its key line and all), granting one more directory.
			forged := filepath.Join(p.Writable[1], "plans")
			for attempt := range 5 {
				forget()
				CachedPlan(p)
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatalf("no plan was kept: %v", err)
				}
				s := strings.Replace(string(b), "\nnet 1\n", "\nnet 1\n"+`W d `+strconv.Quote(outside)+"\n", 1)
				if err := os.WriteFile(filepath.Join(forged, filepath.Base(file)), []byte(s), 0o600); err != nil {
					t.Fatal(err)
				}
				resetPreload(t)
				forget()
				Prestart()
				PreloadPlans(forged) // not p.PlanDir
				awaitPrepared(t, byFork)
				target := filepath.Join(outside, "escaped"+strconv.Itoa(attempt))
				out, err := startedWay(t, p, Spawn{Shell: "sh", Args: []string{"-c", `echo x > "$0"`, target}, Env: os.Environ()}, forkStarts)
				if _, serr := os.Stat(target); serr == nil {
					t.Fatalf("attempt %d: a plan preloaded from %s (not the policy's plan directory) confined the command: it wrote %s (%v)\n%s", attempt, forged, target, err, out)
				}
			}
		})
	}
}

// awaitPrepared waits until PreloadPlans has read its plan and handed it
// to prepareSpare; with the one-shot helper, until the helper was sent
// it, or a while.
func awaitPrepared(t *testing.T, byFork bool) {
	t.Helper()
	preloaded.Lock()
	done := preloaded.done
	preloaded.Unlock()
	<-done
	if byFork {
		return
	}
	spare := pendingSpare()
	if spare == nil {
		t.Fatal("Prestart started no helper")
	}
	<-spare.started
	if spare.o == nil {
		t.Fatal("Prestart's helper did not start")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		spare.o.mu.Lock()
		sent := spare.o.prepared != nil
		spare.o.mu.Unlock()
		if sent {
			return
		}
	}
}
