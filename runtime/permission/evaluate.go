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

// Disabled returns the permissions that rules take away entirely: a
// permission is disabled only when the LAST rule matching its name has
// pattern "*" and action deny. A partial deny such as {"bash": {"rm *":
// "deny"}} leaves bash's tool offered, since other commands may still
// run; a tool whose permission is disabled is not offered, so the model
// does not waste calls on it. Which permission governs a tool is the
// tool's own declaration (runtime.Traits.Permission, else its id), not
// this package's business.
func Disabled(perms []string, rules Ruleset) map[string]bool {
	out := make(map[string]bool)
	for _, perm := range perms {
		for i := len(rules) - 1; i >= 0; i-- {
			r := rules[i]
			if !Match(r.Permission, perm) {
				continue
			}
			if r.Pattern == "*" && r.Action == Deny {
				out[perm] = true
			}
			break
		}
	}
	return out
}
