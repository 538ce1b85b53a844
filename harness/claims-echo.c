/*
 * claims-echo.c - report.md's parts for `echo`: verdicts on C5, C7 and C8
 * (shared/CLAIMS.md) computed from this run's points, and a table per
 * (variant, n) of the client's and the server's figures, with wrk beside
 * our generator where --opt client=wrk ran.
 *
 * Where figures come from: capacity and open-loop percentiles are the
 * summary's (client figures, medians over the ok repeats, min..max as the
 * spread the verdicts compare); the mean latency, open-loop rate, wrk's
 * figure and the server's requests from the median repeat's point; memory
 * per connection = (server cgroup peak - its baseline before any
 * connection) / n; server CPU = the server's own getrusage over ready ->
 * SIGTERM (region_cpu_*), as a share of that wall time.
 * Every claim says which conditions differ from the published ones.
 *
 * Client-bound points (echo-point.h: over the closed window the client was
 * saturated and the server was not): their capacity is the client's limit, a
 * lower bound on the server's.  The table prints it as ">= X", and every
 * capacity comparison (C8, the capacity ratios) says what the ratio can
 * still tell: a lower bound when only the faster side is client-bound,
 * undecided when the slower side or both are.
 */
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "claims.h"
#include "echo-point.h"
#include "report-echo.h"

static const char *
proto_of (const struct lab_agg *g)
{
  struct json_object *v = g && g->workload ? json_object_object_get (g->workload, "proto") : NULL;
  return v ? json_object_get_string (v) : "?";
}

/* Server memory per connection in bytes, or -1. */
static double
mem_per_conn (const struct lab_agg *g)
{
  double peak = g ? g->m[LAB_M_CG_PEAK].med : -1, base = lab_agg_wnum (g, "cgroup_baseline_bytes");
  if (peak < 0 || g->n <= 0)
    return -1;
  return (peak - (base > 0 ? base : 0)) / (double) g->n;
}

/* Server system CPU as a share of its wall time, or -1. */
static double
sys_share (const struct lab_agg *g)
{
  double sys = lab_agg_wnum (g, "region_cpu_sys_s"), wall = lab_agg_wnum (g, "wall_s");
  return sys >= 0 && wall > 0 ? sys / wall : -1;
}

/* The largest n at which both ran ok; the two aggregates. */
static long
pair_at (const struct lab_agg *agg, int n, const char *a, const char *b, long prefer, const struct lab_agg **ga,
         const struct lab_agg **gb)
{
  long at = -1;
  if (prefer > 0)
    {
      /* the common n closest to `prefer` */
      double best = INFINITY;
      for (int i = 0; i < n; i++)
        if (!strcmp (agg[i].experiment, "echo") && !strcmp (agg[i].variant, a) && agg[i].n_ok)
          {
            const struct lab_agg *o = lab_agg_find (agg, n, "echo", b, agg[i].n);
            double d = fabs (log ((double) agg[i].n / (double) prefer));
            if (o && o->n_ok && d < best)
              {
                best = d;
                at = agg[i].n;
              }
          }
    }
  else
    at = lab_agg_largest_common (agg, n, "echo", a, b);
  *ga = at > 0 ? lab_agg_find (agg, n, "echo", a, at) : NULL;
  *gb = at > 0 ? lab_agg_find (agg, n, "echo", b, at) : NULL;
  return at;
}

/* 1 if some ok repeat of g was client-bound, 0 if none was (all judged),
   -1 if some were not judged. */
static int
client_bound (const struct lab_agg *g)
{
  if (g->n_client_bound > 0)
    return 1;
  return g->n_bound_known == g->n_ok ? 0 : -1;
}

static const char *
cap_cell (const struct lab_agg *g, char *buf, size_t len)
{
  if (g->n_client_bound > 0 && g->n_client_bound == g->n_ok)
    snprintf (buf, len, ">= %.0f (client-bound)", g->ops_per_s);
  else if (g->n_client_bound > 0)
    snprintf (buf, len, "%.0f (%d of %d repeats client-bound)", g->ops_per_s, g->n_client_bound, g->n_ok);
  else
    snprintf (buf, len, "%.0f", g->ops_per_s);
  return buf;
}

