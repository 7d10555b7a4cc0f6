package server_test

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkStdioRead is the server's side of a tools/call read of a 10 KB
// file over the stdio connection, in process and without an MCP client:
// the request line is written as the go-sdk client writes it (the
// 2026-07-28 protocol, whose _meta every request carries) and the
// response line read back. The baseline, in the same run, is a ping over
// the same connection. cpu-µs/op is the CPU time of the whole process
// (server and this client) per call. For profiles of the server's own code:
//
//	go test ./mcp/server -run '^$' -bench StdioRead -cpuprofile cpu.out
func BenchmarkStdioRead(b *testing.B) {
	f := newFixture(b, "")
	var content strings.Builder
	for i := 0; content.Len() < 10<<10; i++ {
		fmt.Fprintf(&content, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	file := f.write(b, "ten-kb.txt", content.String()[:10<<10])
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"v0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	requests := map[string]string{
		"ping": `{"jsonrpc":"2.0","id":%d,"method":"ping","params":{` + meta + `}}`,
		"read": `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{` + meta + `,"name":"read","arguments":{"filePath":"` + file + `"}}}`,
	}
	for _, name := range []string{"ping", "read"} {
		b.Run(name, func(b *testing.B) {
			w := newWireOn(b, f)
			w.send(fmt.Sprintf(requests[name], 0))
			if got := w.recv(); !strings.Contains(got, `"id":0`) || (name == "read" && !strings.Contains(got, "line 0100: the quick brown fox")) {
				b.Fatalf("%s: %.300s", name, got)
			}
			b.ReportAllocs()
			before := selfCPU(b)
			b.ResetTimer()
			for i := range b.N {
				w.send(fmt.Sprintf(requests[name], i+1))
				w.recv()
			}
			b.StopTimer()
			b.ReportMetric(float64((selfCPU(b)-before).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}
