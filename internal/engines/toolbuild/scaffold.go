package toolbuild

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/toolhost/toolhost/internal/content/textfill"
	sdkguest "github.com/toolhost/toolhost/sdk-guest"
)

//go:generate sh templates/sync.sh

// templates holds the Go and C starting points of `toolhost tool new` (one
// folder per language, laid out as the tool's folder; {{.Name}} in a file
// is the tool's name, filled by internal/content/textfill) and a copy of the Go
// guest SDK, which is its own module and cannot be embedded from
// sdk-guest. templates/sync.sh refreshes that copy; a test checks it
// matches. The other languages' SDKs and templates are embedded where they
// live (package sdkguest).
//
//go:embed templates/go templates/c templates/sdk/go
var templates embed.FS

// Lang is a language `toolhost tool new` can scaffold and `toolhost tool
// build` can build.
type Lang string

// The languages New and Build support; Langs lists them.
const (
	LangGo             Lang = "go"
	LangC              Lang = "c"
	LangRust           Lang = "rust"
	LangAssemblyScript Lang = "assemblyscript"
	LangD              Lang = "d"
)

// Langs returns the supported languages, Go (the default) first.
func Langs() []Lang {
	out := make([]Lang, len(languages))
	for i, l := range languages {
		out[i] = l.lang
	}
	return out
}

// ParseLang returns the language named s ("" is Go), or an error listing
// the supported ones.
func ParseLang(s string) (Lang, error) {
	if s == "" {
		return LangGo, nil
	}
	if _, ok := languageOf(Lang(s)); ok {
		return Lang(s), nil
	}
	return "", fmt.Errorf("language %q is not supported; choose %s", s, langList())
}

// langList is the supported languages as "go, c, … or d".
func langList() string {
	names := make([]string, len(languages))
	for i, l := range languages {
		names[i] = string(l.lang)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// SourcesDir is the folder, inside a config directory (.toolhost), holding
// tool sources; Build writes their modules to the tool/ folder beside it.
const SourcesDir = "tools-src"

// sdkDir is where New vendors the guest SDKs, inside SourcesDir.
const sdkDir = ".sdk"

// validName is what a tool source may be called: a valid tool id that
// leaves room for named tools' suffixes.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,48}$`) })

// New scaffolds a tool source named name in configDir/tools-src/name from
// the language's template, and vendors the guest SDKs into
// configDir/tools-src/.sdk so the tool builds offline (AssemblyScript's
// compiler excepted: Build installs it once per machine). It returns the
// directory created; it refuses to overwrite an existing one. It does not
// need the language's toolchain.
func New(configDir, name string, lang Lang) (string, error) {
	if !validName().MatchString(name) {
		return "", fmt.Errorf("tool name %q: use letters, digits, _ and - (at most 48), as model APIs require", name)
	}
	l, ok := languageOf(lang)
	if !ok {
		return "", fmt.Errorf("language %q is not supported; choose %s", lang, langList())
	}
	src := filepath.Join(configDir, SourcesDir)
	dir := filepath.Join(src, name)
	if _, err := os.Stat(dir); err == nil {
		return "", fmt.Errorf("%s already exists; choose another name or edit it", dir)
	}
	if err := vendorSDK(src); err != nil {
		return "", err
	}
	if err := ensureIgnored(configDir); err != nil {
		return "", err
	}
	fsys, root := templateDir(l.lang)
	err := fs.WalkDir(fsys, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel := strings.TrimSuffix(strings.TrimPrefix(p, root+"/"), ".tmpl")
		if rel == l.named {
			rel = name + path.Ext(rel)
		}
		text, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		filled, err := textfill.Fill(string(text), map[string]any{"Name": name})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		out := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(filled), 0o644)
	})
	if err != nil {
		return "", fmt.Errorf("scaffold %s: %w", name, err)
	}
	return dir, nil
}

// templateDir is where lang's `toolhost tool new` template lives: Go's and
// C's here, the others' beside their SDKs in sdk-guest.
func templateDir(lang Lang) (fs.FS, string) {
	if lang == LangGo || lang == LangC {
		return templates, "templates/" + string(lang)
	}
	return sdkguest.FS, string(lang) + "/template"
}

// vendorSDK writes the embedded guest SDKs to src/.sdk, replacing an older
// copy so a toolhost upgrade brings its SDK along.
func vendorSDK(src string) error {
	dst := filepath.Join(src, sdkDir)
	write := func(rel string, b []byte) error {
		out := filepath.Join(dst, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return fmt.Errorf("vendor guest SDK: %w", err)
		}
		if err := os.WriteFile(out, b, 0o644); err != nil {
			return fmt.Errorf("vendor guest SDK: %w", err)
		}
		return nil
	}
	err := fs.WalkDir(templates, "templates/sdk", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := templates.ReadFile(p)
		if err != nil {
			return err
		}
		return write(sdkFile(p), b)
	})
	if err != nil {
		return err
	}
	for _, lang := range sdkguest.Langs {
		for _, f := range sdkguest.SDKFiles(lang) {
			b, err := sdkguest.FS.ReadFile(lang + "/" + f)
			if err != nil {
				return fmt.Errorf("vendor guest SDK: %w", err)
			}
			if err := write(lang+"/"+f, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// sdkFile is the path, relative to the SDKs' folder, of the embedded Go
// SDK file p, whose copies carry a .txt suffix so this module does not
// compile them.
func sdkFile(p string) string {
	return strings.TrimSuffix(strings.TrimPrefix(p, "templates/sdk/"), ".txt")
}