/* 1 if the median repeat of g waited on a run queue for over
   LAB_ECHO_CONTENDED of its closed window (either side). */
static int
contended (const struct lab_agg *g)
{
  return lab_agg_cnum (g, "client_wait_share") > LAB_ECHO_CONTENDED
         || lab_agg_cnum (g, "server_wait_share") > LAB_ECHO_CONTENDED;
}

static void
contended_note (FILE *f, const struct lab_agg *a, const struct lab_agg *b)
{
  if (contended (a) || contended (b))
    fprintf (f, " CONTENDED: other work took CPU from %s%s%s (run-queue waits over %.0f%% of the window), so this "
                "comparison measures this machine's load too.",
             contended (a) ? a->variant : "", contended (a) && contended (b) ? " and " : "",
             contended (b) ? b->variant : "", 100 * LAB_ECHO_CONTENDED);
}

/* What the capacity ratio a/b can say given which side was client-bound:
   1 neither was (nothing printed); else prints a sentence and returns 2
   when the faster side alone was (the ratio is a lower bound), 0 when the
   ratio is undecided. */
static int
cap_bound_note (FILE *f, const struct lab_agg *a, const struct lab_agg *b)
{
  int ba = client_bound (a), bb = client_bound (b);
  double r = a->ops_per_s / b->ops_per_s;
  const struct lab_agg *fast = r >= 1 ? a : b, *slow = r >= 1 ? b : a;
  int bf = r >= 1 ? ba : bb, bs = r >= 1 ? bb : ba;
  if (ba == 0 && bb == 0)
    return 1;
  if (bf == 1 && bs == 1)
    fprintf (f, " Undecided: both %s and %s were client-bound (the load generator, not the server, was saturated "
                "over the closed loop), so the ratio compares the client's limits.", a->variant, b->variant);
  else if (bs == 1)
    fprintf (f, " Undecided: %s was client-bound, so its capacity is only a lower bound and the ratio may be "
                "smaller or reversed.", slow->variant);
  else if (bf == 1 && bs == 0)
    {
      fprintf (f, " %s was client-bound: its capacity is a lower bound, so %s is at least %.2fx %s.", fast->variant,
               fast->variant, fast->ops_per_s / slow->ops_per_s, slow->variant);
      return 2;
    }
  else
    fprintf (f, " Undecided: whether the client or the server limited %s was not measured.",
             ba < 0 ? a->variant : b->variant);
  return 0;
}

/* The server-side cost a client-bound capacity cannot show: CPU per
   request over the closed loop, medians over the repeats. */
static void
cpu_per_req_note (FILE *f, const struct lab_agg *a, const struct lab_agg *b)
{
  const struct lab_stat *sa = &a->m[LAB_M_SERVER_CPU_PER_REQ], *sb = &b->m[LAB_M_SERVER_CPU_PER_REQ];
  if (sa->n == 0 || sb->n == 0 || sa->med <= 0 || sb->med <= 0)
    return;
  fprintf (f, " Server CPU per request over the closed loop: %s %.2f us (%.2f-%.2f), %s %.2f us (%.2f-%.2f): %s's "
              "server spends %.2fx %s's per request.",
           a->variant, sa->med / 1e3, sa->min / 1e3, sa->max / 1e3, b->variant, sb->med / 1e3, sb->min / 1e3,
           sb->max / 1e3, a->variant, sa->med / sb->med, b->variant);
}

static int
ran_echo (const struct lab_agg *agg, int n)
{
  for (int i = 0; i < n; i++)
    if (!strcmp (agg[i].experiment, "echo"))
      return 1;
  return 0;
}

static enum lab_verdict
both (enum lab_verdict a, enum lab_verdict b)
{
  if (a == LAB_V_NOT_TESTED || b == LAB_V_NOT_TESTED)
    return LAB_V_NOT_TESTED;
  if (a == b)
    return a;
  if (a == LAB_V_FAILS || b == LAB_V_FAILS)
    return LAB_V_FAILS;
  return LAB_V_NOISE;
}

