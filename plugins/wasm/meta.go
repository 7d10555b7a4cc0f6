package wasm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/toolhost/toolhost/hostfns"
	"github.com/toolhost/toolhost/runtime"
)

// What a module provides, and the cache of it: the tool exports a module
// has, the description, schema and traits each tool reports, the checks
// they must pass, and the on-disk cache that keeps a module from being
// asked again (keyed by its sha256).

// toolExports finds the tools a module exports: "" when it exports
// description, schema and execute, and N for every N_description,
// N_schema, N_execute triple. A partial triple is an error.
func toolExports(fns map[string]api.FunctionDefinition) ([]string, error) {
	kinds := []string{hostfns.ExportDescription, hostfns.ExportSchema, hostfns.ExportExecute}
	have := map[string]map[string]bool{}
	for name := range fns {
		for _, k := range kinds {
			if name == k {
				add(have, "", k)
			} else if prefix, ok := strings.CutSuffix(name, "_"+k); ok && prefix != "" {
				add(have, prefix, k)
			}
		}
	}
	var out, problems []string
	for prefix, ks := range have {
		var missing []string
		for _, k := range kinds {
			if !ks[k] {
				missing = append(missing, exportName(prefix, k))
			}
		}
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("missing export %s", strings.Join(missing, ", ")))
			continue
		}
		out = append(out, prefix)
	}
	sort.Strings(out)
	sort.Strings(problems)
	if len(problems) > 0 {
		return nil, fmt.Errorf("%s (a tool needs description, schema and execute; see docs/abi.md)", strings.Join(problems, "; "))
	}
	if len(out) == 0 {
		return nil, errors.New("exports no tools: a module must export description, schema and execute, or N_description, N_schema and N_execute (see docs/abi.md)")
	}
	return out, nil
}

func add(m map[string]map[string]bool, prefix, kind string) {
	if m[prefix] == nil {
		m[prefix] = map[string]bool{}
	}
	m[prefix][kind] = true
}

// checkSchema refuses a schema that is not a valid JSON Schema for an
// object, as the registry would later.
func checkSchema(id string, schema []byte) error {
	var obj map[string]any
	if err := json.Unmarshal(schema, &obj); err != nil {
		return fmt.Errorf("schema of %s is not a JSON object: %w", id, err)
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return fmt.Errorf(`schema of %s has type %v; tool arguments must be an object schema ("type": "object")`, id, t)
	}
	if _, err := runtime.CompileSchema(id, schema); err != nil {
		return err
	}
	return nil
}

// readMeta returns the cached description and schemas of a module.
func (h *Engine) readMeta(sum string) (moduleMeta, bool) {
	var meta moduleMeta
	if !h.readCache(sum+".json", &meta) || meta.ABI != hostfns.ABIVersion || len(meta.Tools) == 0 {
		return moduleMeta{}, false
	}
	return meta, true
}

// writeMeta caches a module's description and schemas.
func (h *Engine) writeMeta(sum string, meta moduleMeta) { h.writeCache(sum+".json", meta) }

// readCache decodes the JSON cache file name of the meta cache into v.
func (h *Engine) readCache(name string, v any) bool {
	if h.cacheDir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(h.cacheDir, "meta", name))
	return err == nil && json.Unmarshal(b, v) == nil
}

// writeCache stores v as the JSON cache file name, atomically (temporary
// file and rename) so a concurrent reader never sees half of it. Failing
// to is only slower next time.
func (h *Engine) writeCache(name string, v any) {
	if h.cacheDir == "" {
		return
	}
	dir := filepath.Join(h.cacheDir, "meta")
	b, _ := json.Marshal(v)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		h.log.Debug("wasm meta cache", "err", err)
		return
	}
	tmp, err := os.CreateTemp(dir, name+".*.tmp")
	if err != nil {
		h.log.Debug("wasm meta cache", "err", err)
		return
	}
	_, werr := tmp.Write(b)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(dir, name)) != nil {
		os.Remove(tmp.Name())
	}
}

// toolMeta asks one tool export of an instance for its description and
// schema and checks both. A failed guest call marks the instance unhealthy;
// remedy says how to fix an invalid id.
func (m *module) toolMeta(ctx context.Context, c *compiled, in *instance, export, remedy string, healthy *bool) (toolMeta, error) {
	id := m.toolID(export)
	if !validID().MatchString(id) {
		return toolMeta{}, fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s); %s", id, validID(), remedy)
	}
	desc, err := m.host.callMeta(ctx, c, in, id, exportName(export, hostfns.ExportDescription))
	if err != nil {
		*healthy = false
		return toolMeta{}, err
	}
	schema, err := m.host.callMeta(ctx, c, in, id, exportName(export, hostfns.ExportSchema))
	if err != nil {
		*healthy = false
		return toolMeta{}, err
	}
	if err := checkSchema(id, schema); err != nil {
		return toolMeta{}, err
	}
	tm := toolMeta{Export: export, Description: strings.TrimSpace(string(desc)), Schema: json.RawMessage(schema)}
	traitsExport := exportName(export, hostfns.ExportTraits)
	if _, ok := in.exports()[traitsExport]; ok {
		out, err := m.host.callMeta(ctx, c, in, id, traitsExport)
		if err != nil {
			*healthy = false
			return toolMeta{}, err
		}
		if tm.Traits, err = parseTraits(out); err != nil {
			return toolMeta{}, fmt.Errorf("%s of %s: %w", traitsExport, id, err)
		}
	}
	return tm, nil
}
