package builtins

import "github.com/toolhost/toolhost/runtime"

// Options configure the built-in tool set.
type Options struct {
	// ConfigDirs are searched for skills (skill/ and skills/).
	ConfigDirs []string
}

// All returns every built-in tool. Each declares in its own file what it
// is (runtime.Traits): the permission that governs it, whether it asks that
// permission itself, where it is offered (apply_patch or edit and write by
// model, batch and lsp behind flags, websearch and codesearch with a search
// endpoint, question only where a person can answer), and its effects. The
// registry reads those declarations; it knows no tool by name.
func All(opts Options) []runtime.Tool {
	return []runtime.Tool{
		Read(), Write(), Edit(), MultiEdit(), ApplyPatch(),
		Glob(), Grep(), List(),
		Bash(), WebFetch(),
		TodoWrite(), TodoRead(), Question(), Skill(opts.ConfigDirs), Batch(),
		Invalid(),
	}
}
