/* Description: tries to create namespaces - unshare(CLONE_NEWNS),
   unshare(CLONE_NEWNET) and clone(CLONE_NEWPID) - and prints each outcome as
   name=ok or name=ERRNONAME.  Exit 0 when every attempt was denied, 1 when any
   succeeded. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int
report (const char *name, int ok, int e)
{
  printf ("%s=%s\n", name, ok ? "ok" : strerrorname_np (e));
  return ok;
}

int
main (void)
{
  int any = 0;
  int ok = unshare (CLONE_NEWNS) == 0;
  any |= report ("unshare_newns", ok, errno);
  ok = unshare (CLONE_NEWNET) == 0;
  any |= report ("unshare_newnet", ok, errno);
  long p = syscall (SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
  if (p == 0)
    _exit (0);
  int e = errno;
  if (p > 0)
    waitpid ((pid_t) p, NULL, 0);
  any |= report ("clone_newpid", p > 0, e);
  return any ? 1 : 0;
}
