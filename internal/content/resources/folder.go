package resources

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// MaxRead caps the bytes of one resource read; a larger file is refused.
const MaxRead = 8 << 20

// MaxFiles caps how many files of a folder are listed.
const MaxFiles = 1000

// maxValue caps one template value taken from a URI.
const maxValue = 256

// TopScheme is the scheme of files directly in the folder.
const TopScheme = "resource"

// Resource is one file of a folder: a concrete resource, or a template
// when its path holds {name} placeholders (URI is then the URI template
// and Vars its variables).
type Resource struct {
	URI      string
	Name     string // the path inside the folder, slash-separated
	MIMEType string
	Size     int64
	Vars     []string // template variables, in order; nil for a concrete file

	match *regexp.Regexp // templates: the URIs they serve
}

// Template reports whether r is a resource template.
func (r Resource) Template() bool { return r.Vars != nil }

// Content is what a read returns: Text for text (UTF-8), else Blob.
type Content struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	IsText   bool
}

// ErrNotFound is returned for a URI the folder does not serve.
var ErrNotFound = errors.New("no such resource")

// Folder serves the files of one directory. The directory is opened for
// each operation, so files added or removed while it serves are seen; a
// directory that does not exist serves nothing.
type Folder struct {
	dir string
}

// NewFolder serves dir.
func NewFolder(dir string) *Folder { return &Folder{dir: dir} }

// Dir is the folder's directory.
func (f *Folder) Dir() string { return f.dir }

var (
	schemeRe      = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9+.-]{0,31}$`) })
	placeholderRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]{0,63})\}`) })
	// templateSegRe is what a template path segment may hold besides
	// placeholders: characters that need no escaping in a URI path.
	templateSegRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9._~!$&'()*+,;=:@{}-]+$`) })
)

// List returns the folder's resources and templates, sorted by URI. Hidden
// files and folders (".name"), files whose path leaves the folder through
// a link, and paths that make no URI (a first folder that is not a URI
// scheme) are left out; at most MaxFiles are listed.
func (f *Folder) List() ([]Resource, error) {
	root, err := os.OpenRoot(f.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open resources folder %s: %w", f.dir, err)
	}
	defer root.Close()
	var out []Resource
	err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: skipped, the rest is served
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if len(out) >= MaxFiles {
			return fs.SkipAll
		}
		info, err := root.Stat(p) // follows links, inside the root only
		if err != nil || !info.Mode().IsRegular() {
			return nil
		}
		r, ok := resourceOf(p)
		if !ok {
			return nil
		}
		r.Size = info.Size()
		r.MIMEType = mimeOf(p, nil)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list resources folder %s: %w", f.dir, err)
	}
	slices.SortFunc(out, func(a, b Resource) int { return strings.Compare(a.URI, b.URI) })
	return out, nil
}

// resourceOf is the resource of a slash-separated path inside the folder.
func resourceOf(p string) (Resource, bool) {
	segs := strings.Split(p, "/")
	scheme, rest := TopScheme, segs
	if len(segs) > 1 {
		scheme, rest = segs[0], segs[1:]
		if !schemeRe().MatchString(scheme) {
			return Resource{}, false
		}
	}
	r := Resource{Name: p}
	if !strings.Contains(p, "{") {
		esc := make([]string, len(rest))
		for i, s := range rest {
			esc[i] = url.PathEscape(s)
		}
		r.URI = scheme + "://" + strings.Join(esc, "/")
		return r, true
	}
	// A template: every segment must read the same in a URI, and each
	// variable appear once.
	pattern := "^" + regexp.QuoteMeta(scheme+"://")
	vars := []string{}
	for i, s := range rest {
		if !templateSegRe().MatchString(s) {
			return Resource{}, false
		}
		if i > 0 {
			pattern += "/"
		}
		last := 0
		for _, m := range placeholderRe().FindAllStringSubmatchIndex(s, -1) {
			lit := s[last:m[0]]
			if strings.ContainsAny(lit, "{}") {
				return Resource{}, false
			}
			name := s[m[2]:m[3]]
			if slices.Contains(vars, name) {
				return Resource{}, false
			}
			vars = append(vars, name)
			pattern += regexp.QuoteMeta(lit) + "([^/?#]+)"
			last = m[1]
		}
		if strings.ContainsAny(s[last:], "{}") {
			return Resource{}, false
		}
		pattern += regexp.QuoteMeta(s[last:])
	}
	if len(vars) == 0 {
		return Resource{}, false
	}
	r.URI = scheme + "://" + strings.Join(rest, "/")
	r.Vars = vars
	r.match = regexp.MustCompile(pattern + "$")
	return r, true
}

