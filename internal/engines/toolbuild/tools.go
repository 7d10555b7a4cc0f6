package toolbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	sdkguest "github.com/toolhost/toolhost/sdk-guest"
)

// buildDir holds, inside SourcesDir, what Build keeps between runs: one
// stamp per tool (<name>.sum), the hash of what its module was built
// from, and the module being compiled (<name>.wasm) until it is moved
// into place.
const buildDir = ".build"

// StaleSuffix ends the marker file a failed build leaves beside the module
// it could not replace (tool/<name>.wasm.stale): the module there is older
// than its source, and the marker holds the build's error.
const StaleSuffix = ".stale"

// Options choose what BuildTools builds and how it reports.
type Options struct {
	// Names are the tools to build (folder names in tools-src); nil or
	// empty builds every one. A name with no source is an error.
	Names []string
	// Force rebuilds tools that are up to date.
	Force bool
	// Progress, when set, is told what happens as it happens: the
	// toolchain being installed, each compile starting and ending. Nil: no
	// progress.
	Progress func(Event)
	// RelativeTo is the directory the user ran the command in: paths in
	// compiler messages are rewritten relative to it, so they can be
	// opened from there. "": left as the compiler wrote them.
	RelativeTo string
	// Prepare, when set, runs on each freshly compiled module (at a
	// temporary path named like the module) before it replaces the old
	// one; an error fails that tool's build. The CLI embeds the tool list
	// there and warms the compilation cache (wasm.Engine.EmbedToolList),
	// so the stamp records the module as it is served.
	Prepare func(ctx context.Context, path string) error
}

// EventKind says what an Event reports.
type EventKind string

// The events of a build, in the order they come for one tool.
const (
	// EventToolchain: a toolchain is being installed (the AssemblyScript
	// compiler's npm packages, once per machine); Done when it is.
	EventToolchain EventKind = "toolchain"
	// EventCompile: a tool is being compiled; Done when it is.
	EventCompile EventKind = "compile"
)

// Event is one step of a build.
type Event struct {
	Kind EventKind
	Name string // the tool; "" for a toolchain
	Lang Lang
	// Done is false when the step starts, true when it ends; Elapsed is
	// then its duration.
	Done    bool
	Elapsed time.Duration
	// Message describes the step for a person.
	Message string
}

// BuildResult is the outcome of building one tool source.
type BuildResult struct {
	Name   string
	Lang   Lang
	Output string // the module, when Err is nil
	// UpToDate: the module was built from the same sources, SDK and
	// toolchain, and was not rebuilt.
	UpToDate bool
	// Elapsed is how long the compile took (zero when UpToDate).
	Elapsed time.Duration
	// Err has the compiler's output; a *ToolchainError when the toolchain
	// is not installed. The module built before, if any, is kept and
	// marked stale (see Stale).
	Err error
}

// BuildTools builds the tool sources in configDir/tools-src into
// configDir/tool/<name>.wasm, each with its language's toolchain (see
// BuildSource). A tool whose module was built from the same sources, guest
// SDK and toolchain version — compared by content hash — is skipped
// unless opts.Force. A failed build keeps the module built before and
// leaves a marker (<module>.stale, holding the error) that Stale reads, so
// `toolhost tools` says the module is older than its source; a successful
// build removes it. One failing source does not stop the others; the error
// names the ones that failed.
func BuildTools(ctx context.Context, configDir string, opts Options) ([]BuildResult, error) {
	src := filepath.Join(configDir, SourcesDir)
	entries, err := os.ReadDir(src)
	if err != nil {
		return nil, fmt.Errorf("build tools: %w (create one with toolhost tool new)", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			if _, ok := detect(filepath.Join(src, e.Name())); ok {
				names = append(names, e.Name())
			}
		}
	}
	if len(opts.Names) > 0 {
		for _, n := range opts.Names {
			if !slices.Contains(names, n) {
				have := "there are none"
				if len(names) > 0 {
					have = "there are: " + strings.Join(names, ", ")
				}
				return nil, &UnknownToolError{Name: n, Dir: src, Have: have}
			}
		}
		names = slices.Compact(slices.Sorted(slices.Values(opts.Names)))
	}
	if err := vendorSDK(src); err != nil {
		return nil, err
	}
	if err := ensureIgnored(configDir); err != nil {
		return nil, err
	}
	outDir := filepath.Join(configDir, "tool")
	for _, d := range []string{outDir, filepath.Join(src, buildDir)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("build tools: %w", err)
		}
	}
	b := &builder{opts: opts, src: src, outDir: outDir, toolchains: map[Lang]*toolchain{}, tcErrs: map[Lang]error{}}
	var results []BuildResult
	var failed []string
	for _, name := range names {
		r := b.one(ctx, name)
		if r.Err != nil {
			failed = append(failed, r.Name)
		}
		results = append(results, r)
	}
	if len(failed) > 0 {
		return results, fmt.Errorf("build tools: %s failed", strings.Join(failed, ", "))
	}
	return results, nil
}

