package server

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/toolhost/toolhost/internal/third_party/gosdk/mcp"

	"github.com/toolhost/toolhost/internal/confine/fspath"
	"github.com/toolhost/toolhost/internal/content/prompts"
	"github.com/toolhost/toolhost/internal/content/resources"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/permission"
)

// project serves what a project offers besides tools: its skills and
// commands as prompts (with argument completion), its resources/ folder
// and the full outputs of truncated calls as resources (with templates,
// template-variable completion and subscriptions).
//
// Files are the source of truth, read again whenever a client asks (a
// listing, a get, a read, a completion), so a prompt or resource added
// while the server runs is offered at once and the client is told the list
// changed. The SDK's own registries are kept in step with the files
// (sync), which gives paging, URI-template matching and subscription
// bookkeeping for free.
type project struct {
	sdk     *sdk.Server
	log     *slog.Logger
	dirs    []string // config directories, lowest precedence first
	root    string   // project root, for @path in commands; "" none
	folder  *resources.Folder
	outputs *resources.Outputs
	// rules are the served agent's; a skill they deny (permission
	// skillPermission, pattern the skill's name) is not a prompt either.
	rules permission.Ruleset

	mu        sync.Mutex
	prompts   map[string]prompts.Prompt
	resources map[string]bool // registered URIs (and URI templates, under "t:")
	watched   map[string]*watch
	subs      map[*sdk.ServerSession]map[string]bool // each session's subscriptions

	stop chan struct{}
	once sync.Once
}

// watch is one subscribed URI: how many subscriptions, and its file's
// stamp when last seen.
type watch struct {
	n     int
	stamp string
}

// ResourcesFolder is the project folder served as resources.
const ResourcesFolder = "resources"

// defaultPollInterval is how often subscribed resources are checked for
// changes.
const defaultPollInterval = time.Second

// maxSubscriptions caps one session's subscriptions: each is checked on
// every poll, and a resource template offers endless URIs to subscribe to.
const maxSubscriptions = 100

// skillPermission is the permission the skill tool asks, with the skill's
// name as pattern (builtins/skill.go).
const skillPermission = "skill"

func newProject(s *sdk.Server, opts Options, rules permission.Ruleset) *project {
	p := &project{
		sdk: s, log: opts.Logger, dirs: opts.ConfigDirs, root: opts.Project, rules: rules,
		outputs:   resources.NewOutputs(opts.OutputDir),
		prompts:   map[string]prompts.Prompt{},
		resources: map[string]bool{},
		watched:   map[string]*watch{},
		subs:      map[*sdk.ServerSession]map[string]bool{},
		stop:      make(chan struct{}),
	}
	if opts.Project != "" {
		if abs, err := filepath.Abs(opts.Project); err == nil {
			p.root = abs // links are resolved against it (readable)
		}
		p.folder = resources.NewFolder(filepath.Join(p.root, ResourcesFolder))
	}
	interval := opts.PollInterval
	if interval <= 0 {
		interval = defaultPollInterval
	}
	go p.poll(interval)
	return p
}

func (p *project) close() { p.once.Do(func() { close(p.stop) }) }

// capabilities are the prompt, resource and completion capabilities the
// server declares.
func projectCapabilities(caps *sdk.ServerCapabilities) {
	caps.Prompts = &sdk.PromptCapabilities{ListChanged: true}
	caps.Resources = &sdk.ResourceCapabilities{ListChanged: true, Subscribe: true}
	caps.Completions = &sdk.CompletionCapabilities{}
}

// syncing is receiving middleware: before a request about prompts,
// resources or completion is served, the SDK's registries are brought in
// step with the files.
func (p *project) syncing(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		switch {
		case strings.HasPrefix(method, "prompts/"), method == "completion/complete":
			p.syncPrompts()
			if method == "completion/complete" {
				p.syncResources()
			}
		case strings.HasPrefix(method, "resources/"):
			p.syncResources()
		}
		return next(ctx, method, req)
	}
}

