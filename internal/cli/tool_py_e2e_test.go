package cli_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/internal/testkit/e2e"
	"github.com/toolhost/toolhost/plugins/python/pytooltest"
)

// probePy is a Python tool file that tries what a sandbox must refuse
// unless granted. Its tools are probe (files, env, loops), probe_bomb
// (memory) and probe_net (fetch), each configured apart.
const probePy = `import os
import toolhost


@toolhost.tool
def probe(what: str, path: str = "") -> str:
    """Try something the sandbox decides on."""
    if what == "read":
        with open(path) as f:
            return f.read()
    if what == "write":
        with open(path, "w") as f:
            f.write("x")
        return "wrote"
    if what == "env":
        return ",".join(sorted(os.environ))
    if what == "loop":
        while True:
            pass
    return "?"


@toolhost.tool
def bomb() -> str:
    """Take all the memory there is."""
    hoard = []
    while True:
        hoard.append(bytearray(8 << 20))


@toolhost.tool
def net(url: str) -> str:
    """Fetch a URL through the host."""
    r = toolhost.fetch(url)
    return f"{r.status} {r.text()}"
`

const deployPy = `import toolhost


@toolhost.tool
def deploy(target: str, ctx: toolhost.Context) -> dict:
    """Deploy after asking."""
    ctx.metadata(title=f"deploying {target}")
    ctx.ask("deploy_" + target, [target])
    return {"output": f"deployed {target} in session {ctx.session_id}", "title": "deployed", "metadata": {"call": ctx.call_id}}
`

const badPy = `import toolhost


@toolhost.tool
def bad(x: int:
    pass
`

const unsupportedPy = `import toolhost


class Thing:
    pass


@toolhost.tool
def odd(t: Thing) -> str:
    """Takes a thing."""
    return ""
`

// TestPythonToolsRunThroughTheBinaryInTheirSandbox drives real Python
// tool files through `toolhost tools` and `toolhost call`: typed arguments
// and defaults, the docstring, ask and metadata, granted and refused file
// reads, fetch refused and allowed, an endless loop and a memory bomb
// stopped, a syntax error and an unsupported annotation reported with
// file and line.
func TestPythonToolsRunThroughTheBinaryInTheirSandbox(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "hi from "+r.URL.Path) }))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.LastIndex(host, ":")]

	p := e2e.NewProject(t)
	pytooltest.SeedEngine(t, filepath.Join(p.Home, ".cache", "toolhost"))
	p.Env = append(p.Env, "PY_E2E_GRANTED=yes", "PY_E2E_SECRET=no")
	p.Write(".toolhost/tool/weather.py", pythonWeather)
	p.Write(".toolhost/tool/probe.py", probePy)
	p.Write(".toolhost/tool/deploy.py", deployPy)
	bad := p.Write(".toolhost/tool/bad.py", badPy)
	odd := p.Write(".toolhost/tool/odd.py", unsupportedPy)
	p.Write("data/note.txt", "granted note")
	p.Write("toolhost.json", fmt.Sprintf(`{
  "permission": {"deploy_prod": "deny", "deploy_staging": "allow"},
  "wasm": {
    "probe": {"allowed_paths": {"ro:data": "/data"}, "env": ["PY_E2E_GRANTED"], "timeout_ms": 1500},
    "probe_bomb": {"memory_max_mb": 96},
    "probe_net": {"allowed_hosts": [%q]}
  }
}`, host))

	out, stderr, code := p.Run("", "tools")
	if code != 0 {
		t.Fatalf("tools: exit %d: %s%s", code, out, stderr)
	}
	for _, want := range []string{"weather ", "weather_forecast", "Forecast for a city.", "probe_net", "deploy", " python "} {
		if !strings.Contains(out, want) {
			t.Errorf("tools does not list %q:\n%s", want, out)
		}
	}
	for _, want := range []string{bad + ":5: SyntaxError", odd + ":9: odd: parameter t: unsupported annotation"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("tools does not report %q:\n%s", want, stderr)
		}
	}

	tests := []struct {
		name, tool, args string
		wantCode         int
		want             string // in stdout, or stderr when the call fails
		within           time.Duration
		notWant          string // in stdout
		wantStderr       string // on stderr, as well as want
	}{
		{"typed arguments and their defaults reach the function", "weather", `{"city":"Oslo","days":3}`, 0, "Oslo: 3 day(s) in c, verbose=False", 0, "", ""},
		{"an exception is the tool's error", "weather_forecast", `{"cities":[]}`, 1, "ValueError: no cities given", 0, "", ""},
		{"ask allowed by a rule lets the tool go on, with its live metadata", "deploy", `{"target":"staging"}`, 0, "deployed staging in session", 0, "", "deploying staging"},
		{"ask denied by a rule stops the tool", "deploy", `{"target":"prod"}`, 3, "deploy_prod", 0, "", ""},
		{"a file under a granted path is read", "probe", `{"what":"read","path":"/data/note.txt"}`, 0, "granted note", 0, "", ""},
		{"a file outside the granted paths is not there", "probe", `{"what":"read","path":"/etc/passwd"}`, 1, "FileNotFoundError", 0, "", ""},
		{"a read-only grant refuses writes", "probe", `{"what":"write","path":"/data/new.txt"}`, 1, "Error", 0, "", ""},
		{"only the granted environment variable is seen", "probe", `{"what":"env"}`, 0, "PY_E2E_GRANTED", 0, "PY_E2E_SECRET", ""},
		{"fetch to a listed host is made", "probe_net", fmt.Sprintf(`{"url":%q}`, srv.URL+"/x"), 0, "200 hi from /x", 0, "", ""},
		{"fetch by a tool with no allowed_hosts is refused", "weather_fetch", fmt.Sprintf(`{"url":%q}`, srv.URL+"/x"), 1, "allowed_hosts", 0, "", ""},
		{"an endless loop is stopped at its time limit", "probe", `{"what":"loop"}`, 1, "timed out after 1.5s", 40 * time.Second, "", ""},
		{"a memory bomb is stopped at its memory limit", "probe_bomb", `{}`, 1, "exceeded its memory limit (96 MB)", 0, "", ""},
	}
	// Each call is its own process, as calls from a shell are: they run
	// side by side (each starts its own Python, seconds on two cores).
	t.Run("calls", func(t *testing.T) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				q := *p
				q.T = t
				start := time.Now()
				out, stderr, code := q.Run("", "call", tt.tool, tt.args)
				got := out
				if code != 0 {
					got = stderr
				}
				if code != tt.wantCode || !strings.Contains(got, tt.want) {
					t.Fatalf("call %s %s: exit %d (want %d), want %q in:\n%s%s", tt.tool, tt.args, code, tt.wantCode, tt.want, out, stderr)
				}
				if tt.within > 0 && time.Since(start) > tt.within {
					t.Errorf("took %s", time.Since(start))
				}
				if tt.notWant != "" && strings.Contains(out, tt.notWant) {
					t.Errorf("%q reached the output:\n%s", tt.notWant, out)
				}
				if !strings.Contains(stderr, tt.wantStderr) {
					t.Errorf("want %q on stderr:\n%s", tt.wantStderr, stderr)
				}
			})
		}
	})
}

