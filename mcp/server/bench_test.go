package server_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"
)

// BenchmarkReadOverStdio compares toolhost's read tool served by
// `toolhost mcp` with the reference filesystem server's read_text_file, on
// the same 10 KB file, through the same go-sdk client over stdio, one call
// at a time and 16 at once. It reports calls/s and p50/p99 latency.
//
//	go test ./mcp -run '^$' -bench ReadOverStdio -benchtime 2000x
func BenchmarkReadOverStdio(b *testing.B) {
	dir := npmServers(b)
	p := newProject(b, "")
	var content strings.Builder
	for i := 0; content.Len() < 10<<10; i++ {
		fmt.Fprintf(&content, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	file := p.write("ten-kb.txt", content.String()[:10<<10])

	servers := []struct {
		name string
		cmd  func() *exec.Cmd
		call *sdk.CallToolParams
	}{
		{"toolhost", func() *exec.Cmd { return p.command("mcp") }, &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"filePath": file}}},
		{"server-filesystem", func() *exec.Cmd { return exec.Command(npmBin(dir, "mcp-server-filesystem"), p.dir) }, &sdk.CallToolParams{Name: "read_text_file", Arguments: map[string]any{"path": filepath.Join(p.dir, "ten-kb.txt")}}},
	}
	for _, srv := range servers {
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: srv.cmd()}, nil)
		if err != nil {
			b.Fatalf("connect %s: %v", srv.name, err)
		}
		// Correctness first: both return the file.
		res, err := cs.CallTool(context.Background(), srv.call)
		if err != nil || res.IsError || !strings.Contains(text(res), "line 0100: the quick brown fox") {
			b.Fatalf("%s did not return the file: %v %.200q", srv.name, err, text(res))
		}
		for _, conc := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/concurrency=%d", srv.name, conc), func(b *testing.B) {
				benchCalls(b, cs, srv.call, conc)
			})
		}
		cs.Close()
	}
}

// BenchmarkReadInMemory is the toolhost side alone: the same read through
// the server, without a process boundary, to tell transport cost from ours.
func BenchmarkReadInMemory(b *testing.B) {
	f := newFixture(b, `{}`)
	f.write(b, "ten-kb.txt", strings.Repeat("line: the quick brown fox jumps over the lazy dog\n", 205))
	cs := f.connect(b, "", nil)
	params := &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"filePath": "ten-kb.txt"}}
	for _, conc := range []int{1, 16} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) { benchCalls(b, cs, params, conc) })
	}
}

func benchCalls(b *testing.B, cs *sdk.ClientSession, params *sdk.CallToolParams, conc int) {
	lat := make([]time.Duration, b.N)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(b.N) {
					return
				}
				t0 := time.Now()
				res, err := cs.CallTool(context.Background(), params)
				lat[i] = time.Since(t0)
				if err != nil || res.IsError {
					failed.Store(fmt.Sprint(err, text(res)))
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	if f := failed.Load(); f != nil {
		b.Fatalf("call failed: %v", f)
	}
	slices.Sort(lat)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "calls/s")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
