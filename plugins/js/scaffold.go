package js

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Langs are the --lang values `toolhost tool new` scaffolds with Scaffold.
var Langs = []string{"ts", "typescript", "js", "javascript"}

// IsLang reports whether lang names TypeScript or JavaScript.
func IsLang(lang string) bool {
	for _, l := range Langs {
		if strings.EqualFold(lang, l) {
			return true
		}
	}
	return false
}

var scaffoldName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,48}$`) })

// Scaffold writes configDir/tool/<name>.ts (or .js), an OpenCode-format
// tool file that runs as it is: no build step. It refuses to overwrite a
// file, and says when zod is not installed above configDir.
func Scaffold(configDir, name, lang string) (path, hint string, err error) {
	if !scaffoldName().MatchString(name) {
		return "", "", fmt.Errorf("tool name %q: use letters, digits, _ and - (at most 48), as model APIs require", name)
	}
	ext, src := ".ts", tsTemplate
	if l := strings.ToLower(lang); l == "js" || l == "javascript" {
		ext, src = ".js", jsTemplate
	}
	path = filepath.Join(configDir, "tool", name+ext)
	if _, err := os.Stat(path); err == nil {
		return "", "", fmt.Errorf("%s already exists; choose another name or edit it", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", "", err
	}
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(src, "NAME", name)), 0o644); err != nil {
		return "", "", err
	}
	if !installed(filepath.Dir(path), realPath(filepath.Dir(configDir)), "zod") {
		hint = fmt.Sprintf("it needs zod: run `npm install zod` in %s", filepath.Dir(configDir))
	}
	return path, hint, nil
}

const tsTemplate = `import { tool } from "@opencode-ai/plugin"

// NAME runs inside toolhost's WebAssembly sandbox. Grant what it needs in
// the config: "wasm": {"NAME": {"allowed_hosts": [...], "allowed_paths": {...}}}.
export default tool({
  description: "Say hello to someone",
  args: {
    name: tool.schema.string().describe("who to greet"),
    excited: tool.schema.boolean().default(false),
  },
  async execute(args, context) {
    context.metadata({ title: ` + "`greeting ${args.name}`" + ` })
    return ` + "`hello ${args.name}${args.excited ? \"!\" : \".\"}`" + `
  },
})
`

const jsTemplate = `import { tool } from "@opencode-ai/plugin"

// NAME runs inside toolhost's WebAssembly sandbox. Grant what it needs in
// the config: "wasm": {"NAME": {"allowed_hosts": [...], "allowed_paths": {...}}}.
export default tool({
  description: "Say hello to someone",
  args: {
    name: tool.schema.string().describe("who to greet"),
  },
  async execute(args) {
    return ` + "`hello ${args.name}`" + `
  },
})
`