func (p *project) syncPrompts() {
	found, errs := prompts.Discover(p.dirs)
	for _, err := range errs {
		p.log.Warn("prompt skipped", "err", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := map[string]prompts.Prompt{}
	for _, pr := range found {
		if pr.Kind == prompts.KindSkill {
			if rule, _ := permission.Evaluate(skillPermission, pr.Name, p.rules); rule.Action == permission.Deny {
				continue
			}
		}
		now[pr.Name] = pr
	}
	var gone []string
	for name := range p.prompts {
		if _, ok := now[name]; !ok {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		p.sdk.RemovePrompts(gone...)
	}
	for name, pr := range now {
		if old, ok := p.prompts[name]; ok && samePrompt(old, pr) {
			continue
		}
		p.sdk.AddPrompt(sdkPrompt(pr), p.getPrompt)
	}
	p.prompts = now
}

func samePrompt(a, b prompts.Prompt) bool {
	if a.Description != b.Description || a.File != b.File || len(a.Arguments) != len(b.Arguments) {
		return false
	}
	for i := range a.Arguments {
		if a.Arguments[i].Name != b.Arguments[i].Name || a.Arguments[i].Required != b.Arguments[i].Required || a.Arguments[i].Description != b.Arguments[i].Description {
			return false
		}
	}
	return true
}

func sdkPrompt(pr prompts.Prompt) *sdk.Prompt {
	desc := pr.Description
	if desc == "" {
		desc = "The " + pr.Name + " " + pr.Kind + " of this project."
	}
	sp := &sdk.Prompt{Name: pr.Name, Description: desc, Meta: sdk.Meta{"toolhost/kind": pr.Kind}}
	for _, a := range pr.Arguments {
		sp.Arguments = append(sp.Arguments, &sdk.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
	}
	return sp
}

// getPrompt fills in a prompt: the embedded files and resources its
// template names, one message each, then its text.
func (p *project) getPrompt(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
	p.mu.Lock()
	pr, ok := p.prompts[req.Params.Name]
	p.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("no prompt %q", req.Params.Name)
	}
	ex, err := prompts.Expand(pr, req.Params.Arguments, resolver{p})
	if err != nil {
		return nil, fmt.Errorf("prompt %s: %w", pr.Name, err)
	}
	res := &sdk.GetPromptResult{Description: sdkPrompt(pr).Description}
	for _, c := range ex.Embeds {
		res.Messages = append(res.Messages, &sdk.PromptMessage{Role: "user", Content: contentOf(c)})
	}
	res.Messages = append(res.Messages, &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: ex.Text}})
	return res, nil
}

// contentOf is a file or resource as prompt content: an image or audio
// clip as such, anything else as an embedded resource.
func contentOf(c resources.Content) sdk.Content {
	switch {
	case strings.HasPrefix(c.MIMEType, "image/") && !c.IsText:
		return &sdk.ImageContent{Data: c.Blob, MIMEType: c.MIMEType}
	case strings.HasPrefix(c.MIMEType, "audio/") && !c.IsText:
		return &sdk.AudioContent{Data: c.Blob, MIMEType: c.MIMEType}
	}
	return &sdk.EmbeddedResource{Resource: resourceContents(c)}
}

func resourceContents(c resources.Content) *sdk.ResourceContents {
	rc := &sdk.ResourceContents{URI: c.URI, MIMEType: c.MIMEType}
	if c.IsText {
		rc.Text = c.Text
	} else {
		rc.Blob = c.Blob
	}
	if rc.MIMEType == "" {
		rc.MIMEType = "text/plain"
	}
	return rc
}

// judge decides, for one request (a listing, a read, a prompt), which
// project files may be served: what the read tool would read at once.
// Resources and @file embeds reach the model through the client without a
// tool call, so a file the rules deny, or would ask a person about, is not
// served; nor is a hidden file, by any name. A file has more names than the
// one asked for: a symbolic link is judged by the file it leads to as well
// as by its own name, and a file with hard links by every other name it
// has in the project (fspath.Links, which walks the project at most once
// per request) — and not at all when some of its names are not found (they
// lie outside the project). A path that cannot be resolved inside the
// project is not served.
type judge struct {
	p     *project
	root  string // the project's real path; "" when there is none
	links *fspath.Links
}

func (p *project) judge() *judge {
	j := &judge{p: p}
	if p.root != "" {
		if root, err := filepath.EvalSymlinks(p.root); err == nil {
			j.root = root
			j.links = fspath.NewLinks(root)
		}
	}
	return j
}

// readable reports whether rel (slash-separated, relative to the project
// root) may be served, judged on the file as it is now; the read itself
// judges again the file it opened (opened).
func (j *judge) readable(rel string) bool {
	if !j.p.allowedRead(rel) {
		return false
	}
	if j.p.root == "" {
		return true
	}
	if j.root == "" {
		return false
	}
	target, err := filepath.EvalSymlinks(filepath.Join(j.p.root, filepath.FromSlash(rel)))
	if err != nil {
		return false
	}
	real, err := filepath.Rel(j.root, target)
	if err != nil || !filepath.IsLocal(real) {
		return false
	}
	if !j.name(filepath.ToSlash(real)) {
		return false
	}
	info, err := os.Stat(target)
	return err == nil && j.opened(rel, info) == nil
}

// name reports whether a real name of a file (no link on the way) may be
// served: not hidden, and allowed by the read rules.
func (j *judge) name(real string) bool {
	for _, seg := range strings.Split(real, "/") {
		if strings.HasPrefix(seg, ".") && seg != "." {
			return false // hidden files are not served, by any name
		}
	}
	return j.p.allowedRead(real)
}

// opened judges the file rel names by its other names (hard links), on
// info, a Stat of the file as opened. Why a file is refused goes to the
// log, for the person who set up the project; the client is told only that
// the file has names that keep it back, and how to serve it.
func (j *judge) opened(rel string, info fs.FileInfo) error {
	if fspath.LinkCount(info) <= 1 {
		return nil
	}
	if j.links == nil {
		return fmt.Errorf("%s: %w: the project cannot be searched for them", rel, fspath.ErrHardLinked)
	}
	if err := j.links.Names(info).Check(rel, j.name); err != nil {
		j.p.log.Warn("hard-linked file not served", "file", rel, "err", err)
		return fmt.Errorf("%s: %w: not every name of it may be read, or some lie outside the project; to serve it, make it a file of its own rather than a hard link", rel, fspath.ErrHardLinked)
	}
	return nil
}

// allowedRead reports whether the rules allow reading rel without asking.
func (p *project) allowedRead(rel string) bool {
	rule, _ := permission.Evaluate(permissionRead, filepath.FromSlash(rel), p.rules)
	return rule.Action == permission.Allow
}

// permissionRead is the read tool's permission (builtins/read.go).
const permissionRead = "read"

// errNotReadable is a resource or embed the read rules keep back.
var errNotReadable = errors.New("the read permission rules do not allow this file without asking; it is not served")

// resolver reads @references of commands: project files under the root,
// resources by URI.
type resolver struct{ p *project }

func (r resolver) File(path string) (resources.Content, error) {
	if r.p.root == "" {
		return resources.Content{}, errors.New("no project root")
	}
	j := r.p.judge()
	if !j.readable(path) {
		return resources.Content{}, fmt.Errorf("@%s: %w", path, errNotReadable)
	}
	data, err := resources.ReadFileJudged(r.p.root, path, j.opened)
	if err != nil {
		return resources.Content{}, err
	}
	uri := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(r.p.root, filepath.FromSlash(path)))}).String()
	return resources.ContentOf(uri, path, data), nil
}

