/* catalog.c - see catalog.h.  Adding an experiment: a directory
   experiments/<name>/ (built into build/bin/wl-<name>) and one entry here. */
#include "catalog.h"

#include <string.h>

#include "echo-point.h"

static const char *const spawn_variants[] = { "pthread", "coro", "go", NULL };
/* quick: every point under ~2 s on an idle 2-core host, so `make run` affords 3 repeats */
static const long spawn_quick[] = { 1000, 3000, 10000, 0 };
static const long spawn_full[] = { 1000, 10000, 100000, 1000000, 0 };

static const char *const switch_variants[] = { "coro", "pthread", "ucontext", "go", "fcontext", NULL };
static const long switch_quick[] = { 100000, 300000, 0 };
static const long switch_full[] = { 1000000, 10000000, 0 };

static const char *const memory_variants[] = { "pthread", "coro", "coro-copystack", "go", NULL };
static const long memory_quick[] = { 1000, 3000, 10000, 0 };
static const long memory_full[] = { 10000, 100000, 1000000, 0 };

static const char *const pressure_variants[] = { "pthread", "coro", "coro-copystack", NULL };
static const long pressure_quick[] = { 1000, 4000, 0 };
static const long pressure_full[] = { 10000, 50000, 0 };

static const char *const echo_variants[] = { "thread", "epoll", "uring", "coro-epoll", "coro-uring", NULL };
static const long echo_quick[] = { 100, 1000, 0 };
static const long echo_full[] = { 100, 1000, 5000, 10000, 0 };

static const char *const seccomp_variants[] = { "syscall", "io_uring", "io_uring-restricted",
                                                "memory-max", "clone-newns", "ptrace", NULL };
/* The last three are C12's sandbox probes (experiments/seccomp/probe.c). */
static const char *const seccomp_profiles[] = { "containers/deny-openat.json", "containers/deny-openat.json",
                                                "containers/deny-openat.json", "containers/small.json",
                                                "containers/default.json", "containers/default.json", NULL };
static const long seccomp_scale[] = { 1, 0 };

static const char *const udp_variants[] = { "sendto", "sendmmsg", "uring", "coro-uring", NULL };
static const long udp_quick[] = { 100000, 1000000, 0 };
static const long udp_full[] = { 100000, 1000000, 10000000, 0 };

static const char *const wakeup_variants[] = { "condvar", "eventfd", "pipe", "coro", NULL };
static const long wakeup_quick[] = { 1000, 10000, 0 };
static const long wakeup_full[] = { 10000, 100000, 0 };

static const char *const blocking_variants[] = { "pthread", "coro-blocking", "coro-uring", NULL };
static const long blocking_quick[] = { 1000, 10000, 0 };
static const long blocking_full[] = { 10000, 100000, 0 };

const struct lab_experiment lab_experiments[] = {
  { "spawn", "N tasks that each sleep 1 ms and end: spawn time, total wall time, memory per task",
    "C1, C3", spawn_variants, NULL, spawn_quick, spawn_full, "containers/default.json", "tasks", 600, LAB_PLOT_WALL | LAB_PLOT_MEM },
  { "switch", "two tasks ping-pong: time per switch (coroutine switch, futex handoff, swapcontext)",
    "C3", switch_variants, NULL, switch_quick, switch_full, "containers/default.json", "round trips", 600,
    LAB_PLOT_WALL | LAB_PLOT_NS_PER_OP },
  { "memory", "N tasks parked alive: RSS, VSS, swap and cgroup memory (with kernel part) per task",
    "C2", memory_variants, NULL, memory_quick, memory_full, "containers/memory.json", "tasks", 600,
    LAB_PLOT_MEM_PER_TASK },
  { "seccomp", "does a seccomp profile that denies openat also stop io_uring's openat? "
               "IORING_REGISTER_RESTRICTIONS does; and the sandbox probes: memory.max hit, clone(CLONE_NEWNS), ptrace",
    "C12", seccomp_variants, seccomp_profiles, seccomp_scale, seccomp_scale, "containers/deny-openat.json",
    "attempts", 60, 0 },
  { "udp", "n datagrams over loopback: sendto, sendmmsg, io_uring sendmsg batches, coroutines; "
           "a forked receiver counts them; sent = received + kernel drops + EAGAIN",
    "C6, C11", udp_variants, NULL, udp_quick, udp_full, "containers/default.json", "datagrams", 600, LAB_PLOT_IO },
  { "pressure", "N parked tasks holding K KiB of stack each (--opt kib=K) under a cgroup limit of a fraction of "
                "that (--opt fraction=F): swap peak, major faults, latency to wake each task once",
    "C2", pressure_variants, NULL, pressure_quick, pressure_full, "containers/swap.json", "tasks", 600,
    LAB_PLOT_MEM },
  { "wakeup", "a thread asleep in epoll_wait (or a parked coroutine) woken from another thread: "
              "condvar (misses it), eventfd, pipe, coroutine channel; latency and missed wake-ups",
    "C10", wakeup_variants, NULL, wakeup_quick, wakeup_full, "containers/default.json", "wake-ups", 600, LAB_PLOT_IO },
  { "blocking", "CPU-bound tasks beside tasks fed through pipes at a fixed rate: scheduling delay and "
                "CPU progress for threads, coroutines calling read(2), coroutines on io_uring",
    "C4", blocking_variants, NULL, blocking_quick, blocking_full, "containers/default.json", "messages", 600,
    LAB_PLOT_IO },
  { "echo", "a server per variant (thread per connection, epoll, io_uring, coroutines on epoll/io_uring) under "
            "the lab's load generator in a sibling cgroup: capacity (closed loop), latency at a fixed rate (open loop)",
    "C5, C7, C8", echo_variants, NULL, echo_quick, echo_full, "containers/default.json", "connections", 300,
    LAB_PLOT_ECHO },
  { NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0 },
};

