package matrix

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// asLang builds examples/as-words with the AssemblyScript compiler, from
// the npm packages pinned in sdk-guest/assemblyscript/package.json.
var asLang = language{
	name:    "assemblyscript",
	sources: []string{"sdk-guest/assemblyscript", "examples/as-words", "examples/matrix/lang_as_test.go"},
	install: "Node.js and npm (apt-get install -y nodejs npm); the packages are installed by the test",
	toolchain: func(ctx context.Context) (string, error) {
		node, err := lookPath("node")
		if err != nil {
			return "", err
		}
		dir, err := npmPackages(ctx)
		if err != nil {
			return "", err
		}
		v, err := output(ctx, node, "--version")
		return v + " " + dir, err
	},
	build: func(ctx context.Context, out string) error {
		return asBuild(ctx, abs("examples/as-words"), "index.ts", "../../sdk-guest/assemblyscript/index/abort", out)
	},
}

// asBuild compiles entry in dir into out. abort names the SDK's abort
// function by its path relative to the entry file (asc's --use), which is
// why asc runs in dir.
func asBuild(ctx context.Context, dir, entry, abort, out string) error {
	pkgs, err := npmPackages(ctx)
	if err != nil {
		return err
	}
	return run(ctx, dir, nil, "node", filepath.Join(pkgs, "node_modules", "assemblyscript", "bin", "asc.js"),
		entry, "--path", filepath.Join(pkgs, "node_modules"), "-O3", "--shrinkLevel", "1",
		"--use", "abort="+abort, "-o", out)
}

// npmPackages installs the SDK's npm dependencies once per machine, in a
// directory of the temp dir named after the hash of its package.json, and
// returns that directory.
func npmPackages(ctx context.Context) (string, error) {
	if _, err := lookPath("npm"); err != nil {
		return "", err
	}
	pkg, err := os.ReadFile(abs("sdk-guest/assemblyscript/package.json"))
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(pkg)
	dir := filepath.Join(os.TempDir(), "toolhost-npm-"+hex.EncodeToString(sum[:8]))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "assemblyscript", "bin", "asc.js")); err == nil {
		return dir, nil
	}
	// Install beside the final directory and rename it into place, so a
	// concurrent or interrupted run never sees half an install.
	tmp, err := os.MkdirTemp(os.TempDir(), "toolhost-npm-install-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), pkg, 0o644); err != nil {
		return "", err
	}
	if err := run(ctx, tmp, nil, "npm", "install", "--prefix", tmp, "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
		return "", fmt.Errorf("%w: npm install of the AssemblyScript SDK's packages failed: %v", errMissing, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "node_modules", "assemblyscript", "bin", "asc.js")); statErr == nil {
			return dir, nil // another run got there first
		}
		return "", err
	}
	return dir, nil
}