// UnknownToolError is BuildTools' error for a name with no source.
type UnknownToolError struct {
	Name, Dir, Have string
}

func (e *UnknownToolError) Error() string {
	return fmt.Sprintf("no tool source %q in %s; %s (create one with toolhost tool new %s)", e.Name, e.Dir, e.Have, e.Name)
}

// builder is one BuildTools run; it finds each language's toolchain once.
type builder struct {
	opts       Options
	src        string
	outDir     string
	toolchains map[Lang]*toolchain
	tcErrs     map[Lang]error
}

func (b *builder) say(e Event) {
	if b.opts.Progress != nil {
		b.opts.Progress(e)
	}
}

func (b *builder) one(ctx context.Context, name string) BuildResult {
	dir := filepath.Join(b.src, name)
	out := filepath.Join(b.outDir, name+".wasm")
	l, _ := detect(dir)
	r := BuildResult{Name: name, Lang: l.lang}
	tc, err := b.toolchain(ctx, l)
	if err != nil {
		r.Err = err
		b.markStale(out, err)
		return r
	}
	sdk := filepath.Join(b.src, sdkDir)
	stamp := filepath.Join(b.src, buildDir, name+".sum")
	if !b.opts.Force {
		if want, err := inputsHash(tc, l.lang, dir, sdk); err == nil && upToDate(stamp, want, out) {
			// The sources are back to what the module was built from
			// (a broken edit undone): it is current, not stale.
			_ = os.Remove(out + StaleSuffix)
			r.UpToDate, r.Output = true, out
			return r
		}
	}
	b.say(Event{Kind: EventCompile, Name: name, Lang: l.lang, Message: fmt.Sprintf("compiling %s (%s)", name, l.lang)})
	start := time.Now()
	err = compile(ctx, l, tc, dir, sdk, out, filepath.Join(b.src, buildDir, name+".wasm"), b.opts.Prepare)
	r.Elapsed = time.Since(start)
	b.say(Event{Kind: EventCompile, Name: name, Lang: l.lang, Done: true, Elapsed: r.Elapsed, Message: fmt.Sprintf("compiled %s (%s)", name, l.lang)})
	if err != nil {
		r.Err = b.relative(err, dir)
		b.markStale(out, r.Err)
		return r
	}
	r.Output = out
	_ = os.Remove(out + StaleSuffix)
	// The stamp is the hash after the build: a build may write into the
	// source (go.sum, generated exports), and what it wrote is what the
	// next build will see.
	if sum, err := inputsHash(tc, l.lang, dir, sdk); err == nil {
		if mod, err := fileHash(out); err == nil {
			_ = os.WriteFile(stamp, []byte(sum+"\n"+mod+"\n"), 0o644)
		}
	}
	return r
}

// toolchain finds l's toolchain once per run, announcing the
// AssemblyScript compiler's installation, the one step that downloads.
func (b *builder) toolchain(ctx context.Context, l language) (*toolchain, error) {
	if tc, ok := b.toolchains[l.lang]; ok {
		return tc, nil
	}
	if err, ok := b.tcErrs[l.lang]; ok {
		return nil, err
	}
	installing := l.lang == LangAssemblyScript && !asInstalled()
	if installing {
		b.say(Event{Kind: EventToolchain, Lang: l.lang, Message: "installing the AssemblyScript compiler with npm (about 100 MB, once per machine)"})
	}
	start := time.Now()
	tc, err := l.toolchain(ctx, exec.LookPath)
	if installing {
		b.say(Event{Kind: EventToolchain, Lang: l.lang, Done: true, Elapsed: time.Since(start), Message: "installed the AssemblyScript compiler"})
	}
	if err != nil {
		b.tcErrs[l.lang] = err
		return nil, err
	}
	b.toolchains[l.lang] = tc
	return tc, nil
}

// asInstalled reports whether the AssemblyScript compiler is in the cache.
func asInstalled() bool {
	pkg, err := sdkguest.FS.ReadFile("assemblyscript/package.json")
	return err == nil && exists(filepath.Join(npmPackagesDir(pkg), ascPath))
}

