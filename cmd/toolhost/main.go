// Command toolhost lists, inspects and calls LLM agent tools. See package
// cli for the commands.
package main

import (
	"os"

	// First: for `toolhost call bash` it starts the sandbox helper while
	// the rest of toolhost initialises (see the package).
	_ "github.com/toolhost/toolhost/cmd/toolhost/internal/prestart"
	"github.com/toolhost/toolhost/internal/cli"
)

func main() {
	stop := startProfile()
	code := cli.Main(os.Args[1:])
	stop()
	os.Exit(code)
}
