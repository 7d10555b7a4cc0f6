package permission

// NoRuleSource is the Source of the decision Evaluate returns when no rule
// matches: the answer is then ask.
const NoRuleSource = "no rule matched (default ask)"

// Evaluate decides permission for one pattern. The sets are flattened in
// order (defaults, agent, user config, session approvals) and the LAST rule
// whose Permission matches permission and whose Pattern matches pattern
// decides. When none matches the decision is Ask, with Source NoRuleSource.
//
// matched lists every matching rule in order, the deciding one last (nil when
// none matched), which is what Explain and DeniedError show.
//
//	rule, _ := Evaluate("bash", "git status", Ruleset{
//		{Permission: "bash", Pattern: "*", Action: Deny},
//		{Permission: "bash", Pattern: "git *", Action: Allow},
//	}) // rule.Action == Allow
func Evaluate(permission, pattern string, sets ...Ruleset) (decision Rule, matched Ruleset) {
	for _, set := range sets {
		for _, r := range set {
			if Match(r.Permission, permission) && Match(r.Pattern, pattern) {
				matched = append(matched, r)
			}
		}
	}
	if len(matched) == 0 {
		return Rule{Permission: permission, Pattern: "*", Action: Ask, Source: NoRuleSource}, nil
	}
	return matched[len(matched)-1], matched
}

// decide is Evaluate without collecting the matched rules: it scans from the
// end and stops at the first match, for callers that only need the action.
func decide(permission, pattern string, sets ...Ruleset) Action {
	for i := len(sets) - 1; i >= 0; i-- {
		set := sets[i]
		for j := len(set) - 1; j >= 0; j-- {
			if r := set[j]; Match(r.Permission, permission) && Match(r.Pattern, pattern) {
				return r.Action
			}
		}
	}
	return Ask
}

// editTools are the tools that all ask for (and are hidden by) the "edit"
// permission, so one rule covers every way of changing a file.
var editTools = map[string]bool{"edit": true, "write": true, "apply_patch": true, "patch": true, "multiedit": true}

// ToolPermission is the permission name a tool is governed by: "edit" for
// the file-changing tools (edit, write, apply_patch, patch, multiedit), the
// tool's own id for every other tool.
func ToolPermission(tool string) string {
	if editTools[tool] {
		return "edit"
	}
	return tool
}

// Disabled returns the tools that rules hide from the model entirely: a tool
// is disabled only when the LAST rule matching its permission name (see
// ToolPermission) has pattern "*" and action deny. A partial deny such as
// {"bash": {"rm *": "deny"}} leaves bash offered, since other commands may
// still run; a tool denied outright is not offered, so the model does not
// waste calls on it.
func Disabled(tools []string, rules Ruleset) map[string]bool {
	out := make(map[string]bool)
	for _, tool := range tools {
		perm := ToolPermission(tool)
		for i := len(rules) - 1; i >= 0; i-- {
			r := rules[i]
			if !Match(r.Permission, perm) {
				continue
			}
			if r.Pattern == "*" && r.Action == Deny {
				out[tool] = true
			}
			break
		}
	}
	return out
}
