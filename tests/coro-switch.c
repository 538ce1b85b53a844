/* Description: the x86-64 context switch (switch-x86_64.S): callee-saved
 * registers, MXCSR and the x87 control word survive a round trip; a new
 * coroutine starts with a 16-byte aligned stack; two coroutines on one worker
 * alternate on coro_yield; a storm of signals during a million switches
 * neither crashes nor corrupts memory next to the stacks. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

#include <cmocka.h>

#include "coro-internal.h"

#ifdef LAB_VALGRIND
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION ((p), (n))
#else
#define UNPOISON(p, n) ((void) 0)
#endif

/* regs_roundtrip(from, to): loads known values into rbx, rbp, r12-r15,
   calls coro_switch(from, to), and returns how many of them changed. */
uint64_t regs_roundtrip (struct coro_ctx *from, struct coro_ctx *to);
/* regs_clobber(from, to): writes junk into every callee-saved register, then
   switches; for the other side. */
void regs_clobber (struct coro_ctx *from, struct coro_ctx *to);
__asm__ (".text\n"
         ".globl regs_roundtrip\n"
         "regs_roundtrip:\n"
         "  push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
         "  sub $8, %rsp\n"
         "  mov $0x1111, %rbx; mov $0x2222, %rbp; mov $0x3333, %r12\n"
         "  mov $0x4444, %r13; mov $0x5555, %r14; mov $0x6666, %r15\n"
         "  call coro_switch\n"
         "  xor %eax, %eax\n"
         "  cmp $0x1111, %rbx; setne %cl; movzbl %cl, %ecx; add %rcx, %rax\n"
         "  cmp $0x2222, %rbp; setne %cl; movzbl %cl, %ecx; add %rcx, %rax\n"
         "  cmp $0x3333, %r12; setne %cl; movzbl %cl, %ecx; add %rcx, %rax\n"
         "  cmp $0x4444, %r13; setne %cl; movzbl %cl, %ecx; add %rcx, %rax\n"
         "  cmp $0x5555, %r14; setne %cl; movzbl %cl, %ecx; add %rcx, %rax\n"
         "  cmp $0x6666, %r15; setne %cl; movzbl %cl, %ecx; add %rcx, %rax\n"
         "  add $8, %rsp\n"
         "  pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
         "  ret\n"
         ".globl regs_clobber\n"
         "regs_clobber:\n"
         "  push %rbx; push %rbp; push %r12; push %r13; push %r14; push %r15\n"
         "  sub $8, %rsp\n"
         "  mov $-1, %rbx; mov $-2, %rbp; mov $-3, %r12\n"
         "  mov $-4, %r13; mov $-5, %r14; mov $-6, %r15\n"
         "  call coro_switch\n"
         "  add $8, %rsp\n"
         "  pop %r15; pop %r14; pop %r13; pop %r12; pop %rbp; pop %rbx\n"
         "  ret\n");

/* A raw context on a private stack, outside the scheduler. */
static struct coro_ctx main_ctx, co_ctx;
static uint32_t co_mxcsr_seen;
static uint16_t co_fpucw_seen;
static uintptr_t co_frame_addr;
static int co_phase;

static uint16_t
get_fpucw (void)
{
  uint16_t cw;
  __asm__ volatile ("fnstcw %0" : "=m"(cw));
  return cw;
}

static void
set_fpucw (uint16_t cw)
{
  __asm__ volatile ("fldcw %0" : : "m"(cw));
}

/* Entered through coro_trampoline -> coro_main is the runtime's; here we use
   our own entry: the forged frame returns into raw_entry with r12 = arg. */
static void raw_body (void);
void raw_entry (void);
__asm__ (".text\nraw_entry:\n  call raw_body_c\n  ud2\n");
void raw_body_c (void);
void
raw_body_c (void)
{
  raw_body ();
  abort ();
}

static void
raw_body (void)
{
  co_frame_addr = (uintptr_t) __builtin_frame_address (0);
  /* change FP control in the coroutine only */
  __builtin_ia32_ldmxcsr (0x1f80 | 0x6000); /* round toward zero */
  set_fpucw (0x0c7f);                        /* x87 round toward zero */
  co_phase = 1;
  coro_switch (&co_ctx, &main_ctx);
  co_mxcsr_seen = __builtin_ia32_stmxcsr ();
  co_fpucw_seen = get_fpucw ();
  co_phase = 2;
  for (;;)
    regs_clobber (&co_ctx, &main_ctx);
}

