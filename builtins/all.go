package builtins

import (
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/source"
)

// Options configure the built-in tool set.
type Options struct {
	// ConfigDirs are searched for skills (skill/ and skills/).
	ConfigDirs []string
}

// All returns every built-in tool but task, which runs subagents through
// an agent loop: a front end that has one adds Task with its runner. Each
// declares in its own file what it is (runtime.Traits): the permission that governs it, whether it asks that
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
		WebSearch(), CodeSearch(), LSP(),
		Invalid(),
	}
}

// Source is All as a tool source (runtime.SourceBuiltin).
func Source(opts Options) source.Source { return source.Tools(runtime.SourceBuiltin, All(opts)...) }
