package prestart

import "testing"

func TestCallsBash(t *testing.T) {
	tests := []struct {
		args []string
		want bool
	}{
		{[]string{"call", "bash", `{"command":"true"}`}, true},
		{[]string{"-C", "/src", "call", "bash"}, true},
		{[]string{"call", "--yes", "bash"}, true},
		{[]string{"call", "read", `{"filePath":"bash"}`}, false},
		{[]string{"call"}, false},
		{[]string{"tools"}, false},
		{[]string{"bash", "call"}, false},
		{nil, false},
	}
	for _, tt := range tests {
		if got := callsBash(tt.args); got != tt.want {
			t.Errorf("callsBash(%q) = %v, want %v", tt.args, got, tt.want)
		}
	}
}
