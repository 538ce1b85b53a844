/*
 * seccomp-kills.h - which processes of a sandbox a seccomp KILL action killed,
 * and on which syscall, read from the kernel's audit records (type=1326,
 * AUDIT_SECCOMP): from the audit multicast group (netlink, read-only, no rate
 * limit) and, failing that, from /dev/kmsg (rate-limited by printk: 10 per 5 s).
 *
 * Attribution: a record names the host pid, comm and syscall, not the
 * sandbox.  The sandbox's init sets its audit login uid before it forks the
 * workload (lab_seccomp_kills_tag_self), which gives it and every process it
 * starts a fresh audit session id; the harness reads that id from
 * /proc/<workload>/sessionid and keeps the records carrying it - a strace
 * or a child shell killed inside while the top command lives on.  Where the
 * tag cannot be set (a user namespace has no CAP_AUDIT_CONTROL over the host's
 * audit), only the top command's own record (by pid) is found.
 */
#ifndef LAB_SECCOMP_KILLS_H
#define LAB_SECCOMP_KILLS_H

#include <sys/types.h>

struct lab_sandbox_result;

/* Audit session id "unset" (AUDIT_SID_UNSET). */
#define LAB_AUDIT_SES_NONE 4294967295u

int lab_seccomp_kills_open_audit (void); /* -1 where unavailable */
int lab_seccomp_kills_open_kmsg (void);  /* -1 where unavailable */
/* In the sandbox's init, before it forks: a new audit session for the sandbox. */
void lab_seccomp_kills_tag_self (void);
/* The audit session of `pid` (LAB_AUDIT_SES_NONE if unknown or unset). */
unsigned lab_seccomp_kills_session (pid_t pid);
/* After the sandbox ended: every seccomp kill of session `ses` (or of `top`)
   into res->kills; when `top_sigsys`, waits up to ~50 ms for the top's record
   and fills res->seccomp_nr/name from it.  Records come through the kernel's
   kauditd thread, a little after the kill: when `others` (a process or thread
   besides the top may have run in the sandbox), it waits ~5 ms for theirs;
   without (the pid namespace gave out no pid but init's and the top's), what
   has arrived is all there can be. */
void lab_seccomp_kills_collect (int audit_fd, int kmsg_fd, unsigned ses, pid_t top, int top_sigsys,
                                int others, struct lab_sandbox_result *res);

#endif