// Find returns the resource serving uri: the concrete file of that URI,
// else the first template (by URI) matching it, with the template's
// values. ErrNotFound when none.
func (f *Folder) Find(uri string) (Resource, map[string]string, error) {
	all, err := f.List()
	if err != nil {
		return Resource{}, nil, err
	}
	for _, r := range all {
		if !r.Template() && r.URI == uri {
			return r, nil, nil
		}
	}
	for _, r := range all {
		if !r.Template() {
			continue
		}
		if vals, ok := r.values(uri); ok {
			return r, vals, nil
		}
	}
	return Resource{}, nil, fmt.Errorf("%w: %s", ErrNotFound, uri)
}

// values are a template's variables in uri, when it matches.
func (r Resource) values(uri string) (map[string]string, bool) {
	m := r.match.FindStringSubmatch(uri)
	if m == nil {
		return nil, false
	}
	vals := make(map[string]string, len(r.Vars))
	for i, name := range r.Vars {
		v, err := url.PathUnescape(m[i+1])
		if err != nil || len(v) > maxValue || !utf8.ValidString(v) || strings.ContainsAny(v, "/\x00") {
			return nil, false
		}
		vals[name] = v
	}
	return vals, true
}

// Read returns the content of uri: a concrete file as it is, or a
// template's file with the URI's values filled in.
func (f *Folder) Read(uri string) (Content, error) { return f.ReadJudged(uri, nil) }

// ReadJudged is Read with judge deciding on the file as opened (see
// ReadFileJudged); name is its path inside the folder.
func (f *Folder) ReadJudged(uri string, judge Judge) (Content, error) {
	r, vals, err := f.Find(uri)
	if err != nil {
		return Content{}, err
	}
	data, err := ReadFileJudged(f.dir, r.Name, judge)
	if err != nil {
		return Content{}, err
	}
	c := ContentOf(uri, r.Name, data)
	if r.Template() {
		if !c.IsText {
			return Content{}, fmt.Errorf("resource template %s: the file is not text, so it cannot take values", r.Name)
		}
		c.Text = fill(c.Text, vals, c.MIMEType)
	}
	return c, nil
}

// fill replaces {name} in text with vals[name]; for JSON, the value is
// escaped as the inside of a JSON string. Placeholders of other names are
// left alone.
func fill(text string, vals map[string]string, mimeType string) string {
	isJSON := mimeType == "application/json" || strings.HasSuffix(mimeType, "+json")
	return placeholderRe().ReplaceAllStringFunc(text, func(m string) string {
		v, ok := vals[m[1:len(m)-1]]
		if !ok {
			return m
		}
		if isJSON {
			b, _ := json.Marshal(v)
			return string(b[1 : len(b)-1])
		}
		return v
	})
}

// Values completes a template variable: the values of that variable in the
// concrete resources the template would also match, starting with prefix,
// at most 100.
func (f *Folder) Values(template, variable, prefix string) ([]string, error) {
	all, err := f.List()
	if err != nil {
		return nil, err
	}
	var tmpl *Resource
	for i := range all {
		if all[i].Template() && all[i].URI == template {
			tmpl = &all[i]
		}
	}
	if tmpl == nil || !slices.Contains(tmpl.Vars, variable) {
		return nil, fmt.Errorf("%w: template %s with variable %s", ErrNotFound, template, variable)
	}
	var out []string
	for _, r := range all {
		if r.Template() {
			continue
		}
		if vals, ok := tmpl.values(r.URI); ok {
			v := vals[variable]
			if strings.HasPrefix(v, prefix) && !slices.Contains(out, v) && len(out) < 100 {
				out = append(out, v)
			}
		}
	}
	return out, nil
}

