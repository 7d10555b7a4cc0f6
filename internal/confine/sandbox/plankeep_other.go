//go:build !linux

package sandbox

// Plans are kept between processes only where commands are confined.

func planDirOf(Policy) string                { return "" }
func keyOf([]byte) string                    { return "" }
func loadKept(string, string) *cachedPlan    { return nil }
func keep(string, string, *cachedPlan) error { return nil }

// PreloadPlans does nothing here: plans are not kept.
func PreloadPlans(string) {}

// PlansKept reports false here: plans are not kept.
func PlansKept(string) bool { return false }

// builtRuleset is a plan's Landlock ruleset (thread_linux.go): there is
// none here.
type builtRuleset struct{}
