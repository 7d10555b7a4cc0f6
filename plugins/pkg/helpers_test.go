package pkg

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolhost/toolhost/plugins/wasm"
)

// needs skips a test whose tool is missing, and fails it in CI, where
// everything must run.
func needs(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: %v", what, err)
	}
	t.Skipf("skipped: %s: %v (this fails in CI)", what, err)
}

// fakeModule is enough for tests that never run the module.
var fakeModule = []byte("\x00asm\x01\x00\x00\x00")

// writePlugin writes a plugin directory with one module.
func writePlugin(t testing.TB, dir, name, version string, caps wasm.Capabilities, module []byte) string {
	t.Helper()
	m := wasm.Manifest{Name: name, Version: version, ABI: "toolhost-abi 1", Modules: []string{name + ".wasm"}, Capabilities: caps}
	b, _ := json.MarshalIndent(m, "", "  ")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, wasm.ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".wasm"), module, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pack packs a plugin directory.
func pack(t testing.TB, dir string) []byte {
	t.Helper()
	b, _, err := Pack(dir)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// consentLog records consent requests and answers with answer.
type consentLog struct {
	mu     sync.Mutex
	asked  []ConsentRequest
	answer bool
}

func (c *consentLog) ask(_ context.Context, req ConsentRequest) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked = append(c.asked, req)
	return c.answer, nil
}

func (c *consentLog) requests() []ConsentRequest {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]ConsentRequest(nil), c.asked...)
}

// newManager returns a manager with its own project and cache.
func newManager(t testing.TB, consent *consentLog) *Manager {
	t.Helper()
	project := t.TempDir()
	m := &Manager{Cache: Cache{Dir: t.TempDir()}, LockPath: filepath.Join(project, LockFile), Base: project}
	if consent != nil {
		m.Consent = consent.ask
	}
	return m
}

// registryVersion is the CNCF distribution registry the OCI tests run.
const registryVersion = "v3.1.2"

var registryBuild struct {
	once sync.Once
	bin  string
	err  error
}

// registryBinary installs the registry once per machine into a cache
// under the temp directory, from the module proxy.
func registryBinary(t testing.TB) string {
	t.Helper()
	registryBuild.once.Do(func() {
		dir := filepath.Join(os.TempDir(), "toolhost-test-registry", registryVersion)
		registryBuild.bin = filepath.Join(dir, "registry")
		if _, err := os.Stat(registryBuild.bin); err == nil {
			return
		}
		cmd := exec.Command("go", "install", "github.com/distribution/distribution/v3/cmd/registry@"+registryVersion)
		cmd.Env = append(os.Environ(), "GOBIN="+dir, "GOFLAGS=", "GOWORK=off")
		cmd.Dir = os.TempDir()
		if out, err := cmd.CombinedOutput(); err != nil {
			registryBuild.err = fmt.Errorf("go install the distribution registry: %v\n%s", err, out)
		}
	})
	needs(t, "the CNCF distribution registry", registryBuild.err)
	return registryBuild.bin
}

// startRegistry runs a registry on a loopback port with storage in a
// temp directory, and returns its host:port.
func startRegistry(t testing.TB) string {
	t.Helper()
	bin := registryBinary(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: %s
  delete:
    enabled: true
http:
  addr: %s
`, filepath.Join(dir, "data"), addr)
	cfgPath := filepath.Join(dir, "config.yml")
	os.WriteFile(cfgPath, []byte(cfg), 0o644)
	cmd := exec.Command(bin, "serve", cfgPath)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), "OTEL_TRACES_EXPORTER=none", "OTEL_METRICS_EXPORTER=none", "OTEL_LOGS_EXPORTER=none")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Wait for it to serve; the limit only stops a broken start hanging.
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		resp, err := http.Get("http://" + addr + "/v2/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return addr
			}
		}
		if time.Since(start) > time.Minute {
			t.Fatalf("registry did not start on %s: %v\n%s", addr, err, out.String())
		}
	}
}
