//go:generate go run github.com/toolhost/toolhost/sdk-guest/go/cmd/toolhost-gen

// Command loc is a toolhost wasm tool that counts lines of code in the
// project by language, reading the files through a read-only grant and
// reporting its progress live through metadata while it walks.
//
//	"wasm": {"loc": {"allowed_paths": {"ro:.": "/project"}}}
package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	tool "github.com/toolhost/toolhost/sdk-guest/go"
)

// Root is where the project appears inside the guest.
const Root = "/project"

// progressEvery is how many files pass between progress reports.
const progressEvery = 50

type Args struct {
	Path string `json:"path,omitempty" jsonschema:"description=Directory to count\\, relative to the project root (default: the whole project)"`
}

// skipDirs are never worth counting.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, ".toolhost": true}

type stat struct {
	ext          string
	files, lines int
}

var _ = tool.Main("Count lines of code in the project by file extension (blank lines excluded). Skips .git, node_modules and vendor.",
	func(ctx *tool.Context, a Args) (tool.Result, error) {
		root := path.Join(Root, path.Clean("/"+a.Path))
		if _, err := os.Stat(root); err != nil {
			if a.Path == "" {
				return tool.Result{}, fmt.Errorf("the project is not mounted at %s; grant it with \"allowed_paths\": {\"ro:.\": %q} in the loc tool's config", Root, Root)
			}
			return tool.Result{}, fmt.Errorf("%s: no such directory in the project", a.Path)
		}
		stats := map[string]*stat{}
		files := 0
		err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable entries are skipped, not fatal
			}
			if d.IsDir() {
				if skipDirs[d.Name()] {
					return fs.SkipDir
				}
				return nil
			}
			ext := path.Ext(p)
			if ext == "" {
				ext = "(none)"
			}
			b, err := os.ReadFile(path.Join(root, p))
			if err != nil || bytes.IndexByte(b, 0) >= 0 { // unreadable or binary
				return nil
			}
			s := stats[ext]
			if s == nil {
				s = &stat{ext: ext}
				stats[ext] = s
			}
			s.files++
			for _, line := range bytes.Split(b, []byte("\n")) {
				if len(bytes.TrimSpace(line)) > 0 {
					s.lines++
				}
			}
			files++
			if files%progressEvery == 0 {
				ctx.Metadata(fmt.Sprintf("%d files counted", files), map[string]any{"files": files, "current": p})
			}
			return nil
		})
		if err != nil {
			return tool.Result{}, err
		}
		list := make([]*stat, 0, len(stats))
		total := 0
		for _, s := range stats {
			list = append(list, s)
			total += s.lines
		}
		sort.Slice(list, func(i, j int) bool {
			if list[i].lines != list[j].lines {
				return list[i].lines > list[j].lines
			}
			return list[i].ext < list[j].ext
		})
		var b strings.Builder
		fmt.Fprintf(&b, "%-10s %8s %10s\n", "extension", "files", "lines")
		for _, s := range list {
			fmt.Fprintf(&b, "%-10s %8d %10d\n", s.ext, s.files, s.lines)
		}
		fmt.Fprintf(&b, "%-10s %8d %10d\n", "total", files, total)
		return tool.Result{Output: b.String(), Title: fmt.Sprintf("%d lines in %d files", total, files),
			Metadata: map[string]any{"files": files, "lines": total}}, nil
	})

func main() {}
