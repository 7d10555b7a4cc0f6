package python_test

import (
	"testing"

	"github.com/toolhost/toolhost/runtime/tooltest"
)

// TestPythonToolsConform runs the conformance suite every tool passes on
// the tools of a Python file: ids, descriptions, schemas that compile,
// wrong types refused before Python runs, cancellation, odd input.
func TestPythonToolsConform(t *testing.T) {
	t.Parallel()
	f := load(t, "weather.py", "")
	for _, tl := range f.Tools(nil) {
		t.Run(tl.ID(), func(t *testing.T) { tooltest.Run(t, tl) })
	}
}
