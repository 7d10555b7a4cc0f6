package wasm

import (
	"errors"
	"fmt"
)

// reader decodes the parts of a wasm binary that instrumentLoops
// (interrupt.go) reads: LEB128 numbers, names, import descriptions.
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
