/*
 * vmhelper.c - a tiny static program the cgroup-v2 VM tests run inside
 * `lab sandbox`, so each limit is pushed by a known, measurable amount
 * (busybox alone cannot allocate memory or count forks).
 *
 *   vmhelper mem SIZE     allocate SIZE bytes (K/M/G suffix) and touch every
 *                         page; prints "touched N bytes"; exit 0
 *   vmhelper fork N       fork up to N children that pause; prints
 *                         "forked K of N, errno E"; kills and reaps them; exit 0
 *   vmhelper getppid      calls getppid(2) (a seccomp profile denies it);
 *                         prints "getppid returned R errno E"; exit 0
 *
 * Built with `cc -static` by tools/vm/mkinitramfs.sh, so it needs no
 * libraries in the guest.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long long
parse_size (const char *s)
{
  char *end;
  long long v = strtoll (s, &end, 10);
  switch (*end)
    {
    case 'G': case 'g': v <<= 10; /* fall through */
    case 'M': case 'm': v <<= 10; /* fall through */
    case 'K': case 'k': v <<= 10; break;
    case '\0': break;
    default: return -1;
    }
  return v;
}

static int
do_mem (const char *arg)
{
  long long size = parse_size (arg);
  long page = sysconf (_SC_PAGESIZE);
  if (size <= 0)
    {
      fprintf (stderr, "vmhelper: bad size `%s`\n", arg);
      return 2;
    }
  char *p = malloc ((size_t) size);
  if (p == NULL)
    {
      fprintf (stderr, "vmhelper: malloc %lld: %s\n", size, strerror (errno));
      return 1;
    }
  for (long long off = 0; off < size; off += page)
    p[off] = (char) off;
  printf ("touched %lld bytes\n", size);
  fflush (stdout);
  return 0;
}

static int
do_fork (const char *arg)
{
  int n = atoi (arg), k = 0, err = 0;
  pid_t *pids = calloc ((size_t) (n > 0 ? n : 1), sizeof (pid_t));
  if (n <= 0 || pids == NULL)
    return 2;
  for (; k < n; k++)
    {
      pid_t pid = fork ();
      if (pid < 0)
        {
          err = errno;
          break;
        }
      if (pid == 0)
        {
          pause ();
          _exit (0);
        }
      pids[k] = pid;
    }
  printf ("forked %d of %d, errno %d (%s)\n", k, n, err, err ? strerror (err) : "none");
  fflush (stdout);
  for (int i = 0; i < k; i++)
    kill (pids[i], SIGKILL);
  for (int i = 0; i < k; i++)
    waitpid (pids[i], NULL, 0);
  free (pids);
  return 0;
}

static int
do_getppid (void)
{
  errno = 0;
  long r = syscall (SYS_getppid);
  printf ("getppid returned %ld errno %d\n", r, errno);
  fflush (stdout);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "mem") == 0)
    return do_mem (argv[2]);
  if (argc == 3 && strcmp (argv[1], "fork") == 0)
    return do_fork (argv[2]);
  if (argc == 2 && strcmp (argv[1], "getppid") == 0)
    return do_getppid ();
  fprintf (stderr, "usage: vmhelper mem SIZE | fork N | getppid\n");
  return 2;
}
