package python

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Files lists the Python tool files in the tool/ and tools/ folders of
// configDirs, lowest precedence first, sorted by name within a folder.
// Names starting with "_" or "." (helpers, __init__.py) are not tools.
func Files(configDirs []string) []string {
	var out []string
	for _, d := range configDirs {
		for _, sub := range []string{"tool", "tools"} {
			dir := filepath.Join(d, sub)
			ents, err := os.ReadDir(dir)
			if err != nil {
				continue
			}
			var names []string
			for _, e := range ents {
				n := e.Name()
				if !e.IsDir() && filepath.Ext(n) == ".py" && !strings.HasPrefix(n, "_") && !strings.HasPrefix(n, ".") {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			for _, n := range names {
				out = append(out, filepath.Join(dir, n))
			}
		}
	}
	return out
}