// Stamp is what changes when uri's file changes (size and modification
// time), for subscriptions.
func (f *Folder) Stamp(uri string) (string, error) {
	r, _, err := f.Find(uri)
	if err != nil {
		return "", err
	}
	return StampFile(f.dir, r.Name)
}

// StampFile is the size and modification time of name inside dir, read
// through an os.Root.
func StampFile(dir, name string) (string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	info, err := root.Stat(filepath.FromSlash(name))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d", info.Size(), info.ModTime().UnixNano()), nil
}

// ReadFile reads name (slash-separated, relative) inside dir through an
// os.Root, refusing hidden names, anything that leaves dir and files over
// MaxRead bytes.
func ReadFile(dir, name string) ([]byte, error) { return ReadFileJudged(dir, name, nil) }

// Judge decides whether a file may be served, on the file as opened: name
// is the path it was opened by, info the open file's Stat. Deciding on the
// open file, not on a look before the open, means the bytes read are those
// of the file judged, even if a name was swapped meanwhile — a hard link
// to a denied file (fspath.Links) put in place of an allowed one.
type Judge func(name string, info fs.FileInfo) error

// ReadFileJudged is ReadFile with judge (nil: none) asked about the opened
// file before a byte of it is read; its error is returned as it is.
func ReadFileJudged(dir, name string, judge Judge) ([]byte, error) {
	if name == "" || path.IsAbs(name) || filepath.IsAbs(name) || strings.Contains(name, "\\") {
		return nil, fmt.Errorf("read %q: not a relative path inside %s", name, dir)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == ".." || strings.HasPrefix(seg, ".") && seg != "." {
			return nil, fmt.Errorf("read %q: hidden files and %q are not served", name, "..")
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer root.Close()
	file, err := root.Open(filepath.FromSlash(name))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file", name)
	}
	if judge != nil {
		if err := judge(name, info); err != nil {
			return nil, err
		}
	}
	if info.Size() > MaxRead {
		return nil, fmt.Errorf("read %s: %d bytes, more than the %d a resource may have", name, info.Size(), MaxRead)
	}
	data, err := io.ReadAll(io.LimitReader(file, MaxRead+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(data) > MaxRead {
		return nil, fmt.Errorf("read %s: more than the %d bytes a resource may have", name, MaxRead)
	}
	return data, nil
}

// ContentOf is the content of a file's data under uri: text when its MIME
// type is textual and the data UTF-8, else a blob.
func ContentOf(uri, name string, data []byte) Content {
	m := mimeOf(name, data)
	c := Content{URI: uri, MIMEType: m}
	if IsText(m) && utf8.Valid(data) {
		c.Text, c.IsText = string(data), true
	} else {
		c.Blob = data
	}
	return c
}

// mimeOf is the MIME type (without parameters) of a file: by extension,
// else sniffed from data (when given), else text/plain for an
// extensionless name.
func mimeOf(name string, data []byte) string {
	if ext := path.Ext(name); ext != "" && !strings.ContainsAny(ext, "{}") {
		if t := mime.TypeByExtension(ext); t != "" {
			return bare(t)
		}
	}
	if data != nil {
		return bare(http.DetectContentType(data))
	}
	return ""
}

func bare(t string) string {
	t, _, _ = strings.Cut(t, ";")
	return strings.TrimSpace(t)
}

// IsText reports whether a MIME type is text a client can show as such
// (text/*, JSON, XML, JavaScript, YAML, TOML; "" counts as text).
func IsText(m string) bool {
	switch {
	case m == "", strings.HasPrefix(m, "text/"),
		m == "application/json", strings.HasSuffix(m, "+json"),
		m == "application/xml", strings.HasSuffix(m, "+xml"),
		m == "application/javascript", m == "application/yaml", m == "application/toml":
		return true
	}
	return false
}