const pythonWeather = `from typing import Annotated, Literal, Optional

import toolhost


@toolhost.tool
def weather(city: str, days: int = 1, unit: Literal["c", "f"] = "c", verbose: bool = False) -> str:
    """Forecast for a city.

    Args:
        city: the city's name
        days: how many days ahead
    """
    return f"{city}: {days} day(s) in {unit}, verbose={verbose}"


@toolhost.tool
def forecast(cities: list[str], note: Annotated[Optional[str], "a note"] = None) -> dict:
    """Several cities at once."""
    if not cities:
        raise ValueError("no cities given")
    return {"output": ", ".join(cities), "title": "forecast", "metadata": {"n": len(cities), "note": note}}


@toolhost.tool
def fetch(url: str) -> str:
    """Fetch with nothing granted."""
    return toolhost.fetch(url).text()
`

// TestToolNewPythonScaffoldsAToolThatRunsWithoutABuild: `tool new --lang
// python` writes a tool and its test; `toolhost tools` lists it as python
// and `toolhost call` runs it, with no build step.
func TestToolNewPythonScaffoldsAToolThatRunsWithoutABuild(t *testing.T) {
	t.Parallel()
	p := e2e.NewProject(t)
	pytooltest.SeedEngine(t, filepath.Join(p.Home, ".cache", "toolhost"))
	out, stderr, code := p.Run("", "tool", "new", "greet", "--lang", "python")
	if code != 0 || !strings.Contains(out, filepath.Join(".toolhost", "tool", "greet.py")) || !strings.Contains(out, "test_greet.py") {
		t.Fatalf("tool new: exit %d: %s%s", code, out, stderr)
	}
	out, stderr, code = p.Run("", "tools")
	if code != 0 || !strings.Contains(out, "greet") || !strings.Contains(out, " python ") || strings.Contains(stderr, "skipped") {
		t.Fatalf("tools: exit %d: %s%s", code, out, stderr)
	}
	out, stderr, code = p.Run("", "call", "greet", `{"name": "Zoë", "excited": true}`)
	if code != 0 || strings.TrimSpace(out) != "hello Zoë!" {
		t.Fatalf("call: exit %d: %q %s", code, out, stderr)
	}
}
