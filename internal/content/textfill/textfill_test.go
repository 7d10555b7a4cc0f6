package textfill_test

import (
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/content/textfill"
)

func TestFillReplacesEachPlaceholderWithItsValue(t *testing.T) {
	t.Parallel()
	got, err := textfill.Fill("up to {{.N}} lines, {{.N}} at most; {{.Name}}{{.Empty}}.", map[string]any{"N": 2000, "Name": "{{.N}}", "Empty": ""})
	if want := "up to 2000 lines, 2000 at most; {{.N}}."; err != nil || got != want {
		t.Errorf("Fill = %q, %v; want %q (a value is not filled again)", got, err, want)
	}
}

func TestFillRefusesWhatTextTemplateWouldHaveDoneOtherwise(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		"{{.Missing}}",
		"{{- .N}}",
		"{{if .N}}x{{end}}",
		"{{ .N }}",
		"{{.N",
		"{{/* comment */}}",
	} {
		if got, err := textfill.Fill(text, map[string]any{"N": 1}); err == nil {
			t.Errorf("Fill(%q) = %q; want an error", text, got)
		} else if !strings.Contains(err.Error(), "{{") {
			t.Errorf("Fill(%q): error %q does not quote the action", text, err)
		}
	}
}

func TestMustFillPanicsOnABrokenEmbeddedText(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "bash.txt") {
			t.Errorf("recovered %v; want a panic naming the text", r)
		}
	}()
	textfill.MustFill("bash.txt", "{{.Nope}}", nil)
}