static void
conditions (FILE *f, const struct lab_agg *g, const char *published)
{
  fprintf (f, " Conditions here: %ld connections, proto=%s, the server on one CPU and the client on another "
              "(2-core host, shared with other work), our open-loop generator at %.0f requests/s for %.1f s; "
              "published: %s.",
           g->n, proto_of (g), lab_agg_cnum (g, "rate"), lab_agg_cnum (g, "open_s"), published);
}

/* Threads vs coroutines at the largest n: p99 and memory. */
enum lab_verdict
lab_claim_c5 (const struct lab_agg *agg, int n, FILE *f)
{
  const struct lab_agg *t, *c;
  const char *cv = "coro-uring";
  if (pair_at (agg, n, "thread", cv, -1, &t, &c) < 0)
    cv = "coro-epoll";
  if (pair_at (agg, n, "thread", cv, -1, &t, &c) < 0)
    {
      fprintf (f, "Not measured in this run (`lab run echo --scale full --opt proto=http`; needs `thread` and a "
                  "coro variant ok at the same n)%s.",
               ran_echo (agg, n) ? "; the points that ran did not end ok at a common n" : "");
      return LAB_V_NOT_TESTED;
    }
  char mt[32], mc[32];
  lab_human_bytes (mt, sizeof mt, t->m[LAB_M_CG_PEAK].med);
  lab_human_bytes (mc, sizeof mc, c->m[LAB_M_CG_PEAK].med);
  enum lab_verdict lat = lab_verdict_lower (&c->m[LAB_M_LAT_P99], &t->m[LAB_M_LAT_P99]);
  enum lab_verdict mem = lab_verdict_lower (&c->m[LAB_M_CG_PEAK], &t->m[LAB_M_CG_PEAK]);
  fprintf (f, "At n=%ld open-loop p99: thread **%.2f ms**, %s **%.2f ms**; server memory (cgroup peak): thread "
              "**%s**, %s **%s** (published: 42 ms vs 18 ms, 3.1 GB vs 2.4 GB). Latency %s, memory %s (medians of "
              "%d and %d repeats; a verdict needs the min..max spreads apart).",
           t->n, t->m[LAB_M_LAT_P99].med / 1e6, cv, c->m[LAB_M_LAT_P99].med / 1e6, mt, cv, mc,
           lab_verdict_name (lat), lab_verdict_name (mem), t->n_ok, c->n_ok);
  conditions (f, t, "32 cores, HTTP, wrk with 12 threads (closed loop), 10K connections, 30 s, Go goroutines");
  return both (lat, mem);
}

/* epoll vs io_uring event loops: mean latency and system CPU. */
enum lab_verdict
lab_claim_c7 (const struct lab_agg *agg, int n, FILE *f)
{
  const struct lab_agg *e, *u;
  if (pair_at (agg, n, "epoll", "uring", -1, &e, &u) < 0)
    {
      fprintf (f, "Not measured in this run (`lab run echo --variants epoll,uring`)%s.",
               ran_echo (agg, n) ? "; the points that ran did not end ok at a common n" : "");
      return LAB_V_NOT_TESTED;
    }
  double le = lab_agg_cnum (e, "lat_mean_ns"), lu = lab_agg_cnum (u, "lat_mean_ns"), se = sys_share (e), su = sys_share (u);
  if (le <= 0 || lu <= 0 || se < 0 || su < 0)
    {
      fprintf (f, "The epoll and uring points at n=%ld lack the open-loop mean or the server's CPU figures.", e->n);
      return LAB_V_NOT_TESTED;
    }
  /* One repeat's means have no spread here: call a difference under 10% noise. */
  enum lab_verdict lat = lu < le * 0.9 ? LAB_V_HOLDS : lu > le * 1.1 ? LAB_V_FAILS : LAB_V_NOISE;
  enum lab_verdict sys = su < se * 0.9 ? LAB_V_HOLDS : su > se * 1.1 ? LAB_V_FAILS : LAB_V_NOISE;
  fprintf (f, "At n=%ld mean open-loop latency: epoll **%.0f us**, uring **%.0f us**; server system CPU: epoll "
              "**%.1f%%**, uring **%.1f%%** of its wall time (published: 124 vs 89 us, 18.2%% vs 11.7%%). Latency "
              "%s, system CPU %s (median repeat; differences under 10%% are called noise). uring used: %s.",
           e->n, le / 1e3, lu / 1e3, 100 * se, 100 * su, lab_verdict_name (lat), lab_verdict_name (sys),
           u->workload && json_object_object_get (u->workload, "uring_features")
             ? json_object_get_string (json_object_object_get (u->workload, "uring_features"))
             : "?");
  conditions (f, e, "Linux 6.5, a game server's event loop, its own load");
  return both (lat, sys);
}

