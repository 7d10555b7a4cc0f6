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
//
// The tools whose Execute asks its own permission through tc.Ask are
// declared so here (Definition.ChecksOwnPermission); the registry's gate
// asks the tool id's permission for the others — question, batch, invalid —
// before they run. WebSearch, CodeSearch, LSP and Task declare it in their
// constructors. A tool of All used on its own, without All, is not declared
// and so gets the gate's extra own-id check: one more question, never one
// fewer.
func All(opts Options) []runtime.Tool {
	own := runtime.WithOwnPermission
	return []runtime.Tool{
		own(Read()), own(Write()), own(Edit()), own(MultiEdit()), own(ApplyPatch()),
		own(Glob()), own(Grep()), own(List()),
		own(Bash()), own(WebFetch()),
		own(TodoWrite()), own(TodoRead()), Question(), own(Skill(opts.ConfigDirs)), Batch(),
		Invalid(),
	}
}
