package permission

import "testing"

func TestExplainFormat(t *testing.T) {
	t.Parallel()
	defaults := Ruleset{{Permission: "*", Pattern: "*", Action: Allow, Source: "default"}}
	user := Ruleset{
		{Permission: "bash", Pattern: "*", Action: Ask, Source: "/p/toolhost.json:6"},
		{Permission: "bash", Pattern: "git *", Action: Allow, Source: "/p/toolhost.json:7"},
		{Permission: "bash", Pattern: "git push *", Action: Deny, Source: "/p/toolhost.json:8"},
	}
	tests := []struct {
		name    string
		perm    string
		pattern string
		sets    []Ruleset
		want    string
	}{
		{
			name: "a rule that overrode two earlier ones lists them in order",
			perm: "bash", pattern: "git status", sets: []Ruleset{defaults, user},
			want: "allow\n" +
				"decided by: bash \"git *\": allow (/p/toolhost.json:7)\n" +
				"overridden rules:\n" +
				"  * \"*\": allow (default)\n" +
				"  bash \"*\": ask (/p/toolhost.json:6)\n",
		},
		{
			name: "a deny of git push overrides the git allow",
			perm: "bash", pattern: "git push origin main", sets: []Ruleset{defaults, user},
			want: "deny\n" +
				"decided by: bash \"git push *\": deny (/p/toolhost.json:8)\n" +
				"overridden rules:\n" +
				"  * \"*\": allow (default)\n" +
				"  bash \"*\": ask (/p/toolhost.json:6)\n" +
				"  bash \"git *\": allow (/p/toolhost.json:7)\n",
		},
		{
			name: "a sole matching rule overrides nothing",
			perm: "edit", pattern: "a.go", sets: []Ruleset{defaults, user},
			want: "allow\n" +
				"decided by: * \"*\": allow (default)\n" +
				"overridden rules: none\n",
		},
		{
			name: "no matching rule is explained as the default ask",
			perm: "edit", pattern: "a.go", sets: []Ruleset{user},
			want: "ask\n" +
				"decided by: no rule matched (default ask)\n" +
				"overridden rules: none\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := Explain(tt.perm, tt.pattern, tt.sets...)
			if got := e.Format(); got != tt.want {
				t.Errorf("Format() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
