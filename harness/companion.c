/*
 * companion.c - a point's companion process (see companion.h).
 *
 * Processes: the harness forks the client (a plain fork: the harness is
 * single-threaded); the child resets its signal mask and dispositions, asks
 * for SIGKILL when the harness dies, waits on a pipe until the harness has
 * moved it into the companion's cgroup ("attach before release", as
 * sandbox.c does for the workload), joins the workload's network namespace,
 * redirects stdout/stderr to its files and execs.  A failed step before exec
 * exits 127 with the reason on its stderr file.
 */
#include "companion.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "utils.h"

void
lab_companion_init (struct lab_companion *c, const struct lab_companion_spec *spec)
{
  memset (c, 0, sizeof *c);
  c->spec = *spec;
  c->cur = -1;
  c->pidfd = -1;
  c->t_init = lab_now ();
  for (int i = 0; i < LAB_COMPANION_MAX_CMDS; i++)
    c->runs[i].exit_code = -1;
  int64_t *f = (int64_t *) &c->cg_stats;
  for (size_t i = 0; i < sizeof c->cg_stats / sizeof (int64_t); i++)
    f[i] = -1;
}

/* Looks for `@lab-ready {json}` in the workload's stdout file. */
static void
find_ready (struct lab_companion *c)
{
  FILE *f = fopen (c->spec.ready_path, "re");
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  if (f == NULL)
    return;
  if (fseek (f, c->ready_off, SEEK_SET) == 0)
    while ((n = getline (&line, &cap, f)) > 0)
      {
        if (line[n - 1] != '\n')
          break; /* a line still being written: read it again next time */
        c->ready_off += n;
        if (strncmp (line, "@lab-ready ", 11) == 0)
          {
            struct json_object *o = json_tokener_parse (line + 11);
            c->ready = o ? o : json_object_new_object ();
            break;
          }
      }
  free (line);
  fclose (f);
}

/* "{server_pid}" -> the workload's host pid; "{KEY}" -> the ready JSON's
   KEY (a number or a string), "" when it has none. */
static char *
substitute (const char *s, struct json_object *ready, pid_t wpid)
{
  const char *p = strchr (s, '{'), *q = p ? strchr (p, '}') : NULL;
  char key[64], val[128] = "";
  struct json_object *v = NULL;
  if (p == NULL || q == NULL || (size_t) (q - p - 1) >= sizeof key)
    return strdup (s);
  snprintf (key, sizeof key, "%.*s", (int) (q - p - 1), p + 1);
  if (strcmp (key, "server_pid") == 0)
    snprintf (val, sizeof val, "%d", (int) wpid);
  else if (json_object_object_get_ex (ready, key, &v) && v)
    snprintf (val, sizeof val, "%s",
              json_object_is_type (v, json_type_string) ? json_object_get_string (v) : json_object_to_json_string (v));
  size_t len = strlen (s) - (size_t) (q + 1 - p) + strlen (val) + 1;
  char *o = malloc (len);
  if (o)
    snprintf (o, len, "%.*s%s%s", (int) (p - s), s, val, q + 1);
  return o;
}

static void __attribute__ ((noreturn))
child (const struct lab_companion_cmd *cmd, char **argv, int go, int netns)
{
  sigset_t none;
  char b;
  sigemptyset (&none);
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP)
      signal (s, SIG_DFL);
  sigprocmask (SIG_SETMASK, &none, NULL);
  prctl (PR_SET_PDEATHSIG, SIGKILL);
  int out = open (cmd->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int err = open (cmd->err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0 || err < 0 || dup2 (out, 1) < 0 || dup2 (err, 2) < 0)
    _exit (127);
  if (read (go, &b, 1) != 1)
    _exit (127); /* the harness did not release us */
  if (setns (netns, CLONE_NEWNET) < 0)
    {
      fprintf (stderr, "companion: joining the workload's network namespace: %s\n", strerror (errno));
      _exit (127);
    }
  execv (argv[0], argv);
  fprintf (stderr, "companion: executing `%s`: %s\n", argv[0], strerror (errno));
  _exit (127);
}

