/*
 * switch-x86_64.S - the coroutine context switch.
 *
 * C prototype (coro-internal.h):
 *     void coro_switch (struct coro_ctx *from, struct coro_ctx *to);
 *     rdi = from, rsi = to;  struct coro_ctx { void *sp; }  (sp at offset 0)
 * Saves the running context into *from and resumes the one saved in *to.
 *
 * ABI reference: System V AMD64 ABI, section 3.2.1 "Registers and the Stack
 * Frame" and figure 3.4: rbx, rbp, r12-r15 and rsp are callee-saved; the
 * control bits of MXCSR and the x87 control word are callee-saved too
 * (section 3.2.3 / "The x87 FPU control word and MXCSR control bits");
 * everything else is caller-saved, so the compiler already spilled it around
 * this call.  The direction flag is clear on entry and exit by the ABI.
 *
 * Signal-stack pitfall (libco issue #90): a switch that points rsp at a heap
 * save area and pushes registers there lets a signal delivered in that window
 * write its frame (about 1-3 KiB with AVX-512 state) over the heap.  Here rsp
 * always points into a real stack: registers are pushed onto the CURRENT stack
 * and only then is rsp stored; after loading the new rsp, everything popped
 * lies above rsp.  A signal at any instruction lands below rsp on a stack.
 * Coroutine stacks may still be small (4 KiB in the memory experiment), so the
 * runtime's own handlers run on a sigaltstack (SA_ONSTACK); a program that
 * installs handlers without SA_ONSTACK needs stacks of 16 KiB or more.
 *
 * Saved frame, at the parked coroutine's sp (struct coro_frame; the
 * _Static_asserts in coro-internal.h tie these offsets to the struct):
 *
 *     offset  size  content
 *      0       4    MXCSR                     CORO_FRAME_MXCSR
 *      4       2    x87 control word          CORO_FRAME_FPUCW
 *      6       2    (padding)
 *      8       8    r15                       CORO_FRAME_R15
 *     16       8    r14
 *     24       8    r13
 *     32       8    r12                       CORO_FRAME_R12
 *     40       8    rbx
 *     48       8    rbp                       CORO_FRAME_RBP
 *     56       8    return address            CORO_FRAME_RET
 *     64            (caller's frame)          CORO_FRAME_SIZE
 *
 * Restoring is conditional: ldmxcsr and fldcw are slow (serializing on many
 * cores; about 1 ns of a 5 ns switch on the lab VM) and almost always reload
 * the value already in force, so they run only when the target's saved word
 * differs from the current one (status flags included, so the result is
 * exactly that of an unconditional load).  The current words are read back
 * with 4- and 2-byte loads matching the stmxcsr/fnstcw stores: one 8-byte
 * load over both stores would miss store forwarding and cost more than it
 * saves.  rax and rcx are caller-saved scratch.
 *
 * A new coroutine gets a forged frame with ret = coro_trampoline, r12 = its
 * struct coro, rbp = 0 (ends backtraces), and the spawning thread's MXCSR and
 * x87 control word.
 */
#if !defined(__x86_64__)
#error "switch-x86_64.S: this context switch is for x86-64 only"
#endif

#include "coro-asm.h"

/* The two halves of every switch below: SWITCH_SAVE pushes the frame
   above onto the current stack, stores rsp in from->sp (rdi) and moves rsp
   to to->sp (rsi); SWITCH_RESTORE pops the target's frame (its MXCSR and
   x87 CW reloaded only when they differ) and returns into the target. */
	.macro SWITCH_SAVE
	pushq	%rbp			/* frame+48: callee-saved rbp            */
	pushq	%rbx			/* frame+40: rbx                         */
	pushq	%r12			/* frame+32: r12                         */
	pushq	%r13			/* frame+24: r13                         */
	pushq	%r14			/* frame+16: r14                         */
	pushq	%r15			/* frame+8:  r15                         */
	subq	$8, %rsp		/* frame+0: room for MXCSR + x87 CW      */
	stmxcsr	(%rsp)			/* save MXCSR at frame+0                 */
	fnstcw	4(%rsp)			/* save x87 control word at frame+4      */
	movl	(%rsp), %eax		/* current MXCSR (4-byte load: forwarded) */
	movzwl	4(%rsp), %ecx		/* current x87 CW (2-byte load)          */
	movq	%rsp, (%rdi)		/* from->sp = rsp (stack now complete)   */
	movq	(%rsi), %rsp		/* rsp = to->sp: now on the target stack */
	.endm

	.macro SWITCH_RESTORE
	cmpl	(%rsp), %eax		/* target's MXCSR already in force?      */
	jne	2f
	cmpw	4(%rsp), %cx		/* target's x87 CW already in force?     */
	jne	2f
