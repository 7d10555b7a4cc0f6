package builtins

import (
	"testing"

	"github.com/toolhost/toolhost/runtime/tooltest"
)

func TestEveryBuiltinToolMeetsTheToolContract(t *testing.T) {
	for _, tool := range All(Options{ConfigDirs: []string{t.TempDir()}}) {
		t.Run(tool.ID(), func(t *testing.T) {
			t.Parallel()
			tooltest.Run(t, tool)
		})
	}
}