static int
start_cmd (struct lab_companion *c, pid_t wpid)
{
  const struct lab_companion_cmd *cmd = &c->spec.cmds[c->cur];
  char path[64];
  char *argv[64];
  int n = 0, go[2] = { -1, -1 }, ret = -1;
  lab_error_t e = NULL;

  for (; cmd->argv[n] && n < 63; n++)
    argv[n] = substitute (cmd->argv[n], c->ready, wpid);
  argv[n] = NULL;
  snprintf (path, sizeof path, "/proc/%d/ns/net", (int) wpid);
  cleanup_close int netns = open (path, O_RDONLY | O_CLOEXEC);
  if (netns < 0)
    {
      snprintf (c->detail, sizeof c->detail, "companion `%s`: opening the workload's network namespace `%s`: %s",
                cmd->label, path, strerror (errno));
      goto out;
    }
  if (c->cg == NULL)
    {
      struct lab_limits lim = { LAB_LIMIT_UNSET, LAB_LIMIT_UNSET, LAB_LIMIT_UNSET, LAB_LIMIT_UNSET,
                                LAB_LIMIT_UNSET, LAB_LIMIT_UNSET, (char *) c->spec.cpus, 0 };
      if (lab_cgroup_create (c->spec.name, &lim, &c->cg, &e) < 0)
        {
          snprintf (c->detail, sizeof c->detail, "companion cgroup `%s`: %s", c->spec.name, e->msg);
          lab_error_release (&e);
          goto out;
        }
      snprintf (c->cgroup_path, sizeof c->cgroup_path, "%s", lab_cgroup_path (c->cg));
    }
  if (pipe2 (go, O_CLOEXEC) < 0)
    {
      snprintf (c->detail, sizeof c->detail, "companion `%s`: pipe: %s", cmd->label, strerror (errno));
      goto out;
    }
  fflush (NULL);
  pid_t pid = fork ();
  if (pid < 0)
    {
      snprintf (c->detail, sizeof c->detail, "companion `%s`: fork: %s", cmd->label, strerror (errno));
      goto out;
    }
  if (pid == 0)
    {
      close (go[1]);
      child (cmd, argv, go[0], netns);
    }
  c->pid = pid;
  c->pidfd = -1;
  c->t_start = lab_now ();
  c->runs[c->cur].started = 1;
  if (lab_cgroup_attach (c->cg, pid, &e) < 0)
    {
      snprintf (c->detail, sizeof c->detail, "companion `%s`: %s", cmd->label, e->msg);
      lab_error_release (&e);
      kill (pid, SIGKILL); /* never released: reaped by lab_companion_finish */
      goto out;
    }
  if (write (go[1], "g", 1) != 1)
    {
      snprintf (c->detail, sizeof c->detail, "companion `%s`: releasing it: %s", cmd->label, strerror (errno));
      kill (pid, SIGKILL);
      goto out;
    }
  ret = 0;
out:
  if (go[0] >= 0)
    close (go[0]);
  if (go[1] >= 0)
    close (go[1]);
  for (int i = 0; i < n; i++)
    free (argv[i]);
  return ret;
}

static void
record_end (struct lab_companion *c, int st, const struct rusage *ru)
{
  struct lab_companion_run *r = &c->runs[c->cur];
  r->wall_s = lab_now () - c->t_start;
  r->exit_code = WIFEXITED (st) ? WEXITSTATUS (st) : -1;
  r->term_signal = WIFSIGNALED (st) ? WTERMSIG (st) : 0;
  r->cpu_user_s = (double) ru->ru_utime.tv_sec + (double) ru->ru_utime.tv_usec / 1e6;
  r->cpu_sys_s = (double) ru->ru_stime.tv_sec + (double) ru->ru_stime.tv_usec / 1e6;
  r->vol_ctxsw = ru->ru_nvcsw;
  r->invol_ctxsw = ru->ru_nivcsw;
  r->max_rss_kb = ru->ru_maxrss;
  c->pid = 0;
}

int
lab_companion_step (struct lab_companion *c, pid_t wpid)
{
  if (c->done)
    {
      if (!c->stopped_workload && c->spec.stop_signal && wpid > 0)
        {
          kill (wpid, c->spec.stop_signal);
          c->stopped_workload = 1;
        }
      return 0;
    }
  if (c->ready == NULL)
    {
      find_ready (c);
      if (c->ready == NULL && c->spec.ready_timeout_s > 0 && lab_now () - c->t_init >= c->spec.ready_timeout_s)
        {
          c->ready_timed_out = 1;
          return -1;
        }
      if (c->ready == NULL || wpid <= 0)
        return 0;
    }
  if (c->pid > 0)
    {
      struct rusage ru;
      int st;
      pid_t w = wait4 (c->pid, &st, WNOHANG, &ru);
      if (w == 0 || (w < 0 && errno == EINTR))
        return 0;
      if (w == c->pid)
        record_end (c, st, &ru);
      else
        c->pid = 0;
      struct lab_companion_run *r = &c->runs[c->cur];
      if (r->exit_code != 0)
        {
          c->done = 1; /* a failed command ends the sequence */
          return lab_companion_step (c, wpid);
        }
    }
  if (++c->cur >= c->spec.n_cmds || start_cmd (c, wpid) < 0)
    {
      c->done = 1;
      return lab_companion_step (c, wpid);
    }
  return 0;
}

