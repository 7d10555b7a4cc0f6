package wasm

import "fmt"

// The sections besides the code that name functions and globals: a
// global's initial value and an element segment may hold a reference to
// a function (ref.func), which the guest can then call through a table.
// One naming an index the instrumentation adds — $flush, $bulk, a
// resume function — is refused, as in the code (it was invalid anyway).

// funcs is how many functions the module has, imported and defined.
func (m *moduleShape) funcs() uint64 { return m.importedFuncs + uint64(len(m.funcTypes)) }

// constExpr reads a constant expression up to its end, checking the
// indices of ref.func and global.get.
func (m *moduleShape) constExpr(r *reader) error {
	for {
		op, err := r.byte()
		if err != nil {
			return err
		}
		var limit uint64
		switch op {
		case opEnd:
			return nil
		case opRefFunc:
			limit = m.funcs()
		case opGlobalGet:
			limit = m.globals
		default:
			if err := r.skipImmediates(op); err != nil {
				return err
			}
			continue
		}
		i, err := r.u32()
		if err == nil && uint64(i) >= limit {
			err = fmt.Errorf("%s index %d out of range", map[byte]string{opRefFunc: "function", opGlobalGet: "global"}[op], i)
		}
		if err != nil {
			return err
		}
	}
}

func (m *moduleShape) globalInits(sec []byte) error {
	r := &reader{b: sec}
	n, err := r.u32()
	for i := uint32(0); err == nil && i < n; i++ {
		if err = r.skipValType(); err == nil {
			if _, err = r.byte(); err == nil { // mutability
				err = m.constExpr(r)
			}
		}
	}
	return err
}

// elements checks the segments of an element section: flags bit 0 is
// passive or declarative, bit 1 an explicit table (active) or
// declarative, bit 2 expressions rather than function indices.
func (m *moduleShape) elements(sec []byte) error {
	r := &reader{b: sec}
	n, err := r.u32()
	for i := uint32(0); err == nil && i < n; i++ {
		var flags, k uint32
		if flags, err = r.u32(); err != nil {
			return err
		}
		if flags > 7 {
			return fmt.Errorf("element segment flags %d", flags)
		}
		if flags&1 == 0 { // active: a table (flags 2, 6) and an offset
			if flags&2 != 0 {
				err = r.skipLEB()
			}
			if err == nil {
				err = m.constExpr(r)
			}
		}
		if err == nil && flags&3 != 0 { // an element kind or a reference type
			err = r.skipValType()
		}
		if err == nil {
			k, err = r.u32()
		}
		for j := uint32(0); err == nil && j < k; j++ {
			if flags&4 != 0 {
				err = m.constExpr(r)
			} else if f, ferr := r.u32(); ferr != nil {
				err = ferr
			} else if uint64(f) >= m.funcs() {
				err = fmt.Errorf("function index %d out of range", f)
			}
		}
	}
	return err
}
