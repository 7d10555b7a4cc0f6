package wasm

import (
	"errors"
	"fmt"
)

// reader decodes the parts of a wasm binary that instrumentLoops
// (interrupt.go, loopcheck.go) reads: LEB128 numbers, names, import
// descriptions, types, and each opcode's immediates, read against the
// binary format's opcode tables (WebAssembly 2.0 with tail calls,
// exceptions, typed function references, threads and SIMD).
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

func (r *reader) skipLEB() error {
	for i := 0; i < 10; i++ {
		c, err := r.byte()
		if err != nil {
			return err
		}
		if c&0x80 == 0 {
			return nil
		}
	}
	return errors.New("LEB128 number too long")
}

func (r *reader) skipN(n int) error {
	if r.pos+n > len(r.b) {
		return errShort
	}
	r.pos += n
	return nil
}

func (r *reader) skipLEBs(n int) error {
	for range n {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return nil
}

// skipValType skips a value type, including a typed reference (ref null?
// heaptype).
func (r *reader) skipValType() error {
	c, err := r.byte()
	if err != nil {
		return err
	}
	if c == 0x63 || c == 0x64 {
		return r.skipLEB()
	}
	return nil
}

// skipMemarg skips a memory immediate: alignment (bit 6 announces a
// memory index, multi-memory) and offset.
func (r *reader) skipMemarg() error {
	align, err := r.u32()
	if err != nil {
		return err
	}
	if align&0x40 != 0 {
		if err := r.skipLEB(); err != nil {
			return err
		}
	}
	return r.skipLEB()
}

var errUnknownOpcode = errors.New("unknown opcode")

// skipImmediates skips the immediates of op (WebAssembly 2.0 with tail
// calls, exceptions, typed function references, threads and SIMD).
func (r *reader) skipImmediates(op byte) error {
	switch {
	case op == 0x00 || op == 0x01 || op == 0x05 || op == 0x0a || op == 0x0b || op == 0x0f || op == 0x19 || op == 0x1a || op == 0x1b:
		return nil
	case op >= 0x02 && op <= 0x04, op == 0x06: // block, loop, if, try: block type
		return r.skipLEB()
	case op == 0x07 || op == 0x08 || op == 0x09 || op == 0x0c || op == 0x0d || op == 0x10 || op == 0x12 || op == 0x14 || op == 0x15 || op == 0x18:
		return r.skipLEB()
	case op == 0x0e: // br_table
		n, err := r.u32()
		if err != nil {
			return err
		}
		return r.skipLEBs(int(n) + 1)
	case op == 0x11 || op == 0x13: // call_indirect, return_call_indirect
		return r.skipLEBs(2)
	case op == 0x1c: // select t*
		n, err := r.u32()
		if err != nil {
			return err
		}
		for range n {
			if err := r.skipValType(); err != nil {
				return err
			}
		}
		return nil
	case op == 0x1f: // try_table
		if err := r.skipLEB(); err != nil {
			return err
		}
		n, err := r.u32()
		if err != nil {
			return err
		}
		for range n {
			kind, err := r.byte()
			if err != nil {
				return err
			}
			switch kind {
			case 0, 1:
				err = r.skipLEBs(2)
			case 2, 3:
				err = r.skipLEB()
			default:
				err = fmt.Errorf("unknown catch kind %d", kind)
			}
			if err != nil {
				return err
			}
		}
		return nil
	case op >= 0x20 && op <= 0x26: // locals, globals, table.get/set
		return r.skipLEB()
	case op >= 0x28 && op <= 0x3e: // loads and stores
		return r.skipMemarg()
	case op == 0x3f || op == 0x40: // memory.size, memory.grow
		return r.skipLEB()
	case op == 0x41 || op == 0x42:
		return r.skipLEB()
	case op == 0x43:
		return r.skipN(4)
	case op == 0x44:
		return r.skipN(8)
	case op >= 0x45 && op <= 0xc4:
		return nil
	case op == 0xd0 || op == 0xd2 || op == 0xd5 || op == 0xd6: // ref.null, ref.func, br_on_null, br_on_non_null
		return r.skipLEB()
	case op == 0xd1 || op == 0xd3 || op == 0xd4:
		return nil
	case op == 0xfc:
		return r.skipFC()
	case op == 0xfd:
		return r.skipSIMD()
	case op == 0xfe:
		return r.skipAtomic()
	}
	return errUnknownOpcode
}

func (r *reader) skipFC() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 7:
		return nil
	case sub == 8 || sub == 10 || sub == 12 || sub == 14: // memory.init, memory.copy, table.init, table.copy
		return r.skipLEBs(2)
	case sub == 9 || sub == 11 || sub == 13 || (sub >= 15 && sub <= 17):
		return r.skipLEB()
	}
	return fmt.Errorf("%w 0xfc %d", errUnknownOpcode, sub)
}

func (r *reader) skipSIMD() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub <= 11, sub == 92 || sub == 93: // loads, stores, load_zero
		return r.skipMemarg()
	case sub == 12 || sub == 13: // v128.const, i8x16.shuffle
		return r.skipN(16)
	case sub >= 21 && sub <= 34: // extract/replace lane
		return r.skipN(1)
	case sub >= 84 && sub <= 91: // load/store lane
		if err := r.skipMemarg(); err != nil {
			return err
		}
		return r.skipN(1)
	case sub <= 0x113:
		return nil
	}
	return fmt.Errorf("%w 0xfd %d", errUnknownOpcode, sub)
}

func (r *reader) skipAtomic() error {
	sub, err := r.u32()
	if err != nil {
		return err
	}
	switch {
	case sub == 3: // atomic.fence
		return r.skipN(1)
	case sub <= 2, sub >= 0x10 && sub <= 0x4e:
		return r.skipMemarg()
	}
	return fmt.Errorf("%w 0xfe %d", errUnknownOpcode, sub)
}
