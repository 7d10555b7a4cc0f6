package skill

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnOversizedSkillIsAProblemNotRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	big := filepath.Join(dir, "skills", "big", FileName)
	small := filepath.Join(dir, "skills", "small", FileName)
	for p, body := range map[string]string{
		big:   "---\nname: big\ndescription: too big\n---\n" + strings.Repeat("x", MaxFile),
		small: "---\nname: small\ndescription: fine\n---\nDo it.\n",
	} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skills, problems := Discover([]string{dir})
	if len(skills) != 1 || skills[0].Name != "small" || skills[0].Content != "Do it.\n" {
		t.Errorf("skills = %+v, want small only", skills)
	}
	if len(problems) != 1 || !strings.Contains(problems[0].Error(), "more than") {
		t.Errorf("problems = %v, want the oversized file named", problems)
	}
}
