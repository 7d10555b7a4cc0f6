package wasm

// What the instrumentation counts for code that runs long without
// branching back: big loop bodies, big functions, bulk operations
// (interrupt.go says why they are counted at all).

// What a loop iteration or a function's entry counts: not 1 but 1 for
// every stepBytes of code it may run. A tight loop counts 1 an iteration;
// a loop whose body is a megabyte of straight code (0.7 ms an iteration)
// counted 1 as well, and so ran 1024 iterations past the flag and 65 536
// between two visits to Go. A call in a loop counts as bigLeaf bytes: a
// function of fewer, with no loop and no call, is not counted itself; one
// of more counts its entry.
//
// Straight code runs at about 0.75 ns a byte, so a count of 1024 is at
// most 0.2 ms of it and the budget at most 12 ms (Go's own time slice is
// 10 ms). With 16 bytes a step, Go guests yielded so often that their
// calls cost 8 % more (checked/floor 1.21-1.43, from 1.12-1.17).
const (
	stepBytes = 256
	bigLeaf   = 256
)

// weight is what cost bytes of code count, at least 1.
func weight(cost uint64) int32 {
	return int32(min(1+cost/stepBytes, 1<<24))
}

// bulkShift makes a bulk operation of n bytes or table entries count as
// n>>bulkShift + 1 loop iterations: a tight loop iteration takes about as
// long as filling 16 bytes.
const bulkShift = 4

// bulkFunc returns the index of $bulk(n) -> n, which flushes a count for
// a bulk operation of size n (its last operand) and gives n back.
//
// A bulk operation — memory.fill, memory.copy, memory.init, table.fill,
// table.copy, table.init, table.grow — is one instruction but runs for as
// long as its size says: tens of milliseconds for a fill of the whole
// memory, with no branch. Counted as one step, a loop of them ran
// seconds past its flag, and a function of thousands of them, with no
// loop, never reached a flush nor yielded to Go, so the timer that
// would set the flag never ran. Each one goes through $bulk: the flag is
// looked at before it, and its size is taken from the budget.
func (a *instrumented) bulkFunc(p *loopPlan) uint64 {
	if a.bulk == 0 {
		a.bulk = p.flush + uint64(len(a.bodies))
		a.types = append(a.types, []byte{0x60, 1, 0x7f, 1, 0x7f})
		a.funcTypes = append(a.funcTypes, len(a.types)-1)
		body := []byte{0, opLocalGet, 0, opI32Const, bulkShift, opI32ShrU, opI32Const, 1, opI32Add, opCall}
		body = append(append(body, leb(p.flush)...), opLocalGet, 0, opEnd)
		a.bodies = append(a.bodies, body)
	}
	return a.bulk
}

// bulkOps are the 0xfc sub-opcodes whose last operand is a size.
var bulkOps = map[uint32]bool{8: true, 10: true, 11: true, 12: true, 14: true, 15: true, 17: true}

// maxGrowth is how many times larger the checks may make a code
// section. Real code grows by a fraction; a loop header (2 bytes) whose
// loop sets 64 locals gets a resume of about 270, so nested loops made a
// module 40 times larger, and its compilation as much costlier. Such a
// module falls back to wazero's checks.
const maxGrowth = 8
