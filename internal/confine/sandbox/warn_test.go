package sandbox

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestWarnIfUnavailableWarnsExactlyWhenCommandsCannotBeConfined(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	WarnIfUnavailable(slog.New(slog.NewTextHandler(&buf, nil)))
	_, err := Available()
	warned := strings.Contains(buf.String(), "bash sandbox unavailable")
	if warned != (err != nil) {
		t.Errorf("warned = %v with Available's error %v; log: %q", warned, err, buf.String())
	}
	if err != nil && !strings.Contains(buf.String(), "permission rules alone") {
		t.Errorf("the warning does not say what commands run under: %q", buf.String())
	}
}
