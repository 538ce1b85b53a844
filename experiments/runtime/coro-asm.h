/*
 * coro-asm.h - the struct offsets switch-x86_64.S uses, shared by the
 * assembly and the C side (coro-internal.h _Static_asserts each one), so the
 * two cannot drift apart.  Plain #defines only: the assembler includes it.
 */
#ifndef LAB_CORO_ASM_H
#define LAB_CORO_ASM_H

/* offsetof (struct coro_worker, prev): coro_switch_fin tests it after resuming */
#define CORO_WORKER_PREV 0x840

#endif
