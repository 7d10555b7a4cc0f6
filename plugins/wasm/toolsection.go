package wasm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/tetratelabs/wazero/api"
	"github.com/toolhost/toolhost/hostfns"
)

// ToolsSection is the name of the wasm custom section in which `toolhost
// tool build` records every tool's name, description and schema (docs/abi.md,
// "Tool list section"). Discovery reads it from the binary instead of
// compiling the module and calling description and schema, which for a
// Go-built module costs seconds. It is advisory: it is believed only when
// the tools it names are exactly the tools the module exports, and calls
// always run the module's real exports.
const ToolsSection = "toolhost.tools"

// Limits on a tool list section. A section over them is ignored (the
// module is asked instead), never read in part.
const (
	maxToolsSection     = 1 << 20 // bytes of JSON
	maxSectionTools     = 256
	maxToolDescription  = 64 << 10
	maxToolSchema       = 256 << 10
	toolsSectionVersion = hostfns.ABIVersion
)

// toolsSectionDoc is the section's JSON payload.
type toolsSectionDoc struct {
	ABI   string     `json:"abi"`
	Tools []toolMeta `json:"tools"`
}

// scannedModule is what listing can learn from a wasm binary without
// compiling it.
type scannedModule struct {
	exports []string // exported function names
	section []byte   // payload of the toolhost.tools section; nil when absent
}

// scanModule walks the sections of a wasm binary: the function exports and
// the toolhost.tools custom section. It reads only section headers, the
// export section and custom section names, so it costs microseconds for a
// module of megabytes. Two tools sections, or one over maxToolsSection,
// are an error, and an error returns nothing.
func scanModule(wasm []byte) (scannedModule, error) {
	s, err := scanSections(wasm)
	if err != nil {
		return scannedModule{}, err
	}
	return s, nil
}

func scanSections(wasm []byte) (scannedModule, error) {
	var out scannedModule
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], wasmMagic) {
		return out, errors.New("not a wasm module")
	}
	r := &reader{b: wasm, pos: 8}
	found := false
	for r.pos < len(r.b) {
		id, err := r.byte()
		if err != nil {
			return out, err
		}
		size, err := r.u32()
		if err != nil {
			return out, err
		}
		if int64(r.pos)+int64(size) > int64(len(r.b)) {
			return out, errors.New("section overruns the module")
		}
		body := &reader{b: r.b[r.pos : r.pos+int(size)]}
		r.pos += int(size)
		switch id {
		case 0: // custom
			name, err := body.name()
			if err != nil {
				return out, fmt.Errorf("custom section name: %w", err)
			}
			if name != ToolsSection {
				continue
			}
			if found {
				return out, fmt.Errorf("two %s sections", ToolsSection)
			}
			found = true
			payload := body.b[body.pos:]
			if len(payload) > maxToolsSection {
				return out, fmt.Errorf("%s section is %d bytes, over the %d-byte limit", ToolsSection, len(payload), maxToolsSection)
			}
			out.section = payload
		case 7: // export
			if out.exports, err = functionExports(body); err != nil {
				return out, fmt.Errorf("export section: %w", err)
			}
		}
	}
	return out, nil
}

// functionExports reads an export section and returns the names of the
// exported functions.
func functionExports(r *reader) ([]string, error) {
	n, err := r.u32()
	if err != nil {
		return nil, err
	}
	if int(n) > len(r.b) { // each export takes at least 3 bytes
		return nil, errShort
	}
	var names []string
	for range n {
		name, err := r.name()
		if err != nil {
			return nil, err
		}
		kind, err := r.byte()
		if err != nil {
			return nil, err
		}
		if _, err := r.u32(); err != nil {
			return nil, err
		}
		if kind == 0 {
			names = append(names, name)
		}
	}
	if r.pos != len(r.b) {
		return nil, errors.New("trailing bytes")
	}
	return names, nil
}

