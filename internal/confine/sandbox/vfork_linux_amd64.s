//go:build linux && amd64

#include "textflag.h"

// func vforkSteps(stack uintptr, steps *step, n uintptr, errfd uintptr) (pid uintptr, errno uintptr)
//
// clone(CLONE_VM|CLONE_VFORK|SIGCHLD) onto stack, as vfork does: this
// thread waits until the child has executed a program or exited. The
// child makes the n system calls of steps, in order, and nothing else;
// the last is execve. When one fails it writes the failing step's index
// and errno (two words) to errfd and exits with status 127.
TEXT ·vforkSteps(SB),NOSPLIT|NOFRAME,$0-48
	MOVQ	steps+8(FP), R12
	MOVQ	n+16(FP), R13
	MOVQ	errfd+24(FP), BX
	MOVQ	stack+0(FP), SI
	MOVQ	$0x4111, DI	// CLONE_VM|CLONE_VFORK|SIGCHLD
	XORQ	DX, DX
	XORQ	R10, R10
	XORQ	R8, R8
	MOVQ	$56, AX	// SYS_clone
	SYSCALL
	TESTQ	AX, AX
	JEQ	child
	CMPQ	AX, $0xfffffffffffff001
	JLS	parent
	NEGQ	AX
	MOVQ	$0, pid+32(FP)
	MOVQ	AX, errno+40(FP)
	RET
parent:
	MOVQ	AX, pid+32(FP)
	MOVQ	$0, errno+40(FP)
	RET

child:
	// On the child's own stack (SI), sharing this process's memory until
	// execve: registers and that stack only.
	SUBQ	$32, SP
	MOVQ	R13, 16(SP)	// the number of steps
	TESTQ	R13, R13
	JEQ	done
loop:
	MOVQ	0(R12), AX
	MOVQ	8(R12), DI
	MOVQ	16(R12), SI
	MOVQ	24(R12), DX
	MOVQ	32(R12), R10
	MOVQ	40(R12), R8
	MOVQ	48(R12), R9
	SYSCALL
	CMPQ	AX, $0xfffffffffffff001
	JHI	fail
	ADDQ	$56, R12
	DECQ	R13
	JNE	loop
done:
	XORQ	AX, AX	// no step left and no program run: reported as step n, errno 0
fail:
	NEGQ	AX
	MOVQ	AX, 8(SP)	// errno
	MOVQ	16(SP), CX
	SUBQ	R13, CX
	MOVQ	CX, 0(SP)	// the failing step
	MOVQ	$1, AX	// SYS_write
	MOVQ	BX, DI
	MOVQ	SP, SI
	MOVQ	$16, DX
	SYSCALL
exit:
	MOVQ	$127, DI
	MOVQ	$231, AX	// SYS_exit_group
	SYSCALL
	JMP	exit
