package pytool_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/pytool"
	"github.com/toolhost/toolhost/internal/pytool/pytooltest"
	"github.com/toolhost/toolhost/plugins"
)

// warmFile loads testdata/name with a pool, so a call's time is the
// script's own.
func warmFile(t *testing.T, name string) *pytool.File {
	t.Helper()
	f, err := pytool.Load(context.Background(), "testdata/"+name, pytool.LoadOptions{Runtime: pytooltest.Runtime(t), CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close(context.Background()) })
	return f
}

func TestRunawayScriptsAreStoppedAtTheirLimits(t *testing.T) {
	f := warmFile(t, "runaway.py")
	tests := []struct {
		name, id string
		lim      pytool.Limits
		want     error
		within   time.Duration
	}{
		{"an endless loop is stopped within a second of its time limit", "runaway_spin", pytool.Limits{Timeout: time.Second, MemoryMaxMB: 256}, plugins.ErrTimeout, 2 * time.Second},
		{"a memory bomb is stopped at its memory limit", "runaway_bomb", pytool.Limits{Timeout: time.Minute, MemoryMaxMB: 96}, plugins.ErrMemoryLimit, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sb := pytool.Sandbox{MemoryMaxMB: tt.lim.MemoryMaxMB}
			f.Warm(sb)
			if !f.WaitIdle(sb, time.Minute) {
				t.Fatal("no instance started")
			}
			start := time.Now()
			_, err := f.Call(context.Background(), def(t, f, tt.id), nil, pytool.CallInfo{}, tt.lim, sb, nil)
			took := time.Since(start)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			t.Logf("stopped after %s: %v", took, err)
			if tt.within > 0 && took > tt.within {
				t.Errorf("stopped after %s, want within %s", took, tt.within)
			}
		})
	}
}
