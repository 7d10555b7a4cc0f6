package python_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/plugins/python"
)

func TestScaffoldWritesAToolAndATestThatPasses(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), ".toolhost")
	path, test, err := python.Scaffold(cfg, "greet")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := python.Scaffold(cfg, "greet"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("a second scaffold overwrote: %v", err)
	}
	if _, _, err := python.Scaffold(cfg, "my-tool"); err == nil {
		t.Fatal("a name that is no Python identifier was scaffolded")
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "def greet(") {
		t.Fatalf("tool = %s", b)
	}
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3 to run the scaffolded test")
	}
	out, err := exec.Command(py, "-m", "unittest", "discover", "-s", filepath.Dir(test)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "OK") {
		t.Fatalf("the scaffolded test: %v\n%s", err, out)
	}
}