void
lab_companion_finish (struct lab_companion *c)
{
  lab_error_t e = NULL;
  if (c->pid > 0)
    {
      struct rusage ru;
      int st;
      pid_t w;
      if (c->cg && lab_cgroup_kill (c->cg, &e) < 0)
        lab_error_release (&e);
      kill (c->pid, SIGKILL);
      do
        w = wait4 (c->pid, &st, 0, &ru);
      while (w < 0 && errno == EINTR);
      if (w == c->pid)
        {
          record_end (c, st, &ru);
          if (!c->detail[0])
            snprintf (c->detail, sizeof c->detail, "companion `%s` killed: the workload ended first",
                      c->spec.cmds[c->cur].label);
        }
      c->pid = 0;
    }
  if (c->cg)
    {
      if (lab_cgroup_read_stats (c->cg, &c->cg_stats, &e) < 0)
        lab_error_release (&e);
      if (lab_cgroup_destroy (c->cg, &e) < 0)
        {
          lab_warn ("%s", e->msg);
          lab_error_release (&e);
        }
      c->cg = NULL;
    }
  c->done = 1;
}

static void
add_i64 (struct json_object *o, const char *k, int64_t v)
{
  json_object_object_add (o, k, v >= 0 ? json_object_new_int64 (v) : NULL);
}

struct json_object *
lab_companion_to_json (const struct lab_companion *c)
{
  struct json_object *o = json_object_new_object (), *cmds = json_object_new_array ();
  json_object_object_add (o, "ready", c->ready ? json_object_get (c->ready) : NULL);
  json_object_object_add (o, "cpus", c->spec.cpus ? json_object_new_string (c->spec.cpus) : NULL);
  json_object_object_add (o, "detail", json_object_new_string (c->detail));
  for (int i = 0; i < c->spec.n_cmds; i++)
    {
      const struct lab_companion_run *r = &c->runs[i];
      struct json_object *x = json_object_new_object (), *argv = json_object_new_array ();
      json_object_object_add (x, "label", json_object_new_string (c->spec.cmds[i].label));
      for (char *const *a = c->spec.cmds[i].argv; *a; a++)
        json_object_array_add (argv, json_object_new_string (*a));
      json_object_object_add (x, "command", argv);
      json_object_object_add (x, "started", json_object_new_boolean (r->started));
      if (r->started)
        {
          json_object_object_add (x, "exit_code", r->exit_code >= 0 ? json_object_new_int (r->exit_code) : NULL);
          char sig[32];
          snprintf (sig, sizeof sig, "SIG%s", r->term_signal ? sigabbrev_np (r->term_signal) : "");
          json_object_object_add (x, "signal", r->term_signal ? json_object_new_string (sig) : NULL);
          json_object_object_add (x, "wall_s", json_object_new_double (r->wall_s));
          json_object_object_add (x, "cpu_user_s", json_object_new_double (r->cpu_user_s));
          json_object_object_add (x, "cpu_sys_s", json_object_new_double (r->cpu_sys_s));
          add_i64 (x, "vol_ctxsw", r->vol_ctxsw);
          add_i64 (x, "invol_ctxsw", r->invol_ctxsw);
          add_i64 (x, "max_rss_bytes", r->max_rss_kb * 1024);
        }
      json_object_array_add (cmds, x);
    }
  json_object_object_add (o, "commands", cmds);
  struct json_object *cg = json_object_new_object ();
  json_object_object_add (cg, "path", json_object_new_string (c->cgroup_path));
  add_i64 (cg, "mem_peak_bytes", c->cg_stats.mem_peak);
  add_i64 (cg, "cpu_usage_us", c->cg_stats.cpu_usage_us);
  add_i64 (cg, "pids_peak", c->cg_stats.pids_peak);
  json_object_object_add (o, "cgroup", cg);
  return o;
}
