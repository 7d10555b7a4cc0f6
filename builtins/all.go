package builtins

import "github.com/toolhost/toolhost/runtime"

// Options configure the built-in tool set.
type Options struct {
	// ConfigDirs are searched for skills (skill/ and skills/).
	ConfigDirs []string
}

// All returns every built-in tool. The registry decides which of them an
// agent and model are offered (apply_patch vs edit/write, batch behind a
// flag, question only where a person can answer).
func All(opts Options) []runtime.Tool {
	return []runtime.Tool{
		Read(), Write(), Edit(), MultiEdit(), ApplyPatch(),
		Glob(), Grep(), List(),
		Bash(), WebFetch(),
		TodoWrite(), TodoRead(), Question(), Skill(opts.ConfigDirs), Batch(),
		Invalid(),
	}
}
