package wasm

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

func TestInstrumentOnceAnswersAsInstrumentLoopsAndStaysWithinItsBudget(t *testing.T) {
	// Not parallel: it reads and resets the process's memo.
	for _, tt := range []struct {
		name string
		data []byte
	}{
		{"a module", tinyGuest(tiny{output: "memo"})},
		{"a module with a loop", tinyGuest(tiny{recurse: 3})},
		{"not a module", []byte("not wasm at all")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, _, wantErr := instrumentLoops(tt.data)
			for i := range 2 { // made, then remembered
				got, err := instrumentOnce(tt.data)
				if !bytes.Equal(got, want) || (err == nil) != (wantErr == nil) {
					t.Fatalf("call %d: %d bytes, %v; instrumentLoops gives %d bytes, %v", i, len(got), err, len(want), wantErr)
				}
			}
		})
	}

	m := &instrumentMemo
	m.mu.Lock()
	size, n := m.size, len(m.byKey)
	m.mu.Unlock()
	if n == 0 || size <= 0 || size > memoBudget {
		t.Fatalf("memo holds %d entries, %d bytes; want some, within %d", n, size, memoBudget)
	}
	// Modules that together pass the budget push the oldest out.
	var first [32]byte
	for i := range 12 {
		data := tinyGuest(tiny{output: fmt.Sprint(i) + strings.Repeat("x", 8<<20)})
		if _, err := instrumentOnce(data); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = sha256.Sum256(data)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.size > memoBudget || len(m.order) != len(m.byKey) {
		t.Fatalf("memo at %d bytes (budget %d), %d keys in order, %d kept", m.size, memoBudget, len(m.order), len(m.byKey))
	}
	if _, ok := m.byKey[first]; ok {
		t.Error("96 MB of modules went through a 64 MB memo and the first is still there")
	}
}