/* epoll vs io_uring web server: QPS and p99 near 4000 connections. */
enum lab_verdict
lab_claim_c8 (const struct lab_agg *agg, int n, FILE *f)
{
  const struct lab_agg *e, *u;
  if (pair_at (agg, n, "epoll", "uring", 4000, &e, &u) < 0)
    {
      fprintf (f, "Not measured in this run (`lab run echo --variants epoll,uring --opt proto=http`)%s.",
               ran_echo (agg, n) ? "; the points that ran did not end ok at a common n" : "");
      return LAB_V_NOT_TESTED;
    }
  /* higher capacity is better: compare the negatives */
  struct lab_stat ne = e->m[LAB_M_OPS_PER_S], nu = u->m[LAB_M_OPS_PER_S];
  double t;
  ne.med = -ne.med, t = ne.min, ne.min = -ne.max, ne.max = -t;
  nu.med = -nu.med, t = nu.min, nu.min = -nu.max, nu.max = -t;
  enum lab_verdict qps = lab_verdict_lower (&nu, &ne);
  enum lab_verdict p99 = lab_verdict_lower (&u->m[LAB_M_LAT_P99], &e->m[LAB_M_LAT_P99]);
  char ce[64], cu[64];
  fprintf (f, "At n=%ld (closest to 4000): capacity epoll **%s/s**, uring **%s/s** (%.2fx); open-loop p99 "
              "epoll **%.2f ms**, uring **%.2f ms** (published: 42K vs 58K QPS, 1.38x; p99 112 vs 68 ms).",
           e->n, cap_cell (e, ce, sizeof ce), cap_cell (u, cu, sizeof cu), u->ops_per_s / e->ops_per_s,
           e->m[LAB_M_LAT_P99].med / 1e6, u->m[LAB_M_LAT_P99].med / 1e6);
  /* Undecided (a client-bound side's true capacity is higher than measured):
     the headline says "within noise", the data cannot tell, not "not tested". */
  int cb = cap_bound_note (f, u, e), undecided = cb == 0 || (cb == 2 && qps == LAB_V_NOISE);
  if (undecided)
    qps = LAB_V_NOISE;
  contended_note (f, u, e);
  fprintf (f, " Capacity %s, p99 %s.", undecided ? "undecided (client-bound)" : lab_verdict_name (qps),
           lab_verdict_name (p99));
  conditions (f, e, "4 cores, 4 KB HTTP requests, keep-alive, 4000 connections");
  return both (qps, p99);
}

/* The goals at each n, coro-uring against epoll and against thread:
   a list under `title` of line()'s sentences for the pairs usable() takes. */
static void
goal_pairs (FILE *f, const struct lab_agg *agg, int n, const char *title,
            int (*usable) (const struct lab_agg *, const struct lab_agg *),
            void (*line) (FILE *, const struct lab_agg *, const struct lab_agg *))
{
  static const char *const pairs[][2] = { { "coro-uring", "epoll" }, { "coro-uring", "thread" } };
  int header = 0;
  for (int i = 0; i < n; i++)
    for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++)
      {
        const struct lab_agg *a = &agg[i], *b;
        if (strcmp (a->experiment, "echo") || strcmp (a->variant, pairs[p][0]) || !a->n_ok)
          continue;
        b = lab_agg_find (agg, n, "echo", pairs[p][1], a->n);
        if (b == NULL || !b->n_ok || !usable (a, b))
          continue;
        if (!header)
          fprintf (f, "\n%s:\n\n", title);
        header = 1;
        fprintf (f, "- n=%ld: %s / %s = ", a->n, a->variant, b->variant);
        line (f, a, b);
        fprintf (f, "\n");
      }
}

