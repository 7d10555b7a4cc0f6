package main_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
)

// benchSessions is how many client sessions drive the replicas at once.
const benchSessions = 64

// benchWindowEnv sets how long each setup is driven (a Go duration);
// default defaultBenchWindow.
const benchWindowEnv = "TOOLHOST_BENCH_WINDOW"

const defaultBenchWindow = 60 * time.Second

// benchSlices is how many turns each setup gets within its window: the
// setups alternate, so load from outside the benchmark (the machine is
// shared) falls on both alike.
const benchSlices = 6

// BenchmarkReplicas drives three `toolhost mcp --http --stateless`
// replicas on one PostgreSQL database behind a round-robin proxy, and, in
// the same run as the baseline, one replica on its bbolt file, each with
// benchSessions concurrent client sessions for the window (issue 16,
// target 6), in benchSlices alternating turns. Every session is a go-sdk
// client of its own doing what an agent does, round after round:
// todowrite then todoread, write a file then read it back, and read a
// file of the project. Everything is on loopback. Run it with
//
//	TOOLHOST_BENCH_WINDOW=60s go test ./cmd/toolhost -run '^$' -bench Replicas -benchtime 1x -timeout 30m
//
// and read, per setup (pg3: three replicas on PostgreSQL; pg3plain: the
// same with clients that send no toolhost metadata; bolt1: one on bbolt),
// calls/s, p50-ms, p99-ms and errors (which must be 0), and pg3/bolt1 and
// pg3plain/pg3, the ratios of their throughputs.
func BenchmarkReplicas(b *testing.B) {
	window := defaultBenchWindow
	if v := os.Getenv(benchWindowEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			b.Fatalf("%s=%q: want a positive duration such as 60s", benchWindowEnv, v)
		}
		window = d
	}
	setups := []struct {
		name     string
		replicas int
		storeURL string
		// plain sessions send no toolhost/session in _meta: their
		// session is the Mcp-Session-Id the replicas mint (issue 31).
		plain  bool
		front  string
		result loadResult
	}{
		{name: "bolt1", replicas: 1},
		{name: "pg3", replicas: 3, storeURL: pg.Database(b)},
		{name: "pg3plain", replicas: 3, storeURL: pg.Database(b), plain: true},
	}
	for i := range setups {
		s := &setups[i]
		p := e2e.NewProject(b)
		p.Write("README.md", strings.Repeat("toolhost serves tools to agents.\n", 200))
		lb := &roundRobin{tr: loopbackTransport()}
		for i := range s.replicas {
			lb.rs = append(lb.rs, startReplica(b, p, s.storeURL))
			lb.live = append(lb.live, i)
		}
		front := httptest.NewServer(lb)
		b.Cleanup(front.Close)
		s.front = front.URL + "/"
	}
	slice := window / benchSlices
	for b.Loop() {
		for i := range setups {
			setups[i].result = loadResult{}
		}
		for range benchSlices {
			for i := range setups {
				setups[i].result.add(driveSessions(b, setups[i].front, slice, setups[i].plain))
			}
		}
	}
	for _, s := range setups {
		r := s.result
		slices.Sort(r.latencies)
		b.ReportMetric(float64(r.calls)/window.Seconds(), s.name+"-calls/s")
		b.ReportMetric(r.quantile(0.50), s.name+"-p50-ms")
		b.ReportMetric(r.quantile(0.99), s.name+"-p99-ms")
		b.ReportMetric(float64(r.errors), s.name+"-errors")
		if r.errors > 0 {
			b.Errorf("%s: %d of %d calls failed; the first: %s", s.name, r.errors, r.calls, r.firstErr)
		}
	}
	if bolt := setups[0].result.calls; bolt > 0 {
		b.ReportMetric(float64(setups[1].result.calls)/float64(bolt), "pg3/bolt1")
	}
	if meta := setups[1].result.calls; meta > 0 {
		b.ReportMetric(float64(setups[2].result.calls)/float64(meta), "pg3plain/pg3")
	}
}

// loopbackTransport keeps enough idle connections for every session, so
// the load does not open (and leave in TIME_WAIT) a connection per call.
func loopbackTransport() *http.Transport {
	return &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
		MaxIdleConns:        4 * benchSessions,
		MaxIdleConnsPerHost: 2 * benchSessions,
		IdleConnTimeout:     90 * time.Second,
	}
}

// loadResult is what the sessions measured.
type loadResult struct {
	calls     int
	errors    int
	firstErr  string
	latencies []time.Duration // of every call; sorted before quantile
}

// add merges o into r; sort r.latencies before reading quantiles.
func (r *loadResult) add(o loadResult) {
	r.calls += o.calls
	r.errors += o.errors
	if r.firstErr == "" {
		r.firstErr = o.firstErr
	}
	r.latencies = append(r.latencies, o.latencies...)
}

func (r loadResult) quantile(q float64) float64 {
	if len(r.latencies) == 0 {
		return 0
	}
	return float64(r.latencies[int(q*float64(len(r.latencies)-1))].Microseconds()) / 1000
}

// driveSessions runs benchSessions sessions against endpoint until the
// window ends.
func driveSessions(b *testing.B, endpoint string, window time.Duration, plain bool) loadResult {
	httpClient := &http.Client{Transport: loopbackTransport()}
	sessions := make([]*sdk.ClientSession, benchSessions)
	for i := range sessions {
		c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "v0"}, nil)
		cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: "2026-07-28"})
		if err != nil {
			b.Fatal(err)
		}
		defer cs.Close()
		sessions[i] = cs
	}
	var mu sync.Mutex
	var total loadResult
	deadline := time.Now().Add(window)
	var wg sync.WaitGroup
	for i, cs := range sessions {
		wg.Go(func() {
			r := runSession(cs, fmt.Sprintf("bench_%d", i), deadline, plain)
			mu.Lock()
			defer mu.Unlock()
			total.add(r)
		})
	}
	wg.Wait()
	return total
}

// runSession is one agent's calls, round after round, until deadline;
// plain ones name no toolhost session (the MCP session is theirs).
func runSession(cs *sdk.ClientSession, sid string, deadline time.Time, plain bool) loadResult {
	meta := sdk.Meta{"toolhost/session": sid}
	if plain {
		// A new MCP session is a new toolhost session, which has read
		// no file: it writes its own.
		meta, sid = nil, cs.ID()
	}
	var r loadResult
	file := "work/" + sid + ".txt"
	call := func(tool string, args map[string]any, want string) {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Meta: meta, Name: tool, Arguments: args})
		r.latencies = append(r.latencies, time.Since(start))
		r.calls++
		msg := ""
		switch {
		case err != nil:
			msg = err.Error()
		case res.IsError || res.NeedsInput():
			msg = textOf(res)
		case !strings.Contains(textOf(res), want):
			msg = fmt.Sprintf("the result lacks %q: %s", want, textOf(res))
		}
		if msg != "" {
			r.errors++
			if r.firstErr == "" {
				r.firstErr = tool + ": " + msg
			}
		}
	}
	for round := 0; time.Now().Before(deadline); round++ {
		todo := fmt.Sprintf("step %d of %s", round, sid)
		call("todowrite", map[string]any{"todos": []any{map[string]any{"content": todo, "status": "in_progress", "priority": "high"}}}, "")
		call("todoread", map[string]any{}, todo)
		line := fmt.Sprintf("round %d", round)
		call("write", map[string]any{"filePath": file, "content": line + "\n"}, "")
		call("read", map[string]any{"filePath": file}, line)
		call("read", map[string]any{"filePath": "README.md", "limit": 20}, "toolhost serves tools")
	}
	return r
}
