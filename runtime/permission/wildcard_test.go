package permission

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMatch(t *testing.T) {
	t.Parallel()
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		t.Skip("no home directory to expand")
	}
	tests := []struct {
		name    string
		pattern string
		s       string
		want    bool
	}{
		{"a star matches the empty string", "*", "", true},
		{"a star crosses directories", "*", "a/b/c.go", true},
		{"a star inside a path crosses directories", "src/*.go", "src/a/b/c.go", true},
		{"a literal pattern matches only itself", "git status", "git status", true},
		{"a literal pattern does not match a longer string", "git status", "git status -s", false},
		{"a trailing space-star matches the bare command", "ls *", "ls", true},
		{"a trailing space-star matches the command with arguments", "ls *", "ls -la /tmp", true},
		{"a trailing space-star does not match a longer command name", "ls *", "lsof", false},
		{"git star does not match gitk", "git *", "gitk", false},
		{"a lone space-star matches the empty string", " *", "", true},
		{"a star without a space does match a longer name", "ls*", "lsof", true},
		{"a question mark matches one character", "a?c", "abc", true},
		{"a question mark matches one multibyte character", "a?c", "aéc", true},
		{"a question mark does not match zero characters", "a?c", "ac", false},
		{"a question mark does not match two characters", "a?c", "abbc", false},
		{"a question mark at the end needs a character", "ab?", "ab", false},
		{"regexp metacharacters are literal: dot", "a.b", "axb", false},
		{"regexp metacharacters are literal: dot matches dot", "a.b", "a.b", true},
		{"regexp metacharacters are literal: plus and parens", "f(a+b)", "f(a+b)", true},
		{"regexp metacharacters are literal: brackets", "[ab]", "a", false},
		{"a star matches across newlines", "echo *", "echo a\nb", true},
		{"an env pattern matches a dotfile anywhere", "*.env", "config/.env", true},
		{"an env pattern does not match env.local", "*.env", "config/.env.local", false},
		{"an env-dot pattern matches env.local", "*.env.*", "config/.env.local", true},
		{"several stars backtrack correctly", "*a*b*c", "xxaxxbxxbxc", true},
		{"several stars fail when a part is missing", "*a*b*c", "xxaxxcxxb", false},
		{"a star-suffix pattern must match the end", "*.go", "main.go.bak", false},
		{"a permission wildcard matches mcp tools", "mcp_*", "mcp_github_search", true},
		{"a permission wildcard does not match a different prefix", "mcp_*", "mcpx", false},
		{"tilde-slash expands to the home directory", "~/notes/*", home + "/notes/a.md", true},
		{"tilde-slash does not match another directory", "~/notes/*", "/elsewhere/notes/a.md", false},
		{"a lone tilde is the home directory", "~", home, true},
		{"$HOME expands to the home directory", "$HOME/notes/*", home + "/notes/a.md", true},
		{"a lone $HOME is the home directory", "$HOME", home, true},
		{"a tilde not at the start is literal", "a/~/b", "a/~/b", true},
		{"a tilde not at the start does not expand", "a/~/b", "a" + home + "/b", false},
		{"$HOME followed by letters is literal", "$HOMEDIR", "$HOMEDIR", true},
		{"a tilde with a name is literal", "~bob/x", "~bob/x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Match(tt.pattern, tt.s); got != tt.want {
				t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
			}
		})
	}
}

// reference is the regexp formulation of Match (OpenCode's own), used to
// check the hand-written matcher.
func reference(pattern, s string) bool {
	if home, rest, ok := homePrefix(pattern); ok {
		if !strings.HasPrefix(s, home) {
			return false
		}
		pattern, s = rest, s[len(home):]
	}
	return referenceRegexp(pattern).MatchString(s)
}

// referenceRegexp compiles a pattern (home already expanded) the way
// OpenCode does.
func referenceRegexp(pattern string) *regexp.Regexp {
	var b strings.Builder
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	expr := b.String()
	if strings.HasSuffix(expr, " .*") {
		expr = strings.TrimSuffix(expr, " .*") + "( .*)?"
	}
	return regexp.MustCompile(`(?s)^(?:` + expr + `)$`)
}

func FuzzMatch(f *testing.F) {
	for _, seed := range [][2]string{
		{"*", ""}, {"ls *", "ls"}, {"ls *", "ls -la"}, {"a?c", "aéc"}, {"*a*b*c", "xxaxxbxxbxc"},
		{"~/x/*", "/home/u/x/y"}, {"$HOME", "/root"}, {"src/*.go", "src/a/b.go"}, {"*.env.*", ".env.local"},
		{"f(a+b)", "f(a+b)"}, {"??*", "é"}, {"echo *", "echo a\nb"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pattern, s string) {
		// The regexp reference works on runes and treats invalid UTF-8 as
		// U+FFFD, while Match compares bytes; both agree on valid text,
		// which is all that configs and commands contain.
		if !utf8.ValidString(pattern) || !utf8.ValidString(s) {
			return
		}
		if got, want := Match(pattern, s), reference(pattern, s); got != want {
			t.Fatalf("Match(%q, %q) = %v, regexp reference says %v", pattern, s, got, want)
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	cases := []struct{ name, pattern, s string }{
		{"literal", "git status", "git status"},
		{"command", "git *", "git commit -m 'a fairly long commit message for a benchmark'"},
		{"path", "*.env.*", "services/api/config/.env.production"},
		{"many stars", "*a*b*c*d", strings.Repeat("abc", 40) + "d"},
	}
	for _, c := range cases {
		b.Run(c.name+"/wildcard", func(b *testing.B) {
			for b.Loop() {
				Match(c.pattern, c.s)
			}
		})
		// The alternative design: compile each pattern once and cache it.
		re := referenceRegexp(c.pattern)
		b.Run(c.name+"/regexp-precompiled", func(b *testing.B) {
			for b.Loop() {
				re.MatchString(c.s)
			}
		})
	}
}
