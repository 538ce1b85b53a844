/* seccomp-kills.c - see seccomp-kills.h. */
#include "seccomp-kills.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/netlink.h>
#include <sys/socket.h>

#include <seccomp.h>

#include "sandbox.h"

int
lab_seccomp_kills_open_kmsg (void)
{
  int fd = open ("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0)
    lseek (fd, 0, SEEK_END);
  return fd;
}

/* The audit multicast group (read-only, like journald's listener; needs
   CAP_AUDIT_READ): the same records as the kernel log, without printk's rate
   limit. */
int
lab_seccomp_kills_open_audit (void)
{
  int fd = socket (AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_AUDIT);
  if (fd < 0)
    return -1;
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = AUDIT_NLGRP_READLOG };
  if (bind (fd, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

void
lab_seccomp_kills_tag_self (void)
{
  /* Writing the login uid (0 if unset, else the same value) starts a new
     audit session; it changes nothing else.  Best effort: no error path. */
  char buf[32] = "";
  int fd = open ("/proc/self/loginuid", O_RDWR | O_CLOEXEC);
  ssize_t n;

  if (fd < 0)
    return;
  n = read (fd, buf, sizeof buf - 1);
  if (n <= 0 || strtoul (buf, NULL, 10) == LAB_AUDIT_SES_NONE)
    snprintf (buf, sizeof buf, "0");
  else
    buf[n] = '\0';
  if (pwrite (fd, buf, strlen (buf), 0) < 0)
    { /* no CAP_AUDIT_CONTROL here (user namespace): untagged */ }
  close (fd);
}

unsigned
lab_seccomp_kills_session (pid_t pid)
{
  char path[64], buf[32] = "";
  int fd;
  ssize_t n;

  snprintf (path, sizeof path, "/proc/%d/sessionid", (int) pid);
  if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
    return LAB_AUDIT_SES_NONE;
  n = read (fd, buf, sizeof buf - 1);
  close (fd);
  if (n <= 0)
    return LAB_AUDIT_SES_NONE;
  return (unsigned) strtoul (buf, NULL, 10);
}

static long
field (const char *rec, const char *name, int base, int *found)
{
  const char *p = strstr (rec, name);
  *found = p != NULL;
  return p ? strtol (p + strlen (name), NULL, base) : 0;
}

/* One type=1326 record: kept if of session `ses` or pid `top`.  1 = it was
   the top's (seccomp_nr/name filled). */
static int
take_record (const char *rec, unsigned ses, pid_t top, struct lab_sandbox_result *res)
{
  int have_pid, have_sc, have_ses, have_arch;
  long pid = field (rec, " pid=", 10, &have_pid), nr = field (rec, " syscall=", 10, &have_sc);
  unsigned long rses = (unsigned long) field (rec, " ses=", 10, &have_ses);
  uint32_t arch = (uint32_t) strtoul (strstr (rec, " arch=") ? strstr (rec, " arch=") + 6 : "0", NULL, 16);
  const char *comm = strstr (rec, " comm=\"");
  char *name;

  (void) field (rec, " arch=", 16, &have_arch);
  if (!have_pid || !have_sc)
    return 0;
  if ((pid_t) pid != top && !(ses != LAB_AUDIT_SES_NONE && have_ses && rses == ses))
    return 0;
  name = seccomp_syscall_resolve_num_arch (have_arch ? arch : SCMP_ARCH_NATIVE, (int) nr);
  for (int i = 0; i < res->n_kills; i++)
    if (res->kills[i].pid == (int) pid && res->kills[i].nr == (int) nr)
      goto top; /* the same record from audit and kmsg */
  if (res->n_kills < LAB_SECCOMP_KILLS_MAX)
    {
      struct lab_seccomp_kill *k = &res->kills[res->n_kills++];
      k->pid = (int) pid;
      k->nr = (int) nr;
      snprintf (k->name, sizeof k->name, "%s", name ? name : "");
      k->comm[0] = '\0';
      if (comm)
        snprintf (k->comm, sizeof k->comm, "%.*s", (int) strcspn (comm + 7, "\""), comm + 7);
    }
  else
    res->kills_dropped++;
top:
  if ((pid_t) pid == top)
    {
      res->seccomp_nr = (int) nr;
      snprintf (res->seccomp_name, sizeof res->seccomp_name, "%s", name ? name : "");
    }
  free (name);
  return (pid_t) pid == top;
}

/* Reads what the audit socket holds; waits up to `wait_ms` for the top's record. */
static int
drain_audit (int fd, unsigned ses, pid_t top, int wait_ms, struct lab_sandbox_result *res)
{
  char buf[8192] __attribute__ ((aligned (__alignof__ (struct nlmsghdr))));
  int found = 0;

  for (int waited = 0;;)
    {
      ssize_t n = recv (fd, buf, sizeof buf - 1, 0);
      if (n < 0 && errno == EAGAIN)
        {
          struct pollfd pf = { fd, POLLIN, 0 };
          if (found || waited >= wait_ms)
            return found;
          poll (&pf, 1, 1);
          waited++;
          continue;
        }
      if (n < 0 && errno == ENOBUFS) /* records lost: read on */
        continue;
      if (n <= 0)
        return found;
      /* A signed length: audit records are not padded to NLMSG_ALIGNTO, so
         NLMSG_NEXT takes it below zero after the last one, which an unsigned
         length would read as more messages (a read past the buffer). */
      int len = (int) n;
      for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK (h, len); h = NLMSG_NEXT (h, len))
        if (h->nlmsg_type == AUDIT_SECCOMP)
          {
            char rec[2048];
            size_t plen = NLMSG_PAYLOAD (h, 0) < sizeof rec - 1 ? NLMSG_PAYLOAD (h, 0) : sizeof rec - 1;
            memcpy (rec, NLMSG_DATA (h), plen);
            rec[plen] = '\0';
            found |= take_record (rec, ses, top, res);
          }
    }
}

static int
drain_kmsg (int fd, unsigned ses, pid_t top, struct lab_sandbox_result *res)
{
  char rec[2048];
  int found = 0;

  for (;;)
    {
      ssize_t n = read (fd, rec, sizeof rec - 1);
      if (n < 0 && errno == EPIPE) /* overwritten records: go on reading */
        continue;
      if (n <= 0)
        return found;
      rec[n] = '\0';
      if (strstr (rec, "type=1326"))
        found |= take_record (rec, ses, top, res);
    }
}

void
lab_seccomp_kills_collect (int audit_fd, int kmsg_fd, unsigned ses, pid_t top, int top_sigsys,
                           int others, struct lab_sandbox_result *res)
{
  int found = 0;

  /* The records come through kauditd: allow ~50 ms for the top's, ~5 ms
     for the others' when there can be others. */
  if (audit_fd >= 0)
    found = drain_audit (audit_fd, ses, top, top_sigsys ? 50 : others ? 5 : 0, res);
  if (kmsg_fd >= 0 && (audit_fd < 0 || (top_sigsys && !found)))
    drain_kmsg (kmsg_fd, ses, top, res);
}