// markStale leaves the stale marker beside a module the build could not
// replace; without a module there is nothing stale.
func (b *builder) markStale(out string, err error) {
	if exists(out) {
		_ = os.WriteFile(out+StaleSuffix, []byte(err.Error()+"\n"), 0o644)
	}
}

// relative rewrites the source folder's paths in a compiler error to be
// relative to opts.RelativeTo.
func (b *builder) relative(err error, dir string) error {
	if b.opts.RelativeTo == "" {
		return err
	}
	var tce *ToolchainError
	if errors.As(err, &tce) {
		return err
	}
	return &compileError{msg: relativize(err.Error(), dir, b.opts.RelativeTo), err: err}
}

// compileError is a compiler's error with its paths rewritten.
type compileError struct {
	msg string
	err error
}

func (e *compileError) Error() string { return e.msg }
func (e *compileError) Unwrap() error { return e.err }

// relativize rewrites paths to files of dir in a compiler's output so they
// are relative to from: the absolute dir/, and at the start of a line
// "./x" or a bare "x" naming a file in dir (how go, clang and asc report
// a file of the folder they run in). Other text is left alone.
func relativize(msg, dir, from string) string {
	rel, err := filepath.Rel(from, dir)
	if err != nil {
		return msg
	}
	rel = filepath.ToSlash(rel)
	msg = strings.ReplaceAll(msg, dir+string(filepath.Separator), rel+"/")
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " \t")
		indent := line[:len(line)-len(trimmed)]
		file, _, ok := strings.Cut(trimmed, ":")
		if !ok || file == "" || strings.HasPrefix(file, "/") || strings.ContainsAny(file, " \t") {
			continue
		}
		clean := strings.TrimPrefix(file, "./")
		if clean == "" || strings.HasPrefix(clean, "../") || !exists(filepath.Join(dir, filepath.FromSlash(clean))) {
			continue
		}
		lines[i] = indent + rel + "/" + clean + trimmed[len(file):]
	}
	return strings.Join(lines, "\n")
}

// upToDate reports whether the stamp says the module at out was built
// from inputs and is still the module that build wrote.
func upToDate(stamp, inputs, out string) bool {
	b, err := os.ReadFile(stamp)
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	if len(fields) != 2 || fields[0] != inputs {
		return false
	}
	mod, err := fileHash(out)
	return err == nil && mod == fields[1]
}

// inputsHash is the hash of what a module is built from: the language and
// toolchain (its path and version), every file of the source folder (but
// build output folders: target, node_modules), and the guest SDK.
func inputsHash(tc *toolchain, lang Lang, dir, sdk string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "lang %s\ntoolchain %s\n", lang, tc.version)
	for _, root := range []string{dir, sdk} {
		fmt.Fprintf(h, "root\n")
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && p != root && (d.Name() == "target" || d.Name() == "node_modules" || d.Name() == ".git") {
				return filepath.SkipDir
			}
			if !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			fh := sha256.New()
			if _, err := io.Copy(fh, f); err != nil {
				return err
			}
			fmt.Fprintf(h, "%q %x\n", filepath.ToSlash(rel), fh.Sum(nil))
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func fileHash(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Stale returns the modules in configDir/tool whose last build failed,
// by tool name, with that build's error: the module there is older than
// its source.
func Stale(configDir string) map[string]string {
	matches, _ := filepath.Glob(filepath.Join(configDir, "tool", "*.wasm"+StaleSuffix))
	out := map[string]string{}
	for _, m := range matches {
		mod := strings.TrimSuffix(m, StaleSuffix)
		if !exists(mod) {
			continue
		}
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		out[strings.TrimSuffix(filepath.Base(mod), ".wasm")] = strings.TrimSpace(string(b))
	}
	return out
}

// ignoreFiles are the .gitignore files ensureIgnored writes, relative to
// the config directory: the vendored SDK and the build stamps in the
// sources folder, the stale markers and temporary modules beside the
// modules.
var ignoreFiles = map[string]string{
	filepath.Join(SourcesDir, ".gitignore"): "# Written by toolhost: the vendored guest SDK and build state.\n/" + sdkDir + "/\n/" + buildDir + "/\n*/target/\n*/node_modules/\n",
	filepath.Join("tool", ".gitignore"):     "# Written by toolhost: build state beside the modules.\n*" + StaleSuffix + "\n",
}

// ensureIgnored writes ignoreFiles where they are missing; a .gitignore
// the user already has is left as it is.
func ensureIgnored(configDir string) error {
	for rel, content := range ignoreFiles {
		p := filepath.Join(configDir, rel)
		if exists(p) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
	}
	return nil
}
