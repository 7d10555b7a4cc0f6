package plugins

import (
	"bytes"
	"errors"
	"fmt"
)

// redirectImport returns wasm with every import of fromModule.name
// renamed to toModule.name, and whether there was one. It lets toolhost
// replace one Extism kernel function (http_request, whose Extism version
// cannot be given a guarded HTTP client) without forking the Extism SDK:
// the guest keeps importing extism:host/env http_request as every PDK does,
// and gets toolhost's implementation.
//
// Only the import section is re-encoded; every other byte is kept.
func redirectImport(wasm []byte, fromModule, name, toModule string) ([]byte, bool, error) {
	if len(wasm) < 8 || !bytes.Equal(wasm[:4], wasmMagic) {
		return nil, false, errors.New("not a wasm module")
	}
	r := &reader{b: wasm, pos: 8}
	for r.pos < len(r.b) {
		start := r.pos
		id, err := r.byte()
		if err != nil {
			return nil, false, err
		}
		size, err := r.u32()
		if err != nil {
			return nil, false, err
		}
		bodyStart := r.pos
		if bodyStart+int(size) > len(r.b) {
			return nil, false, errors.New("section overruns the module")
		}
		r.pos = bodyStart + int(size)
		if id != 2 { // import section
			continue
		}
		body, changed, err := rewriteImports(wasm[bodyStart:r.pos], fromModule, name, toModule)
		if err != nil || !changed {
			return wasm, false, err
		}
		var out bytes.Buffer
		out.Grow(len(wasm) + 16)
		out.Write(wasm[:start])
		out.WriteByte(2)
		out.Write(leb(uint64(len(body))))
		out.Write(body)
		out.Write(wasm[r.pos:])
		return out.Bytes(), true, nil
	}
	return wasm, false, nil
}

func rewriteImports(sec []byte, fromModule, name, toModule string) ([]byte, bool, error) {
	r := &reader{b: sec}
	n, err := r.u32()
	if err != nil {
		return nil, false, err
	}
	var out bytes.Buffer
	out.Write(leb(uint64(n)))
	changed := false
	for range n {
		mod, err := r.name()
		if err != nil {
			return nil, false, err
		}
		field, err := r.name()
		if err != nil {
			return nil, false, err
		}
		descStart := r.pos
		if err := r.skipImportDesc(); err != nil {
			return nil, false, fmt.Errorf("import %s.%s: %w", mod, field, err)
		}
		if mod == fromModule && field == name {
			mod, changed = toModule, true
		}
		out.Write(leb(uint64(len(mod))))
		out.WriteString(mod)
		out.Write(leb(uint64(len(field))))
		out.WriteString(field)
		out.Write(sec[descStart:r.pos])
	}
	if r.pos != len(sec) {
		return nil, false, errors.New("import section has trailing bytes")
	}
	return out.Bytes(), changed, nil
}

type reader struct {
	b   []byte
	pos int
}

var errShort = errors.New("truncated wasm module")

func (r *reader) byte() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errShort
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

func (r *reader) u64() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return 0, errors.New("LEB128 number too long")
}

func (r *reader) u32() (uint32, error) {
	v, err := r.u64()
	if v > 0xffffffff {
		return 0, errors.New("LEB128 number over 32 bits")
	}
	return uint32(v), err
}

func (r *reader) name() (string, error) {
	n, err := r.u32()
	if err != nil {
		return "", err
	}
	if r.pos+int(n) > len(r.b) {
		return "", errShort
	}
	s := string(r.b[r.pos : r.pos+int(n)])
	r.pos += int(n)
	return s, nil
}

func (r *reader) limits() error {
	flags, err := r.byte()
	if err != nil {
		return err
	}
	if _, err := r.u64(); err != nil {
		return err
	}
	if flags&1 != 0 {
		_, err = r.u64()
	}
	return err
}

// skipImportDesc skips an import's description: function, table, memory,
// global or tag.
func (r *reader) skipImportDesc() error {
	kind, err := r.byte()
	if err != nil {
		return err
	}
	switch kind {
	case 0: // func: type index
		_, err = r.u32()
	case 1: // table: reftype, limits
		if _, err = r.byte(); err == nil {
			err = r.limits()
		}
	case 2: // memory
		err = r.limits()
	case 3: // global: valtype, mutability
		if _, err = r.byte(); err == nil {
			_, err = r.byte()
		}
	case 4: // tag: attribute, type index
		if _, err = r.byte(); err == nil {
			_, err = r.u32()
		}
	default:
		err = fmt.Errorf("unknown import kind %d", kind)
	}
	return err
}

func leb(v uint64) []byte {
	var out []byte
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			out = append(out, c|0x80)
			continue
		}
		return append(out, c)
	}
}