func (r resolver) Resource(uri string) (resources.Content, error) { return r.p.read(uri) }

// read reads a served resource.
func (p *project) read(uri string) (resources.Content, error) {
	if strings.HasPrefix(uri, resources.OutputPrefix) {
		return p.outputs.Read(uri)
	}
	if p.folder == nil {
		return resources.Content{}, fmt.Errorf("%w: %s", resources.ErrNotFound, uri)
	}
	j := p.judge()
	if err := p.servable(uri, j); err != nil {
		return resources.Content{}, err
	}
	return p.folder.ReadJudged(uri, func(name string, info fs.FileInfo) error {
		return j.opened(path.Join(ResourcesFolder, name), info)
	})
}

// servable refuses, as not found, a URI of the resources folder whose file
// the read rules keep back.
func (p *project) servable(uri string, j *judge) error {
	if r, _, err := p.folder.Find(uri); err == nil && !j.readable(path.Join(ResourcesFolder, r.Name)) {
		return fmt.Errorf("%w: %s", resources.ErrNotFound, uri)
	}
	return nil
}

// stamp is what changes when uri changes; j judges its file (one judge
// serves a whole poll, so hard-linked files cost one walk of the project
// per poll, not one per subscription).
func (p *project) stamp(uri string, j *judge) (string, error) {
	if strings.HasPrefix(uri, resources.OutputPrefix) {
		return p.outputs.Stamp(uri)
	}
	if p.folder == nil {
		return "", fmt.Errorf("%w: %s", resources.ErrNotFound, uri)
	}
	if err := p.servable(uri, j); err != nil {
		return "", err
	}
	return p.folder.Stamp(uri)
}

