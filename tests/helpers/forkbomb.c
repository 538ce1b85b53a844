/* Description: a bounded fork bomb for the sandbox tests: forks up to N children
   that wait, counts the forks that fail (EAGAIN under pids.max), prints
   "forked=F failed=E", kills and reaps its children.  Exit 0. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 10000, forked = 0, failed = 0, other = 0;
  for (int i = 0; i < n; i++)
    {
      pid_t p = fork ();
      if (p == 0)
        {
          pause ();
          _exit (0);
        }
      if (p > 0)
        forked++;
      else if (errno == EAGAIN)
        failed++;
      else
        other++;
    }
  printf ("forked=%d failed=%d other=%d\n", forked, failed, other);
  fflush (stdout);
  signal (SIGTERM, SIG_IGN);
  kill (0, SIGTERM);
  while (wait (NULL) > 0)
    ;
  return 0;
}