1:	addq	$8, %rsp		/* drop the MXCSR/CW slot                */
	popq	%r15			/* restore r15                           */
	popq	%r14			/* restore r14                           */
	popq	%r13			/* restore r13                           */
	popq	%r12			/* restore r12                           */
	popq	%rbx			/* restore rbx                           */
	popq	%rbp			/* restore rbp                           */
	ret				/* resume target at its saved rip       */
2:	ldmxcsr	(%rsp)			/* restore target's MXCSR                */
	fldcw	4(%rsp)			/* restore target's x87 control word     */
	jmp	1b
	.endm

	.text
	.globl	coro_switch
	.type	coro_switch, @function
	.p2align 4
coro_switch:
	.cfi_startproc
	SWITCH_SAVE
	SWITCH_RESTORE
	.cfi_endproc
	.size	coro_switch, .-coro_switch

/* void coro_switch_unlock (struct coro_ctx *from, struct coro_ctx *to,
                            struct coro_lock *unlock);   rdx = unlock
   coro_switch, and once `from` is saved AND rsp already points into the
   target's stack, releases the spin lock *unlock (a plain store: release
   order on x86).  For a coroutine parking on a wait queue guarded by that
   lock: a waker may resume `from` (on any worker) as soon as the lock is
   free, so nothing may touch from's stack after the store - and nothing
   does, not even a signal frame, since rsp has left it.  Releasing here
   rather than in C after the switch keeps the lock held for a few
   instructions instead of the whole switch (whose loads from the target's
   cold stack were the longest part of the hold). */
	.globl	coro_switch_unlock
	.type	coro_switch_unlock, @function
	.p2align 4
coro_switch_unlock:
	.cfi_startproc
	SWITCH_SAVE
	movl	$0, (%rdx)		/* unlock: from may now be resumed       */
	SWITCH_RESTORE
	.cfi_endproc
	.size	coro_switch_unlock, .-coro_switch_unlock

/* void coro_switch_fin (struct coro_ctx *from, struct coro_ctx *to);
   For coro_yield's fast path, which TAIL-CALLS it so that it keeps no frame
   of its own across the switch.  The one thing that frame did on resumption,
   finish_switch(), happens here instead: we CALL coro_switch, so the context
   saved in *from resumes right after that call - whichever routine restores
   it (coro_switch, coro_switch_unlock, or this one) - and there we read the
   worker now running us from the thread pointer (coro_tls_worker: never a
   value from before the switch, which may have been another thread) and, if
   that worker has a `prev` to finish (CORO_WORKER_PREV, asserted in
   coro-internal.h), tail-call coro_finish_switch_tls(), which returns to our
   caller's caller as the plain `ret` does.  The `call` keeps the return
   stack buffer paired: restoring a context saved here returns to the
   instruction after the call, the address that call pushed.
   rsp is 8 mod 16 at the call (this routine was jumped to, not called): no
   instruction in coro_switch depends on alignment, and at the `ret` or the
   jump below rsp is back to what it was on entry, a function entry's. */
	.globl	coro_switch_fin
	.type	coro_switch_fin, @function
	.p2align 4
coro_switch_fin:
	.cfi_startproc
	call	coro_switch		/* save here, resume the target         */
	movq	%fs:coro_tls_worker@tpoff, %rax	/* resumed: the worker running us */
	cmpq	$0, CORO_WORKER_PREV(%rax)	/* w->prev: anything to finish?  */
	jne	1f
	ret				/* back to coro_yield's caller           */
1:	jmp	coro_finish_switch_tls	/* finish_switch(w), then return        */
	.cfi_endproc
	.size	coro_switch_fin, .-coro_switch_fin

/* First code a new coroutine runs, reached by coro_switch's ret with
   rsp 16-byte aligned; r12 = struct coro *.  coro_main never returns. */
	.globl	coro_trampoline
	.type	coro_trampoline, @function
	.p2align 4
coro_trampoline:
	.cfi_startproc
	.cfi_undefined rip		/* outermost frame for debuggers         */
	movq	%r12, %rdi		/* argument: the coroutine               */
	call	coro_main		/* runs fn, then switches away for good  */
	ud2				/* not reached                           */
	.cfi_endproc
	.size	coro_trampoline, .-coro_trampoline

	.section .note.GNU-stack,"",@progbits