static void *
raw_start (size_t size)
{
  char *stk = mmap (NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true (stk != MAP_FAILED);
  UNPOISON (stk, size); /* raw contexts never return: their old frames stay poisoned */
  struct coro_frame *fr = (struct coro_frame *) (stk + size - sizeof *fr);
  memset (fr, 0, sizeof *fr);
  fr->mxcsr = __builtin_ia32_stmxcsr ();
  fr->fpucw = get_fpucw ();
  fr->ret = (uint64_t) raw_entry;
  co_ctx.sp = fr;
  return stk;
}

static void
test_fp_control_and_alignment (void **state)
{
  void *stk = raw_start (64 * 1024);
  uint32_t mx = __builtin_ia32_stmxcsr ();
  uint16_t cw = get_fpucw ();
  coro_switch (&main_ctx, &co_ctx);
  assert_int_equal (co_phase, 1);
  /* the coroutine's rounding mode must not leak into ours */
  assert_int_equal (__builtin_ia32_stmxcsr (), mx);
  if (!RUNNING_ON_VALGRIND)
    assert_int_equal (get_fpucw (), cw);
  /* frame pointer at entry of a C function called from the trampoline: 16-aligned */
  assert_int_equal (co_frame_addr % 16, 0);
  coro_switch (&main_ctx, &co_ctx);
  assert_int_equal (co_phase, 2);
  /* and ours must not leak into the coroutine's */
  assert_int_equal (co_mxcsr_seen & 0x6000, 0x6000);
  if (!RUNNING_ON_VALGRIND) /* valgrind models only the x87 rounding bits */
    assert_int_equal (co_fpucw_seen, 0x0c7f);
  munmap (stk, 64 * 1024);
}

static void
test_callee_saved (void **state)
{
  void *stk = raw_start (64 * 1024);
  co_phase = 0;
  coro_switch (&main_ctx, &co_ctx); /* phase 1 */
  coro_switch (&main_ctx, &co_ctx); /* phase 2, now in regs_clobber loop */
  for (int i = 0; i < 1000; i++)
    assert_int_equal (regs_roundtrip (&main_ctx, &co_ctx), 0);
  munmap (stk, 64 * 1024);
}

/* ---- through the runtime ------------------------------------------------ */

static char order[64];
static int norder;
static struct coro_wg wg = CORO_WG_INIT;

static void
pinger (void *arg)
{
  for (int i = 0; i < 8; i++)
    {
      order[__atomic_fetch_add (&norder, 1, __ATOMIC_RELAXED)] = *(char *) arg;
      coro_yield ();
    }
  coro_wg_done (&wg);
}

/* Both pingers are spawned from one coroutine on the only worker, so neither
   runs before the other exists: spawned from the main thread, the worker
   could start `a` (and let it yield to nobody) before `b` was spawned, when
   the main thread is preempted between the two spawns on a loaded host. */
static int spawn_rc[2];

static void
spawn_pingers (void *arg)
{
  spawn_rc[0] = coro_spawn (pinger, "a");
  spawn_rc[1] = coro_spawn (pinger, "b");
}

static void
test_yield_alternates (void **state)
{
  char err[200];
  struct coro_config cfg = { .workers = 1 };
  assert_int_equal (coro_runtime_start (&cfg, err, sizeof err), 0);
  coro_wg_add (&wg, 2);
  assert_int_equal (coro_spawn (spawn_pingers, NULL), 0);
  coro_wg_wait (&wg);
  assert_int_equal (spawn_rc[0], 0);
  assert_int_equal (spawn_rc[1], 0);
  coro_runtime_stop ();
  order[norder] = 0;
  assert_string_equal (order, "abababababababab");
}

static volatile sig_atomic_t nsig;
static long nswitch;

static void
on_alarm (int sig)
{
  nsig++;
}

static void
spinner (void *arg)
{
  long *mine = arg;
  for (long i = 0; i < 500000; i++)
    {
      (*mine)++;
      coro_yield ();
    }
  __atomic_fetch_add (&nswitch, *mine, __ATOMIC_RELAXED);
  coro_wg_done (&wg);
}

static void
test_signals_during_switches (void **state)
{
  char err[200];
  struct coro_config cfg = { .workers = 1, .stack_size = 16 * 1024 };
  struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
  struct itimerval it = { { 0, 50 }, { 0, 50 } };
  long a = 0, b = 0;
  assert_int_equal (coro_runtime_start (&cfg, err, sizeof err), 0);
  sigaction (SIGALRM, &sa, NULL);
  setitimer (ITIMER_REAL, &it, NULL);
  coro_wg_add (&wg, 2);
  coro_spawn (spinner, &a);
  coro_spawn (spinner, &b);
  coro_wg_wait (&wg);
  memset (&it, 0, sizeof it);
  setitimer (ITIMER_REAL, &it, NULL);
  coro_runtime_stop ();
  assert_int_equal (nswitch, 1000000);
  print_message ("%ld switches, %d signals delivered\n", nswitch, (int) nsig);
  assert_true (nsig > 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fp_control_and_alignment),
    cmocka_unit_test (test_callee_saved),
    cmocka_unit_test (test_yield_alternates),
    cmocka_unit_test (test_signals_during_switches),
  };
  return cmocka_run_group_tests (tests, NULL, NULL);
}
