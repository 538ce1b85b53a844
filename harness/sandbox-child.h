/*
 * sandbox-child.h - what runs inside the sandbox's clone (sandbox-child.c)
 * and the records it exchanges with the harness (sandbox.c) on its pipes.
 */
#ifndef LAB_SANDBOX_CHILD_H
#define LAB_SANDBOX_CHILD_H

#include <seccomp.h>

#include "ns.h"
#include "sandbox.h"
#include "seccomp-bpf.h"

#define LAB_SANDBOX_MAX_CG_FDS 8

struct child_args
{
  const struct lab_sandbox_spec *spec;
  struct lab_ns_config ns;
  scmp_filter_ctx filter; /* seccomp-log mode only: the notify filter (else the
                             compiled program comes on go_fd, seccomp-bpf.h) */
  int notify;             /* seccomp-log mode */
  char *const *envp;
  int go_fd;              /* socket: the cgroup's fds (lab_sandbox_send_fds), "g", then a
                             lab_bpf_header and the program */
  int fail_fd, report_fd;
  int go_wr_fd;           /* the harness's end of `go`: closed first, so EOF = harness gone */
  int proc_fd;            /* the harness's /proc: the workload reads its host pid there */
};

struct fail_msg
{
  int errno_;
  char msg[500];
};

/* A record on the `report` pipe (workload or init -> harness). */
enum { REPORT_PID = 1, REPORT_LAST_PID, REPORT_STATUS };
struct report_msg
{
  int kind;
  int value;              /* REPORT_PID: host pid of the workload; REPORT_LAST_PID: the last pid
                             the sandbox's pid namespace gave out when the workload ended (2:
                             no process or thread but init and the workload ever ran there),
                             sent just before REPORT_STATUS, -1 unknown; REPORT_STATUS: the
                             workload's wait status */
};

/* The fds init writes "0" into to join the point's cgroup, on the `go`
   socket: a count byte carrying them as SCM_RIGHTS.  send: 0 or -1 (errno);
   recv: how many (close-on-exec), -1 on EOF or error. */
int lab_sandbox_send_fds (int sock, const int *fds, int n);
int lab_sandbox_recv_fds (int sock, int *fds, int max);

/* The clone's entry point: the sandbox's init (pid 1 inside); `arg` is a
   struct child_args. */
int lab_sandbox_child_main (void *arg);

#endif
