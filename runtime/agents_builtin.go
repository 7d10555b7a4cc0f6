package runtime

import (
	"fmt"
	"maps"
	"slices"

	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Agent modes: a primary agent talks to the user, a subagent is started by
// another agent (the task tool), "all" may be either.
const (
	ModePrimary  = "primary"
	ModeSubagent = "subagent"
	ModeAll      = "all"
)

// The Source strings of rules that do not come from a config file (not to
// be confused with a tool's Source): the defaults every agent starts from,
// and "agent <name>" for a built-in agent's own rules.
const (
	RuleSourceDefault = "default"
	ruleSourceAgent   = "agent "
)

// PlansGlob is where the plan agent may write its plans, relative to the
// project root; every other edit is denied to it.
const PlansGlob = ".toolhost/plans/*.md"

// defaultRules are the rules every agent starts from, OpenCode's defaults:
// everything allowed except what deserves a second look — a tool called
// over and over with the same arguments (doom_loop), paths outside the
// project (external_directory), and reading files that usually hold secrets
// (.env, .env.local; but .env.example is documentation).
//
// OpenCode also denies question, plan_enter and plan_exit by default and
// re-allows them per agent; those are its UI's tools. Here question stays
// allowed (the tool is offered only when a Questioner exists).
func defaultRules() permission.Ruleset {
	return withSource(RuleSourceDefault, permission.Ruleset{
		{Permission: "*", Pattern: "*", Action: permission.Allow},
		{Permission: "doom_loop", Pattern: "*", Action: permission.Ask},
		{Permission: "external_directory", Pattern: "*", Action: permission.Ask},
		{Permission: "read", Pattern: "*", Action: permission.Allow},
		{Permission: "read", Pattern: "*.env", Action: permission.Ask},
		{Permission: "read", Pattern: "*.env.*", Action: permission.Ask},
		{Permission: "read", Pattern: "*.env.example", Action: permission.Allow},
		// The repository's machinery: a hook or config written under .git
		// runs code at the next git command, so writing there asks unless
		// a rule of the user's says otherwise.
		{Permission: "edit", Pattern: ".git/*", Action: permission.Ask},
		{Permission: "edit", Pattern: "*/.git/*", Action: permission.Ask},
		// toolhost's own configuration in the project: a model that could
		// rewrite it unasked could grant itself every permission for the
		// next run.
		{Permission: "edit", Pattern: "toolhost.json", Action: permission.Ask},
		{Permission: "edit", Pattern: "toolhost.jsonc", Action: permission.Ask},
		{Permission: "edit", Pattern: "*/toolhost.json", Action: permission.Ask},
		{Permission: "edit", Pattern: "*/toolhost.jsonc", Action: permission.Ask},
		{Permission: "edit", Pattern: "toolhost.lock", Action: permission.Ask},
		{Permission: "edit", Pattern: ".toolhost/*", Action: permission.Ask},
		{Permission: "edit", Pattern: "*/.toolhost/*", Action: permission.Ask},
		// OpenCode's tool folders load as tools too; and trusting the
		// project is a person's decision, not a command's (where the
		// sandbox is off, bash could write the trust store).
		{Permission: "edit", Pattern: ".opencode/*", Action: permission.Ask},
		{Permission: "edit", Pattern: "*/.opencode/*", Action: permission.Ask},
		// Global flags may come first (toolhost -C . trust). A binary
		// named by its path (/usr/local/bin/toolhost trust) is asked as
		// `toolhost trust` too, so these cover it; a rule starting with
		// "*" would also match every command line with a hole in it
		// (echo $HOME) and ask for all of them.
		{Permission: "bash", Pattern: "toolhost trust*", Action: permission.Ask},
		{Permission: "bash", Pattern: "toolhost -* trust*", Action: permission.Ask},
	})
}

// builtinAgentRules are each built-in agent's own rules, applied after the
// defaults.
func builtinAgentRules(name string) permission.Ruleset {
	var rules permission.Ruleset
	switch name {
	case "plan":
		// Plan may think and read but only write its plan files.
		rules = permission.Ruleset{
			{Permission: "edit", Pattern: "*", Action: permission.Deny},
			{Permission: "edit", Pattern: PlansGlob, Action: permission.Allow},
		}
	case "explore":
		// Explore only looks. OpenCode's explore denies everything and then
		// allows the read-only tools; its `read: allow` would also override
		// the default .env asks, so the secret-file rules are repeated
		// after it: exploring should not read secrets silently.
		rules = permission.Ruleset{{Permission: "*", Pattern: "*", Action: permission.Deny}}
		for _, p := range []string{"read", "list", "glob", "grep", "bash", "webfetch", "websearch", "codesearch"} {
			rules = append(rules, permission.Rule{Permission: p, Pattern: "*", Action: permission.Allow})
		}
		rules = append(rules,
			permission.Rule{Permission: "read", Pattern: "*.env", Action: permission.Ask},
			permission.Rule{Permission: "read", Pattern: "*.env.*", Action: permission.Ask},
			permission.Rule{Permission: "read", Pattern: "*.env.example", Action: permission.Allow},
		)
	}
	return withSource(ruleSourceAgent+name, rules)
}

// BuiltinAgents returns the built-in agents with only their own rules
// composed (defaults, then the agent's rules); ResolveAgents adds the
// user's. Each call returns fresh values the caller may change.
//
//   - build: the default agent; every tool, subject to the defaults.
//   - plan: reads and plans; edits only PlansGlob.
//   - explore: a read-only subagent for searching a codebase.
func BuiltinAgents() map[string]*Agent {
	agents := map[string]*Agent{
		"build": {
			Name:        "build",
			Description: "The default agent. Runs every tool its permission rules allow.",
			Mode:        ModePrimary,
		},
		"plan": {
			Name:        "plan",
			Description: "Plan mode. Reads and analyses the project; may not edit files except its plans in " + PlansGlob + ".",
			Mode:        ModePrimary,
		},
		"explore": {
			Name: "explore",
			Description: "Fast agent for exploring a codebase: finds files by pattern, searches code for keywords, " +
				"and answers questions about it. Say how thorough to be: quick, medium or very thorough.",
			Mode:   ModeSubagent,
			Prompt: explorePrompt,
		},
	}
	for name, a := range agents {
		a.BuiltIn = true
		a.Rules = slices.Concat(defaultRules(), builtinAgentRules(name))
	}
	return agents
}

const explorePrompt = `You are a file search specialist. You find files and code quickly and report what you found.

Use glob to find files by pattern, grep to search contents, read to open a file you know, list to see a directory, and bash only for read-only commands (ls, git log, git show). Do not create, change or delete anything.

Adapt to the thoroughness the caller asked for. Return file paths as absolute paths, and end with a short, direct answer to the question you were given.`

// ResolveAgents returns the agents for cfg: the built-ins, changed or joined
// by cfg.Agent, without those marked disable. Each agent's Rules are, in
// order: the defaults, the built-in agent's rules (for build, plan,
// explore), the agent's rules from config, then the user's top-level
// cfg.Permission rules; the permission Service appends the session's
// approvals when it evaluates. Rules from config keep the Source the config
// loader gave them (file:line).
//
// A config agent not among the built-ins has mode "all" unless it says
// otherwise. It fails when an agent's mode is not primary, subagent or all,
// or when cfg.DefaultAgent names an agent that does not exist, is disabled,
// or is a subagent.
func ResolveAgents(cfg *config.Config) (map[string]*Agent, error) {
	if cfg == nil {
		cfg = &config.Config{}
	}
	agents := BuiltinAgents()
	user := slices.Clone(cfg.Permission.Rules)
	for _, name := range slices.Sorted(maps.Keys(cfg.Agent)) {
		ac := cfg.Agent[name]
		if ac.Disable {
			delete(agents, name)
			continue
		}
		a, ok := agents[name]
		if !ok && cfg.OnlyHeldAgent(name) {
			// An untrusted project's deny rules for an agent that does
			// not exist: they tighten nothing, and defining the agent
			// would give the project a new subagent.
			continue
		}
		if !ok {
			a = &Agent{Name: name, Mode: ModeAll, Rules: defaultRules()}
			agents[name] = a
		}
		if ac.Description != "" {
			a.Description = ac.Description
		}
		if ac.Mode != "" {
			switch ac.Mode {
			case ModePrimary, ModeSubagent, ModeAll:
			default:
				return nil, fmt.Errorf("agent %q: mode %q is not %s, %s or %s; fix agent.%s.mode in the config", name, ac.Mode, ModePrimary, ModeSubagent, ModeAll, name)
			}
			a.Mode = ac.Mode
		}
		if ac.Model != "" {
			a.Model = ac.Model
		}
		if ac.Prompt != "" {
			a.Prompt = ac.Prompt
		}
		if ac.MaxSteps > 0 {
			a.MaxSteps = ac.MaxSteps
		}
		if ac.Temperature != nil {
			t := *ac.Temperature
			a.Temperature = &t
		}
		if len(ac.Tools) > 0 {
			if a.Tools == nil {
				a.Tools = make(map[string]bool, len(ac.Tools))
			}
			maps.Copy(a.Tools, ac.Tools)
		}
		a.Rules = append(a.Rules, ac.Permission.Rules...)
	}
	for _, a := range agents {
		a.Rules = append(a.Rules, user...)
	}
	if name := cfg.DefaultAgent; name != "" {
		a, ok := agents[name]
		switch {
		case !ok:
			return nil, fmt.Errorf("default_agent %q: no such agent (it may be disabled); agents: %v", name, slices.Sorted(maps.Keys(agents)))
		case a.Mode == ModeSubagent:
			return nil, fmt.Errorf("default_agent %q: it is a subagent, which only other agents start; choose a primary agent", name)
		}
	}
	return agents, nil
}

// withSource sets Source on every rule that has none.
func withSource(source string, rules permission.Ruleset) permission.Ruleset {
	for i := range rules {
		if rules[i].Source == "" {
			rules[i].Source = source
		}
	}
	return rules
}
