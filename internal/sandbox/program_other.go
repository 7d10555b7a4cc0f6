//go:build !linux

package sandbox

import (
	"io"
	"os"
	"runtime"
)

func helperMain() {
	io.WriteString(os.Stderr, "toolhost-sandbox: the bash sandbox needs Linux (Landlock); there is nothing to do on "+runtime.GOOS+"\n")
	os.Exit(2)
}