func (p *project) syncResources() {
	var all []resources.Resource
	if p.folder != nil {
		list, err := p.folder.List()
		if err != nil {
			p.log.Warn("resources folder not served", "err", err)
		}
		j := p.judge()
		for _, r := range list {
			if j.readable(path.Join(ResourcesFolder, r.Name)) {
				all = append(all, r)
			}
		}
	}
	all = append(all, p.outputs.List()...)
	p.mu.Lock()
	defer p.mu.Unlock()
	now := map[string]bool{}
	for _, r := range all {
		key := r.URI
		if r.Template() {
			key = "t:" + r.URI
		}
		now[key] = true
		if p.resources[key] {
			continue
		}
		desc := "File " + r.Name + " of the project's " + ResourcesFolder + " folder"
		if strings.HasPrefix(r.URI, resources.OutputPrefix) {
			desc = "The full output of a tool call, saved when it was truncated"
		}
		if r.Template() {
			p.sdk.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: r.URI, Name: r.Name, Description: desc + "; {" + strings.Join(r.Vars, "}, {") + "} fill in its text", MIMEType: r.MIMEType}, p.readResource)
		} else {
			p.sdk.AddResource(&sdk.Resource{URI: r.URI, Name: r.Name, Description: desc, MIMEType: r.MIMEType, Size: r.Size}, p.readResource)
		}
	}
	var goneURIs, goneTemplates []string
	for key := range p.resources {
		if now[key] {
			continue
		}
		if t, ok := strings.CutPrefix(key, "t:"); ok {
			goneTemplates = append(goneTemplates, t)
		} else {
			goneURIs = append(goneURIs, key)
		}
	}
	if len(goneURIs) > 0 {
		p.sdk.RemoveResources(goneURIs...)
	}
	if len(goneTemplates) > 0 {
		p.sdk.RemoveResourceTemplates(goneTemplates...)
	}
	p.resources = now
}

func (p *project) readResource(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	c, err := p.read(req.Params.URI)
	if errors.Is(err, resources.ErrNotFound) {
		return nil, sdk.ResourceNotFoundError(req.Params.URI)
	}
	if err != nil {
		return nil, err
	}
	return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{resourceContents(c)}}, nil
}