/* Experiments whose points run a client beside the server (companion.h). */
static const struct
{
  const char *experiment;
  const struct lab_companion_ops *ops;
} companions[] = {
  { "echo", &lab_echo_companion },
};

const struct lab_companion_ops *
lab_experiment_companion (const struct lab_experiment *e)
{
  for (size_t i = 0; i < sizeof companions / sizeof companions[0]; i++)
    if (strcmp (companions[i].experiment, e->name) == 0)
      return companions[i].ops;
  return NULL;
}

static const char *const guard_values[] = { "auto", "none", "mprotect", NULL };
static const char *const join_values[] = { "reaper", "after", NULL };
static const char *const pin_values[] = { "same", "split", "none", NULL };
static const char *const proto_values[] = { "echo", "http", NULL };
static const char *const client_values[] = { "loadgen", "wrk", NULL };
static const char *const spin_values[] = { "off", "on", NULL };
static const char *const fault_values[] = { "none", "no-ready", "crash", "port-in-use", "refuse", NULL };

const struct lab_wl_opt lab_wl_opts[] = {
  { "guard", guard_values, "coroutine stack guards: auto (MADV_GUARD_INSTALL where available), none, mprotect", 0, 0 },
  { "join", join_values, "spawn/pthread: reaper joins threads as they end; after: create all, then join", 0, 0 },
  { "pin", pin_values, "switch/pthread: both threads on one CPU (same), on two (split), or not pinned", 0, 0 },
  { "file", NULL, "seccomp: the file the probes open", 0, 0 },
  { "size", NULL, "udp: bytes per datagram (default 1024)", 8, 65507 },
  { "batch", NULL, "udp: datagrams per sendmmsg / io_uring submit, coroutines for coro-uring (default 64)", 1,
    1024 /* UIO_MAXIOV */ },
  { "sndbuf", NULL, "udp: the sender's SO_SNDBUF in bytes (default 4096)", 1, 1L << 30 },
  { "rcvbuf", NULL, "udp: the receiver's SO_RCVBUF in bytes (default: net.core.rmem_max)", 1, 1L << 30 },
  { "kib", NULL, "pressure: KiB of stack memory each task holds (default 128)", 4, 65536 },
  { "fraction", NULL, "pressure: the cgroup's memory.high as a fraction of the working set (0.05..0.95, default 0.5)", 0, 0 },
  { "timeout_ms", NULL, "wakeup: the threads' epoll_wait timeout in ms (default 1)", 1, 10000 },
  { "cpu_tasks", NULL, "blocking: CPU-bound tasks (default 2)", 0, 4096 },
  { "waiters", NULL, "blocking: tasks waiting on pipes (default 4)", 1, 4096 },
  { "rate", NULL, "blocking: messages per second into the pipes, all together (default 2000); echo: open-loop "
                  "requests/s, the same for every variant (default: half the slowest capacity)", 1, 100000000 },
  { "proto", proto_values, "echo: echo (bytes back) or http (a minimal HTTP/1.1 keep-alive answer)", 0, 0 },
  { "client", client_values, "echo: closed-loop phase by our loadgen, or wrk (proto=http), then loadgen", 0, 0 },
  { "spin", spin_values, "echo coro-*: a lone worker spins before it parks (lower p50, a CPU that never idles); default off", 0, 0 },
  { "server_cpus", NULL, "echo: the server's cpuset (default 0)", 0, 0 },
  { "client_cpus", NULL, "echo: the load generator's cpuset (default 1)", 0, 0 },
  { "phase_s", NULL, "echo: seconds of the closed-loop phase, and of the open-loop one unless open_s is given (default 2)", 0, 0 },
  { "open_s", NULL, "echo: seconds of the open-loop phase alone (default 5; phase_s=S alone sets both phases to S)", 0, 0 },
  { "warmup_s", NULL, "echo: seconds of warm-up before the closed loop (default 1)", 0, 0 },
  { "ready_timeout_s", NULL, "echo: seconds the server has to report ready before the point ends `timeout` "
                             "(default 30; --timeout still bounds the whole point)", 0, 0 },
  { "fault", fault_values, "echo, for tests of failure paths: the server never gets ready, crashes, finds its "
                           "port taken, or refuses connections", 0, 0 },
  { "port", NULL, "echo: the server's port in its network namespace (default 8080)", 1, 65535 },
  { NULL, NULL, NULL, 0, 0 },
};

const struct lab_wl_opt *
lab_wl_opt_find (const char *key)
{
  for (const struct lab_wl_opt *o = lab_wl_opts; o->key; o++)
    if (strcmp (o->key, key) == 0)
      return o;
  return NULL;
}

const struct lab_experiment *
lab_experiment_find (const char *name)
{
  for (const struct lab_experiment *e = lab_experiments; e->name; e++)
    if (strcmp (e->name, name) == 0)
      return e;
  return NULL;
}

size_t
lab_experiment_count (void)
{
  size_t n = 0;
  while (lab_experiments[n].name)
    n++;
  return n;
}

int
lab_experiment_variant (const struct lab_experiment *e, const char *variant)
{
  for (int i = 0; e->variants[i]; i++)
    if (strcmp (e->variants[i], variant) == 0)
      return i;
  return -1;
}
