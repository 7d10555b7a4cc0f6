package runtime

import "github.com/toolhost/toolhost/runtime/permission"

// Agent is a named set of permission rules, a mode and a prompt. The
// built-in agents are build, plan and explore; config may add or override.
type Agent struct {
	Name        string
	Description string
	// Mode is "primary", "subagent" or "all".
	Mode   string
	Model  string
	Prompt string
	// Rules are the agent's complete rule set: defaults, then the agent's
	// own rules, then the user's top-level config rules. Session approvals
	// are appended at evaluation time.
	Rules permission.Ruleset
	// Tools enables or disables tools by id or wildcard.
	Tools    map[string]bool
	MaxSteps int
	// Temperature for the model, when the agent sets one.
	Temperature *float64
	BuiltIn     bool
}