static int
capacity_usable (const struct lab_agg *a, const struct lab_agg *b)
{
  return a->ops_per_s > 0 && b->ops_per_s > 0;
}

/* Capacity: the ratio and what the client-bound marks leave of it. */
static void
capacity_line (FILE *f, const struct lab_agg *a, const struct lab_agg *b)
{
  fprintf (f, "**%.2fx**.", a->ops_per_s / b->ops_per_s);
  if (cap_bound_note (f, a, b) == 1)
    fprintf (f, " Neither point's capacity was limited by the client.");
  cpu_per_req_note (f, a, b);
  contended_note (f, a, b);
}

static int
p99_usable (const struct lab_agg *a, const struct lab_agg *b)
{
  const struct lab_stat *sa = &a->m[LAB_M_LAT_P99], *sb = &b->m[LAB_M_LAT_P99];
  return sa->n > 0 && sb->n > 0 && sa->med > 0 && sb->med > 0;
}

/* Open-loop p99 at the same rate, with the verdict the claims use: the
   repeats' min..max ranges apart, or within noise. */
static void
p99_line (FILE *f, const struct lab_agg *a, const struct lab_agg *b)
{
  const struct lab_stat *sa = &a->m[LAB_M_LAT_P99], *sb = &b->m[LAB_M_LAT_P99];
  double ra = lab_agg_cnum (a, "rate"), rb = lab_agg_cnum (b, "rate");
  fprintf (f, "**%.2fx** (%.3f against %.3f ms", sa->med / sb->med, sa->med / 1e6, sb->med / 1e6);
  if (sa->n > 1 || sb->n > 1)
    fprintf (f, "; repeats %.3f-%.3f and %.3f-%.3f ms)", sa->min / 1e6, sa->max / 1e6, sb->min / 1e6, sb->max / 1e6);
  else
    fprintf (f, ", one repeat each)");
  if (ra > 0 && rb > 0 && fabs (ra - rb) > 0.01 * rb)
    {
      fprintf (f, ", at different rates (%.0f and %.0f requests/s): not comparable.", ra, rb);
      return;
    }
  enum lab_verdict v = lab_verdict_lower (sa, sb);
  if (v == LAB_V_HOLDS)
    fprintf (f, " at %.0f requests/s: lower, every repeat of %s under every repeat of %s.", ra, a->variant, b->variant);
  else if (v == LAB_V_FAILS)
    fprintf (f, " at %.0f requests/s: higher, every repeat of %s over every repeat of %s.", ra, a->variant, b->variant);
  else
    fprintf (f, " at %.0f requests/s: within noise: %s.", ra, lab_verdict_why_noise (sa, sb));
  contended_note (f, a, b);
}

