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

// ForksCommands reports that no command is confined here.
func ForksCommands() bool { return false }

// ProgramState reports that there is no sandbox here to need a helper.
func ProgramState() (path, problem string) {
	return "", "the sandbox needs Linux"
}
