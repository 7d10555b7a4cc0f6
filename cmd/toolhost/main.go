// Command toolhost lists, inspects and calls LLM agent tools. See package
// cli for the commands.
package main

import (
	"os"

	"github.com/toolhost/toolhost/internal/cli"
)

func main() {
	stop := startProfile()
	code := cli.Main(os.Args[1:])
	stop()
	os.Exit(code)
}