void
lab_report_echo_section (FILE *f, const char *exp, const struct lab_agg *agg, int n)
{
  int wrk = 0;
  if (strcmp (exp, "echo") != 0)
    return;
  for (int i = 0; i < n; i++)
    wrk |= !strcmp (agg[i].experiment, "echo") && lab_agg_cnum (&agg[i], "wrk_ops_per_s") > 0;
  fprintf (f, "\nClient and server figures (median repeat; capacity is the closed loop, latencies the open loop "
              "from each request's intended send time):\n\n");
  fprintf (f, "| variant | n | capacity req/s | open-loop rate | p50 ms | p99 ms | p99.9 ms | max ms | "
              "unanswered | server mem/conn | server sys CPU |%s closed-loop load: client / server | "
              "client late > 1 ms | server CPU/req us |\n",
           wrk ? " wrk req/s | wl-loadgen req/s | difference |" : "");
  fprintf (f, "|---|---|---|---|---|---|---|---|---|---|---|%s---|---|---|\n", wrk ? "---|---|---|" : "");
  for (int i = 0; i < n; i++)
    {
      const struct lab_agg *g = &agg[i];
      char mem[32];
      if (strcmp (g->experiment, "echo") || !g->n_ok)
        continue;
      lab_human_bytes (mem, sizeof mem, mem_per_conn (g));
      char cap[64];
      fprintf (f, "| %s | %ld | %s | %.0f | %.3f | %.3f | %.3f | %.3f | %.0f | %s | %.1f%% |", g->variant, g->n,
               cap_cell (g, cap, sizeof cap), lab_agg_cnum (g, "rate"), g->m[LAB_M_LAT_P50].med / 1e6, g->m[LAB_M_LAT_P99].med / 1e6,
               g->m[LAB_M_LAT_P999].med / 1e6, g->m[LAB_M_LAT_MAX].med / 1e6, lab_agg_cnum (g, "open_unanswered"), mem,
               100 * sys_share (g));
      if (wrk)
        {
          double w = lab_agg_cnum (g, "wrk_ops_per_s"), l = lab_agg_cnum (g, "loadgen_ops_per_s");
          if (w > 0 && l > 0)
            fprintf (f, " %.0f | %.0f | %+.1f%%%s |", w, l, 100 * (l - w) / w,
                     fabs (l - w) / w <= 0.10 ? " (agree within 10%)" : " (more than 10% apart)");
          else
            fprintf (f, " - | - | - |");
        }
      double cb = lab_agg_cnum (g, "client_load"), sb = lab_agg_cnum (g, "server_load");
      double late = lab_agg_cnum (g, "send_late_frac");
      double cws = lab_agg_cnum (g, "client_wait_share"), sws = lab_agg_cnum (g, "server_wait_share");
      if (cb >= 0 && sb >= 0)
        fprintf (f, " %.2f / %.2f%s", cb, sb, strncmp (g->variant, "coro-", 5) ? "" : " (idle spin left out)");
      else
        fprintf (f, cb >= 0 ? " %.2f / ?" : " -", cb);
      if (cws > LAB_ECHO_CONTENDED || sws > LAB_ECHO_CONTENDED)
        fprintf (f, "; CONTENDED: waited for CPU %.0f%% / %.0f%%", 100 * cws, 100 * (sws > 0 ? sws : 0));
      fprintf (f, " |");
      if (late >= 0)
        fprintf (f, " %.1f%% |", 100 * late);
      else
        fprintf (f, " - |");
      if (g->m[LAB_M_SERVER_CPU_PER_REQ].n > 0)
        fprintf (f, " %.2f |", g->m[LAB_M_SERVER_CPU_PER_REQ].med / 1e3);
      else
        fprintf (f, " - |");
      fprintf (f, "\n");
    }
  goal_pairs (f, agg, n, "Capacity ratios (medians over repeats)", capacity_usable, capacity_line);
  goal_pairs (f, agg, n, "Open-loop p99 ratios (medians over repeats)", p99_usable, p99_line);
  fprintf (f, "\nLoad = (CPU time over the closed loop's window + time waiting on a run queue) / (window x the "
              "side's CPUs): the server's CPU from its cgroup, less a coroutine server's idle spinning; the "
              "client's from getrusage (client_figures in the point JSON, with the cgroup and /proc readings "
              "beside them; CPU alone where the wait was not read).  A point is client-bound when the client's "
              "load was >= %.2f and the server's was not: its capacity (\">= X\") is then the client's "
              "limit, a lower bound on the server's.  CONTENDED: a side waited on a run queue for more than %.0f%% "
              "of the window (other work on its CPU), so the capacity measures this machine's load too.  \"Client late\" is the share of open-loop requests the "
              "generator itself sent more than 1 ms after their intended time (its own stalls, not the "
              "server's).  \"Server CPU/req\" is the server's CPU over the closed loop's window (its cgroup, less "
              "a coroutine server's idle spinning) per request answered in it, the median over the repeats: "
              "what a client-bound capacity cannot show.\n",
           LAB_ECHO_SATURATED, 100 * LAB_ECHO_CONTENDED);
  fprintf (f, "\nThe open-loop rate is the same for every variant at one n (`--opt rate=R`, else half the slowest "
              "variant's capacity from the calibration pass in calibration/). Memory per connection is the "
              "server cgroup's peak minus its baseline before any connection, divided by n; it includes socket "
              "buffers. Latency histograms: points/<id>.hgrm (HdrHistogram percentile distribution, ms).\n");
}