// sectionMeta decodes and checks a module's tool list section against its
// exports. It fails — and the caller asks the module itself — unless the
// section is well-formed JSON of this ABI version within the limits, every
// tool it lists is a tool the module exports and every exported tool is
// listed, each id is a valid tool name, and each schema compiles. A module
// whose file was renamed is fine: ids are made from the file name, as for
// any module.
func (m *module) sectionMeta(s scannedModule) (moduleMeta, error) {
	dec := json.NewDecoder(bytes.NewReader(s.section))
	var doc toolsSectionDoc
	if err := dec.Decode(&doc); err != nil {
		return moduleMeta{}, fmt.Errorf("not valid JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return moduleMeta{}, errors.New("trailing data after the JSON document")
	}
	if doc.ABI != toolsSectionVersion {
		return moduleMeta{}, fmt.Errorf("abi %q, this host reads %q", doc.ABI, toolsSectionVersion)
	}
	if len(doc.Tools) == 0 || len(doc.Tools) > maxSectionTools {
		return moduleMeta{}, fmt.Errorf("lists %d tools; want 1 to %d", len(doc.Tools), maxSectionTools)
	}
	fns := make(map[string]api.FunctionDefinition, len(s.exports)) // toolExports reads the names only
	for _, name := range s.exports {
		fns[name] = nil
	}
	exported, err := toolExports(fns)
	if err != nil {
		return moduleMeta{}, err
	}
	var listed []string
	for _, tm := range doc.Tools {
		listed = append(listed, tm.Export)
	}
	slices.Sort(listed)
	if !slices.Equal(listed, exported) {
		return moduleMeta{}, fmt.Errorf("lists tools %s but the module exports %s", exportList(listed), exportList(exported))
	}
	meta := moduleMeta{ABI: hostfns.ABIVersion}
	for _, tm := range doc.Tools {
		id := m.toolID(tm.Export)
		if !validID().MatchString(id) {
			return moduleMeta{}, fmt.Errorf("tool id %q is not a valid tool name for model APIs (%s)", id, validID())
		}
		if len(tm.Description) > maxToolDescription {
			return moduleMeta{}, fmt.Errorf("description of %s is %d bytes, over the %d-byte limit", id, len(tm.Description), maxToolDescription)
		}
		if len(tm.Schema) > maxToolSchema {
			return moduleMeta{}, fmt.Errorf("schema of %s is %d bytes, over the %d-byte limit", id, len(tm.Schema), maxToolSchema)
		}
		if err := checkSchema(id, tm.Schema); err != nil {
			return moduleMeta{}, err
		}
		meta.Tools = append(meta.Tools, toolMeta{Export: tm.Export, Description: strings.TrimSpace(tm.Description), Schema: tm.Schema})
	}
	slices.SortFunc(meta.Tools, func(a, b toolMeta) int { return strings.Compare(a.Export, b.Export) })
	return meta, nil
}

// exportList names tool exports for an error message: "" is the main tool.
func exportList(exports []string) string {
	if len(exports) == 0 {
		return "none"
	}
	out := make([]string, len(exports))
	for i, e := range exports {
		if e == "" {
			e = "(main)"
		}
		out[i] = e
	}
	return strings.Join(out, ", ")
}

// withToolsSection returns wasm with its toolhost.tools sections removed
// and one holding meta appended. Every other byte is kept.
func withToolsSection(wasm []byte, meta moduleMeta) ([]byte, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], wasmMagic) {
		return nil, errors.New("not a wasm module")
	}
	payload, err := json.Marshal(toolsSectionDoc{ABI: toolsSectionVersion, Tools: meta.Tools})
	if err != nil {
		return nil, err
	}
	if len(payload) > maxToolsSection {
		return nil, fmt.Errorf("the tool list is %d bytes, over the %d-byte limit of the %s section; shorten the descriptions or schemas", len(payload), maxToolsSection, ToolsSection)
	}
	var out bytes.Buffer
	out.Grow(len(wasm) + len(payload) + 32)
	out.Write(wasm[:8])
	r := &reader{b: wasm, pos: 8}
	for r.pos < len(r.b) {
		start := r.pos
		id, err := r.byte()
		if err != nil {
			return nil, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, err
		}
		if int64(r.pos)+int64(size) > int64(len(r.b)) {
			return nil, errors.New("section overruns the module")
		}
		body := &reader{b: r.b[r.pos : r.pos+int(size)]}
		r.pos += int(size)
		if id == 0 {
			if name, err := body.name(); err == nil && name == ToolsSection {
				continue
			}
		}
		out.Write(wasm[start:r.pos])
	}
	name := append(leb(uint64(len(ToolsSection))), ToolsSection...)
	out.WriteByte(0)
	out.Write(leb(uint64(len(name) + len(payload))))
	out.Write(name)
	out.Write(payload)
	return out.Bytes(), nil
}
