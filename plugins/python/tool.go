package python

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/toolhost/toolhost/plugins/js"
	"github.com/toolhost/toolhost/runtime"
	"github.com/toolhost/toolhost/runtime/config"
)

// Tool is one tool of a File, as a runtime.Tool.
type Tool struct {
	file *File
	def  Def
	log  *slog.Logger
}

// Tools returns the file's tools as runtime tools.
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

// ID is the tool's id: the file's name, or <file>_<function>.
func (t *Tool) ID() string { return t.def.ID }

// Def is the tool's description and schema.
func (t *Tool) Def() Def { return t.def }

// Init returns the tool's description and argument schema.
func (t *Tool) Init(context.Context, runtime.InitContext) (*runtime.Definition, error) {
	return &runtime.Definition{Description: t.def.Description, Parameters: t.def.Schema, Execute: t.execute}, nil
}

// Warm starts the tool's pool for cfg's grants, so the first call finds
// an instance waiting.
func (t *Tool) Warm(cfg *config.Config, worktree string) {
	lim, b, env := js.Grants(cfg, t.grantFile(), runtime.SourcePython, worktree)
	t.file.Warm(Sandbox{Paths: b.Paths, Env: env, MemoryMaxMB: lim.MemoryMaxMB})
}

func (t *Tool) execute(ctx context.Context, args json.RawMessage, tc *runtime.Context) (runtime.Result, error) {
	cfg, info, log := js.CallOf(tc, t.log)
	lim, b, env := js.Grants(cfg, t.grantFile(), runtime.SourcePython, info.Worktree)
	b.Context, b.Log, b.Funcs = tc, log, t.file.funcs
	out, err := t.file.Call(ctx, t.def, args, info, lim, Sandbox{Paths: b.Paths, Env: env}, b)
	return js.Result(out, err, b, lim)
}

// grantFile is the tool as "wasm" grants see it: its id, its file's name
// and the file, so a grant reaches it only from a config allowed to grant
// that file (config.Config.WasmFor).
func (t *Tool) grantFile() config.ToolFile {
	return config.ToolFile{Names: []string{t.def.ID, t.file.src.stem}, Path: t.file.src.path}
}

var _ runtime.Tool = (*Tool)(nil)

// File is the file the tool is defined in.
func (t *Tool) File() *File { return t.file }
