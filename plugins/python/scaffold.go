package python

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Langs are the --lang values `toolhost tool new` scaffolds with Scaffold.
var Langs = []string{"python", "py"}

// IsLang reports whether lang names Python.
func IsLang(lang string) bool {
	for _, l := range Langs {
		if strings.EqualFold(lang, l) {
			return true
		}
	}
	return false
}

// A Python tool's name is its file's and its function's: an identifier
// that model APIs also accept.
var scaffoldName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]{0,47}$`) })

// Scaffold writes configDir/tool/<name>.py, a tool that runs as it is,
// and configDir/tool/tests/test_<name>.py, a unittest of its function
// that runs with any python3 (outside the sandbox, with a stand-in for
// the toolhost module). It refuses to overwrite either file.
func Scaffold(configDir, name string) (path, test string, err error) {
	if !scaffoldName().MatchString(name) {
		return "", "", fmt.Errorf("tool name %q: a Python tool's name is its function's: letters, digits and _, not starting with a digit (at most 48)", name)
	}
	path = filepath.Join(configDir, "tool", name+".py")
	test = filepath.Join(configDir, "tool", "tests", "test_"+name+".py")
	for _, p := range []string{path, test} {
		if _, err := os.Stat(p); err == nil {
			return "", "", fmt.Errorf("%s already exists; choose another name or edit it", p)
		}
	}
	for p, src := range map[string]string{path: pyTemplate, test: pyTestTemplate} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", "", err
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(src, "NAME", name)), 0o644); err != nil {
			return "", "", err
		}
	}
	return path, test, nil
}

const pyTemplate = `import toolhost


# NAME runs inside toolhost's WebAssembly sandbox (CPython 3.12 for WASI):
# no files, network or environment unless the config grants them:
# "wasm": {"NAME": {"allowed_hosts": [...], "allowed_paths": {...}, "env": [...]}}.
@toolhost.tool
def NAME(name: str, excited: bool = False, ctx: toolhost.Context = None) -> str:
    """Say hello to someone.

    Args:
        name: who to greet
        excited: end with an exclamation mark
    """
    if ctx is not None:
        ctx.metadata(title=f"greeting {name}")
    return f"hello {name}{'!' if excited else '.'}"
`

const pyTestTemplate = `# Tests for ../NAME.py, run with any python3:
#   python3 -m unittest discover -s .toolhost/tool/tests
# Outside toolhost there is no toolhost module; a stand-in marks tools and
# records what the tool asks for and shows.
import pathlib
import sys
import types
import unittest

try:
    import toolhost
except ImportError:
    toolhost = types.ModuleType("toolhost")
    toolhost.tool = lambda fn=None, **kw: fn if fn is not None else (lambda f: f)

    class Context:
        def __init__(self):
            self.titles, self.asked = [], []

        def metadata(self, title=None, metadata=None):
            self.titles.append(title)

        def ask(self, permission, patterns=(), always=(), metadata=None):
            self.asked.append(permission)

    toolhost.Context = Context
    sys.modules["toolhost"] = toolhost

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))
import NAME as tool  # noqa: E402


class TestNAME(unittest.TestCase):
    def test_greets(self):
        self.assertEqual(tool.NAME("Ada"), "hello Ada.")

    def test_excited_and_shows_a_title(self):
        ctx = toolhost.Context()
        self.assertEqual(tool.NAME("Ada", excited=True, ctx=ctx), "hello Ada!")
        self.assertEqual(ctx.titles, ["greeting Ada"])


if __name__ == "__main__":
    unittest.main()
`
