package js

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/plugins/wasm"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
	"github.com/toolhost/toolhost/runtime/permission"
)

// Tool is one export of a File, as a runtime.Tool.
type Tool struct {
	file *File
	def  Def
	log  *slog.Logger
}

// Tools returns the file's exports as runtime tools.
func (f *File) Tools(log *slog.Logger) []*Tool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	out := make([]*Tool, 0, len(f.Defs))
	for _, d := range f.Defs {
		out = append(out, &Tool{file: f, def: d, log: log})
	}
	return out
}

// ID is OpenCode's id for the export.
func (t *Tool) ID() string { return t.def.ID }

// Def is the export's description and schema.
func (t *Tool) Def() Def { return t.def }

// Init returns the export's description and argument schema.
func (t *Tool) Init(context.Context, runtime.InitContext) (*runtime.Definition, error) {
	return &runtime.Definition{Description: t.def.Description, Parameters: t.def.Schema, Execute: t.execute}, nil
}

func (t *Tool) execute(ctx context.Context, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
	cfg, info, log := CallOf(tc, t.log)
	lim, b, env := t.grants(cfg, info.Worktree)
	info.Env = env
	b.Context, b.Log, b.Funcs = tc, log, t.file.funcs
	out, err := t.file.Call(ctx, t.def.Export, args, info, lim, b)
	return Result(out, err, b, lim)
}

// CallOf is what a script tool's call takes from its runtime.Context (nil
// in tests): the config its grants are read from, the call's ids and
// folders, and the call's logger (log when it has none).
func CallOf(tc *runtime.Context, log *slog.Logger) (*config.Config, CallInfo, *slog.Logger) {
	if tc == nil {
		return nil, CallInfo{}, log
	}
	if tc.Logger != nil {
		log = tc.Logger
	}
	return tc.Config, CallInfo{SessionID: tc.SessionID, MessageID: tc.MessageID, Agent: tc.Agent, CallID: tc.CallID, Directory: tc.Directory, Worktree: tc.Worktree}, log
}

// Result is a script tool's output or failure as the runtime's result.
// The tool's error after an ask was refused is that refusal, so denial,
// rejection and correction stay distinguishable; an output over the limit
// is wasm.ErrOutputLimit.
func Result(out *Output, err error, b *Bridge, lim Limits) (runtime.Result, error) {
	if err != nil {
		var te *ToolError
		if perm := b.PermissionError(); perm != nil && errors.As(err, &te) {
			return runtime.Result{}, perm
		}
		return runtime.Result{}, err
	}
	if len(out.Output) > lim.OutputBytes {
		return runtime.Result{}, fmt.Errorf("%w: %d bytes, over %d; raise %s.max_output_mb if the tool needs more", wasm.ErrOutputLimit, len(out.Output), lim.OutputBytes, lim.ConfigKey)
	}
	res := runtime.Result{Title: out.Title, Output: out.Output, Metadata: out.Metadata}
	for _, a := range out.Attachments {
		res.Attachments = append(res.Attachments, runtime.Attachment{MIME: a.Mime, URL: a.URL, Filename: a.Filename})
	}
	return res, nil
}

// grants reads the tool's "wasm" config (see Grants).
func (t *Tool) grants(cfg *config.Config, worktree string) (Limits, *Bridge, map[string]string) {
	return Grants(cfg, t.GrantFile(), runtime.SourceJS, worktree)
}

// Grants reads the "wasm" config of the tool file — by tool id, then by
// file name (file.Names), from the config files that may grant that file
// (config.Config.WasmFor) — with the same defaults as every wasm tool: the
// call's limits, a Bridge holding its HTTP policy, its "sampling" grant,
// allowed_paths (resolved against worktree) and the scope its approvals
// are kept under (the tool id, source and file), and env, the variables
// the config's "env" names that are set in toolhost's environment, as
// wasm tools get them through WASI. Python tools (package python) read
// their grants here too.
func Grants(cfg *config.Config, file config.ToolFile, source runtime.Source, worktree string) (lim Limits, b *Bridge, env map[string]string) {
	id := file.Names[0]
	wc, key, _ := cfg.WasmFor(file)
	if key == "" {
		key = "wasm." + id
	}
	lim = Limits{Timeout: time.Duration(config.DefaultWasmTimeoutMS) * time.Millisecond, MemoryMaxMB: config.DefaultWasmMemoryMB, ConfigKey: key}
	if wc.TimeoutMS > 0 {
		lim.Timeout = time.Duration(wc.TimeoutMS) * time.Millisecond
	}
	if wc.MemoryMaxMB > 0 {
		lim.MemoryMaxMB = wc.MemoryMaxMB
	}
	b = &Bridge{Tool: id, Scope: permission.Scope{Tool: id, Source: string(source), File: file.Path}, HTTP: hostfns.HTTPPolicy{AllowedHosts: wc.AllowedHosts, ConfigKey: key}}
	maxOut := config.DefaultWasmOutputMB
	if wc.MaxOutputMB > 0 {
		maxOut = wc.MaxOutputMB
	}
	b.HTTP.MaxResponse = int64(maxOut) << 20
	b.Sampling = wc.Sampling
	lim.OutputBytes = maxOut << 20
	b.Paths = wc.HostPaths(worktree)
	env = wc.EnvValues()
	return lim, b, env
}

// GrantFile is the tool as "wasm" grants see it: its id, its file's name
// and the file.
func (t *Tool) GrantFile() config.ToolFile {
	name := strings.TrimSuffix(filepath.Base(t.file.Path), filepath.Ext(t.file.Path))
	return config.ToolFile{Names: []string{t.def.ID, name}, Path: t.file.Path}
}

var _ runtime.Tool = (*Tool)(nil)
