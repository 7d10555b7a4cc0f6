package resources

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// OutputScheme and OutputPrefix make the URI of a saved full output:
// toolhost://tool-output/<file name>.
const (
	OutputScheme = "toolhost"
	OutputPrefix = OutputScheme + "://tool-output/"
)

// MaxOutputs caps how many saved outputs a server remembers; the oldest
// is forgotten first.
const MaxOutputs = 1000

// Outputs serves the full outputs toolhost saved when it truncated a
// tool's output — only those of calls this process answered (Add), never
// the rest of the shared output directory, which holds other projects'
// and other sessions' outputs.
type Outputs struct {
	dir string

	mu    sync.Mutex
	names []string // oldest first
}

// NewOutputs serves outputs saved in dir (the registry's truncation
// directory).
func NewOutputs(dir string) *Outputs { return &Outputs{dir: dir} }

// Add records a saved output by its path and returns its URI; false when
// the path is not a file directly in the output directory.
func (o *Outputs) Add(path string) (string, bool) {
	if o == nil || o.dir == "" || path == "" {
		return "", false
	}
	if filepath.Dir(filepath.Clean(path)) != filepath.Clean(o.dir) {
		return "", false
	}
	name := filepath.Base(path)
	if strings.HasPrefix(name, ".") {
		return "", false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if !slices.Contains(o.names, name) {
		o.names = append(o.names, name)
		if len(o.names) > MaxOutputs {
			o.names = o.names[len(o.names)-MaxOutputs:]
		}
	}
	return OutputPrefix + url.PathEscape(name), true
}

// List returns the remembered outputs that still exist, newest first.
func (o *Outputs) List() []Resource {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	names := slices.Clone(o.names)
	o.mu.Unlock()
	var out []Resource
	for i := len(names) - 1; i >= 0; i-- {
		if _, err := StampFile(o.dir, names[i]); err != nil {
			continue // swept by retention
		}
		out = append(out, Resource{URI: OutputPrefix + url.PathEscape(names[i]), Name: "tool-output/" + names[i], MIMEType: "text/plain"})
	}
	return out
}

// name is the remembered file of uri.
func (o *Outputs) name(uri string) (string, error) {
	rest, ok := strings.CutPrefix(uri, OutputPrefix)
	if !ok || o == nil {
		return "", fmt.Errorf("%w: %s", ErrNotFound, uri)
	}
	name, err := url.PathUnescape(rest)
	if err != nil {
		return "", fmt.Errorf("%w: %s", ErrNotFound, uri)
	}
	o.mu.Lock()
	known := slices.Contains(o.names, name)
	o.mu.Unlock()
	if !known {
		return "", fmt.Errorf("%w: %s (only outputs saved by this server's calls are served)", ErrNotFound, uri)
	}
	return name, nil
}

// Read returns a remembered output.
func (o *Outputs) Read(uri string) (Content, error) {
	name, err := o.name(uri)
	if err != nil {
		return Content{}, err
	}
	data, err := ReadFile(o.dir, name)
	if err != nil {
		return Content{}, err
	}
	c := ContentOf(uri, name, data)
	if c.IsText {
		c.MIMEType = "text/plain"
	}
	return c, nil
}

// Stamp is what changes when a remembered output changes.
func (o *Outputs) Stamp(uri string) (string, error) {
	name, err := o.name(uri)
	if err != nil {
		return "", err
	}
	return StampFile(o.dir, name)
}
