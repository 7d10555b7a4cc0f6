//go:build linux

package sandbox

import (
	"runtime"
	"testing"
)

func TestTheSocketFilterAssemblesWhereItIsSupported(t *testing.T) {
	t.Parallel()
	_, known := filterArches[runtime.GOARCH]
	if err := SocketFilterSupported(); (err == nil) != known {
		t.Fatalf("SocketFilterSupported() = %v on %s", err, runtime.GOARCH)
	}
	raw, err := socketFilter()
	if !known {
		if err == nil {
			t.Error("a filter was made for an architecture it does not know")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	// BPF_MAXINSNS: the kernel refuses longer programs.
	if len(raw) == 0 || len(raw) > 4096 {
		t.Errorf("the filter has %d instructions", len(raw))
	}
}
