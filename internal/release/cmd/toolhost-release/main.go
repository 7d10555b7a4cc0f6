// Command toolhost-release is what the release pipeline runs beside
// GoReleaser (package release says why each part is here):
//
//	toolhost-release sbom -o toolhost.cdx.json -version v1.2.3 dist/…/toolhost
//	toolhost-release image -o dist/image -version v1.2.3 linux/amd64=dist/…/toolhost linux/arm64=…
//	toolhost-release serve -addr 127.0.0.1:0 dist     # a loopback server for testing install.sh
package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/toolhost/toolhost/internal/release"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "toolhost-release:", err)
		os.Exit(1)
	}
}

const usage = "usage: toolhost-release sbom|image|serve … (see -h of each)"

func run(args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	switch args[0] {
	case "sbom":
		out := fs.String("o", "", "write the SBOM to `file` (default: standard output)")
		version := fs.String("version", "", "the main module's `version` when the binary has none of its own")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New("sbom: give one binary")
		}
		bin, err := os.ReadFile(fs.Arg(0))
		if err != nil {
			return err
		}
		doc, err := release.SBOMOfFile(fs.Arg(0), *version, bin, sourceDate())
		if err != nil {
			return err
		}
		if *out == "" {
			_, err = os.Stdout.Write(append(doc, '\n'))
			return err
		}
		return os.WriteFile(*out, append(doc, '\n'), 0o644)
	case "image":
		spec := release.ImageSpec{Created: sourceDate()}
		out := fs.String("o", "", "write the OCI image layout to `dir` (must not exist)")
		fs.StringVar(&spec.Version, "version", "dev", "the release `version`")
		fs.StringVar(&spec.Source, "source", "https://github.com/toolhost/toolhost", "the source repository `URL`")
		fs.StringVar(&spec.CACerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "CA certificate bundle `file` to copy in")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *out == "" || fs.NArg() == 0 {
			return errors.New("image: give -o dir and at least one os/arch[/variant]=binary[,helper]")
		}
		for _, a := range fs.Args() {
			plat, bin, ok := strings.Cut(a, "=")
			parts := strings.Split(plat, "/")
			if !ok || len(parts) < 2 || len(parts) > 3 {
				return fmt.Errorf("image: %q is not os/arch[/variant]=binary[,helper]", a)
			}
			bin, helper, _ := strings.Cut(bin, ",") // the sandbox helper program, beside toolhost
			p := release.Platform{OS: parts[0], Arch: parts[1], Binary: bin, Helper: helper}
			if len(parts) == 3 {
				p.Variant = parts[2]
			}
			spec.Platforms = append(spec.Platforms, p)
		}
		return release.Image(*out, spec)
	case "serve":
		addr := fs.String("addr", "127.0.0.1:0", "listen `address`")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return errors.New("serve: give one directory")
		}
		ln, err := net.Listen("tcp", *addr)
		if err != nil {
			return err
		}
		// The first line is the address, for the script that started it.
		fmt.Printf("http://%s/\n", ln.Addr())
		return http.Serve(ln, http.FileServer(http.Dir(fs.Arg(0))))
	}
	return errors.New(usage)
}

// sourceDate is SOURCE_DATE_EPOCH (GoReleaser and .ci/release set it to
// the commit's time), else now.
func sourceDate() time.Time {
	if s, err := strconv.ParseInt(os.Getenv("SOURCE_DATE_EPOCH"), 10, 64); err == nil {
		return time.Unix(s, 0)
	}
	return time.Now()
}
