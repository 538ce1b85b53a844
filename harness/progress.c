/* progress.c - `lab run`'s progress output (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "claims.h" /* lab_human_bytes */
#include "sandbox.h"
#include "status.h"
#include "utils.h"

static struct
{
  int tty, total, done, run;
  double run_time;     /* sum of the elapsed times of the points run now */
  double point_start;  /* lab_now() at the start of the current point */
  double last_draw;
  char id[160];
  int live;            /* the live line is on screen */
} p;

static int
columns (void)
{
  struct winsize w;
  if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 20)
    return w.ws_col;
  return 80;
}

static void
clear_line (void)
{
  if (p.live)
    fputs ("\r\033[K", stdout);
  p.live = 0;
}

static void
draw (const struct lab_sandbox_live *live)
{
  char line[512], rss[32] = "", cg[32] = "", eta[32] = "";
  double elapsed = live ? live->elapsed_s : lab_now () - p.point_start;
  int remaining = p.total - p.done;
  int w = columns () - 1;

  if (live && live->rss_bytes >= 0)
    lab_human_bytes (rss, sizeof (rss), (double) live->rss_bytes);
  if (live && live->cgroup_bytes >= 0)
    lab_human_bytes (cg, sizeof (cg), (double) live->cgroup_bytes);
  if (p.run > 0 && remaining > 0)
    {
      double mean = p.run_time / p.run;
      long s = (long) (mean * remaining - (elapsed < mean ? elapsed : mean));
      snprintf (eta, sizeof (eta), " ETA %ld:%02ld", s / 60, s % 60);
    }
  snprintf (line, sizeof (line), "[%d/%d%s] %s  %.1f s%s%s%s%s", p.done + 1, p.total, eta, p.id, elapsed,
            rss[0] ? "  RSS " : "", rss, cg[0] ? "  cgroup " : "", cg);
  if ((int) strlen (line) > w)
    line[w] = '\0';
  fprintf (stdout, "\r%s\033[K", line);
  fflush (stdout);
  p.live = 1;
  p.last_draw = lab_now ();
}

static void
observe (const struct lab_sandbox_live *live, void *arg)
{
  (void) arg;
  if (lab_now () - p.last_draw >= 0.25)
    draw (live);
}

void
lab_progress_begin (int total, int done)
{
  memset (&p, 0, sizeof (p));
  p.tty = isatty (STDOUT_FILENO) && getenv ("TERM") && strcmp (getenv ("TERM"), "dumb") != 0;
  p.total = total;
  p.done = done;
}

void
lab_progress_reused (void)
{
  p.done++;
}

void
lab_progress_point_start (const char *id)
{
  snprintf (p.id, sizeof (p.id), "%s", id);
  p.point_start = lab_now ();
  if (!p.tty)
    {
      printf ("%-40s ", id);
      fflush (stdout);
      return;
    }
  draw (NULL);
  lab_sandbox_set_observer (observe, NULL);
}

static void
finish_line (const char *status, double wall_s, const char *detail)
{
  if (wall_s >= 0)
    printf ("%-8s %10.4f s  %s\n", status, wall_s, detail ? detail : "");
  else
    printf ("%-8s %10s    %s\n", status, "-", detail ? detail : "");
}

void
lab_progress_point_end (const char *id, const char *status, double wall_s, const char *detail)
{
  lab_sandbox_set_observer (NULL, NULL);
  p.done++;
  if (strcmp (status, lab_status_name (LAB_ST_SKIPPED)) != 0)
    {
      p.run++;
      p.run_time += lab_now () - p.point_start;
    }
  if (!p.tty)
    {
      finish_line (status, wall_s, detail);
      return;
    }
  if (!lab_status_is_ok (status))
    {
      clear_line ();
      printf ("%-40s ", id);
      finish_line (status, wall_s, detail);
    }
}

void
lab_progress_point_abort (const char *why)
{
  lab_sandbox_set_observer (NULL, NULL);
  if (p.tty)
    {
      clear_line ();
      printf ("%-40s ", p.id);
    }
  printf ("%s\n", why);
  fflush (stdout);
}

void
lab_progress_end (void)
{
  lab_sandbox_set_observer (NULL, NULL);
  if (p.tty)
    {
      clear_line ();
      fflush (stdout);
    }
}