// complete suggests values for a prompt's argument (the values its front
// matter lists) or a resource template's variable (the values the
// folder's own files give it).
func (p *project) complete(_ context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	var vals []string
	var err error
	switch ref.Type {
	case "ref/prompt":
		p.mu.Lock()
		pr, ok := p.prompts[ref.Name]
		p.mu.Unlock()
		if !ok {
			return nil, fmt.Errorf("complete: no prompt %q", ref.Name)
		}
		vals, err = prompts.Complete(pr, arg.Name, arg.Value)
	case "ref/resource":
		if p.folder == nil {
			return nil, fmt.Errorf("complete: no resource template %q", ref.URI)
		}
		vals, err = p.folder.Values(ref.URI, arg.Name, arg.Value)
	default:
		return nil, fmt.Errorf("complete: reference type %q: use ref/prompt or ref/resource", ref.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("complete: %w", err)
	}
	if vals == nil {
		vals = []string{}
	}
	return &sdk.CompleteResult{Completion: sdk.CompletionResultDetails{Values: vals, Total: len(vals)}}, nil
}

// subscribe watches a served resource for changes; resources/updated is
// sent to its subscribers when its file changes.
// A session's subscriptions end with it.
func (p *project) subscribe(_ context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	stamp, err := p.stamp(uri, p.judge())
	if err != nil {
		return fmt.Errorf("subscribe to %s: %w", uri, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	mine := p.subs[req.Session]
	if mine == nil {
		mine = map[string]bool{}
		p.subs[req.Session] = mine
		if ss := req.Session; ss != nil {
			go func() {
				_ = ss.Wait()
				p.mu.Lock()
				defer p.mu.Unlock()
				for uri := range p.subs[ss] {
					p.unwatch(uri)
				}
				delete(p.subs, ss)
			}()
		}
	}
	if mine[uri] {
		return nil // already subscribed
	}
	if len(mine) >= maxSubscriptions {
		return fmt.Errorf("subscribe to %s: this session already has %d subscriptions, the most it may hold; unsubscribe from some first", uri, maxSubscriptions)
	}
	mine[uri] = true
	w := p.watched[uri]
	if w == nil {
		w = &watch{stamp: stamp}
		p.watched[uri] = w
	}
	w.n++
	return nil
}

func (p *project) unsubscribe(_ context.Context, req *sdk.UnsubscribeRequest) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if mine := p.subs[req.Session]; mine[req.Params.URI] {
		delete(mine, req.Params.URI)
		p.unwatch(req.Params.URI)
	}
	return nil
}

// unwatch drops one subscription of uri; p.mu is held.
func (p *project) unwatch(uri string) {
	if w := p.watched[uri]; w != nil {
		if w.n--; w.n <= 0 {
			delete(p.watched, uri)
		}
	}
}

// watchedURIs lists the URIs being watched, for tests.
func (p *project) watchedURIs() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.watched))
	for uri := range p.watched {
		out = append(out, uri)
	}
	slices.Sort(out)
	return out
}

// poll checks the subscribed resources every interval and tells their
// subscribers of a change (a file written, replaced or removed).
func (p *project) poll(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		// The files are checked without the lock: each check walks the
		// folder, and requests (listings, gets, subscriptions) must not
		// wait for all of them.
		p.mu.Lock()
		uris := make([]string, 0, len(p.watched))
		for uri := range p.watched {
			uris = append(uris, uri)
		}
		p.mu.Unlock()
		stamps := make(map[string]string, len(uris))
		j := p.judge()
		for _, uri := range uris {
			stamp, err := p.stamp(uri, j)
			if err != nil {
				stamp = "gone"
			}
			stamps[uri] = stamp
		}
		var changed []string
		p.mu.Lock()
		for uri, stamp := range stamps {
			if w := p.watched[uri]; w != nil && stamp != w.stamp {
				w.stamp = stamp
				changed = append(changed, uri)
			}
		}
		p.mu.Unlock()
		for _, uri := range changed {
			if err := p.sdk.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
				p.log.Debug("resource update not sent", "uri", uri, "err", err)
			}
		}
	}
}

// linkOutput serves the full output of a truncated call as a resource and
// links it from the call's result, so the client can read all of it.
func (p *project) linkOutput(res runtime.Result, r *sdk.CallToolResult) {
	path, _ := res.Metadata["outputPath"].(string)
	if path == "" || r.IsError {
		return
	}
	if uri, ok := p.outputs.Add(path); ok {
		r.Content = append(r.Content, &sdk.ResourceLink{URI: uri, Name: "tool-output/" + filepath.Base(path), MIMEType: "text/plain", Description: "The full output, of which the text above is a part"})
	}
}
