package js

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/toolhost/toolhost/hostfns"
)

//go:embed prelude.js
var prelude string

// Def is one tool a file exports, as OpenCode names it: the default export
// is the file's name, a named export x is <file>_x.
type Def struct {
	ID          string          `json:"id"`
	Export      string          `json:"export"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"` // the args' JSON Schema, input mode
}

// File is a loaded tool file: its tools and the snapshot every call
// starts from. It is safe for concurrent calls.
type File struct {
	Path string
	Defs []Def

	rt     *Runtime
	ownsRT bool
	snap   *snapshot
	pool   chan *vm
	closed atomic.Bool  // set by Close: instances coming back are closed, not pooled
	funcs  *hostfns.Set // the embedder's host functions (LoadOptions.HostFuncs)
}

// LoadOptions say where the engine and caches live and the memory cap.
type LoadOptions struct {
	// Engine is quickjs.wasm as LoadEngine returned it.
	Engine []byte
	// CacheDir holds bytecode and compiled code ("" keeps them in memory).
	CacheDir string
	// MemoryMaxMB caps the wasm memory of the file's instances (the
	// largest cap of its tools; each call sets its own heap limit).
	MemoryMaxMB int
	// Runtime, when set, is shared with other files (and outlives this
	// one); Engine and MemoryMaxMB are then unused.
	Runtime *Runtime
	// PoolSize bounds the idle instances kept per file. Default 4.
	PoolSize int
	// Root is the folder whose files the tool may import besides
	// node_modules: the project root. Default: the folder holding the
	// tool's folder (.opencode for .opencode/tool/x.ts).
	Root string
	// LoadTimeout bounds running the file's top level and describing its
	// tools. Default 30 s.
	LoadTimeout time.Duration
	// HostFuncs are the embedder's host functions the file's tools may
	// call (context.callHost); nil: none.
	HostFuncs *hostfns.Set
}

// Load builds the tool file at path (or takes its bytecode from the
// cache), runs it once, reads the tools it exports and snapshots the
// instance so calls start from there.
func Load(ctx context.Context, path string, opts LoadOptions) (*File, error) {
	rt, own := opts.Runtime, false
	if rt == nil {
		var err error
		if rt, err = NewRuntime(ctx, opts.Engine, opts.MemoryMaxMB, CompiledDir(opts.CacheDir)); err != nil {
			return nil, err
		}
		own = true
	}
	f, err := load(ctx, rt, path, opts)
	if err != nil {
		if own {
			rt.Close(ctx)
		}
		return nil, err
	}
	f.ownsRT = own
	return f, nil
}

// CompiledDir is where wazero keeps the engine's compiled code under a
// js cache folder ("" when there is none).
func CompiledDir(cache string) string {
	if cache == "" {
		return ""
	}
	return filepath.Join(cache, "compiled")
}

// toolName is the name OpenCode gives a file's default export.
func toolName(path string) string {
	return strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
}

func load(ctx context.Context, rt *Runtime, path string, opts LoadOptions) (*File, error) {
	size := opts.PoolSize
	if size <= 0 {
		size = 4
	}
	if snap, defs, _ := cachedSnapshot(path, opts.Root, opts.CacheDir); snap != nil {
		return &File{Path: path, Defs: defs, rt: rt, snap: snap, pool: make(chan *vm, size), funcs: opts.HostFuncs}, nil
	}
	v, err := rt.newVM(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer v.close(ctx)
	// While the file loads it may log and use randomness, nothing else:
	// no hosts or paths are granted and there is no call to ask for.
	timeout := opts.LoadTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	// The limit counts the top level's own run, not bundling and
	// compiling before it (seconds for zod, more on a loaded machine), so
	// the clock starts once the bytecode is there.
	s := &session{vm: v}
	b := &Bridge{Tool: filepath.Base(path)}
	s.handle = func(ctx context.Context, op string, arg json.RawMessage) (any, error) {
		return b.Handle(ctx, s, op, arg)
	}
	ctx = withSession(ctx, s)
	name := toolName(path)
	bc, key, err := buildCached(ctx, v, path, opts.Root, opts.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	spath := snapshotPath(opts.CacheDir, key, name)
	if snap, defs := readSnapshot(spath); snap != nil {
		return &File{Path: path, Defs: defs, rt: rt, snap: snap, pool: make(chan *vm, size), funcs: opts.HostFuncs}, nil
	}
	s.mu.Lock()
	s.deadline = time.Now().Add(timeout)
	s.mu.Unlock()
	if err := v.runBytecode(ctx, bc); err != nil {
		return nil, loadError(path, s, timeout, err)
	}
	if err := v.runJobs(ctx); err != nil {
		return nil, loadError(path, s, timeout, err)
	}
	q, _ := json.Marshal(name)
	out, err := v.eval(ctx, "__toolhost.describe("+string(q)+")", "describe.js")
	if err != nil {
		return nil, loadError(path, s, timeout, fmt.Errorf("describe its tools: %w", err))
	}
	var defs []Def
	if err := json.Unmarshal([]byte(out), &defs); err != nil {
		return nil, fmt.Errorf("load %s: describe its tools: %w", path, err)
	}
	if len(defs) == 0 {
		return nil, fmt.Errorf("load %s: it exports no tool; export default tool({description, args, execute})", path)
	}
	snap, err := v.snapshot(ctx)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	writeSnapshot(spath, snap, defs)
	return &File{Path: path, Defs: defs, rt: rt, snap: snap, pool: make(chan *vm, size), funcs: opts.HostFuncs}, nil
}

// loadError says why running a file's top level failed, naming the time
// limit when that stopped it.
func loadError(path string, s *session, timeout time.Duration, err error) error {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if errors.Is(stopped, errDeadline) {
		return fmt.Errorf("load %s: its top level ran over %s; move slow work into execute", path, timeout)
	}
	return fmt.Errorf("load %s: %w", path, err)
}

// Close releases the file's idle instances (and its runtime, when Load
// made one). Calls in flight on a shared runtime finish; their instances
// are closed as they come back.
func (f *File) Close(ctx context.Context) error {
	f.closed.Store(true)
	f.drain(ctx)
	if f.ownsRT {
		return f.rt.Close(ctx)
	}
	return nil
}

func (f *File) drain(ctx context.Context) {
	for {
		select {
		case v := <-f.pool:
			v.close(ctx)
		default:
			return
		}
	}
}

// get returns an idle instance or restores a new one from the snapshot.
func (f *File) get(ctx context.Context) (*vm, error) {
	select {
	case v := <-f.pool:
		return v, nil
	default:
		return f.rt.newVM(ctx, f.snap)
	}
}

// put restores v to the snapshot and keeps it for the next call, or
// closes it when the pool is full.
func (f *File) put(ctx context.Context, v *vm) {
	if f.closed.Load() {
		v.close(ctx)
		return
	}
	if err := v.restore(ctx, f.snap); err != nil {
		v.close(ctx)
		return
	}
	select {
	case f.pool <- v:
		if f.closed.Load() {
			f.drain(ctx) // Close ran while v was being restored
		}
	default:
		v.close(ctx)
	}
}
