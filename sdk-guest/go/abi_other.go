//go:build !wasip1

package tool

// Outside wasm there is no Extism host: these keep the package buildable
// (and its schema reflector testable) on the developer's machine, and
// report clearly when a tool is run natively by mistake.

const notWasm = "toolhost guest SDK: not running inside a toolhost wasm host; build with GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared"

func readInput() []byte               { return nil }
func setOutput([]byte)                {}
func setError(string)                 {}
func configGet(string) (string, bool) { return "", false }

func callHost(func(uint64) uint64, []byte) []byte { panic(notWasm) }

var (
	fnAsk      = func(uint64) uint64 { panic(notWasm) }
	fnMetadata = fnAsk
	fnLog      = fnAsk
	fnStateGet = fnAsk
	fnStateSet = fnAsk
	fnSample   = fnAsk
	fnElicit   = fnAsk
	fnCall     = fnAsk
)

func httpRequest([]byte, []byte) (int, []byte) { panic(notWasm) }
