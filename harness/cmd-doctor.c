/*
 * cmd-doctor.c - `lab doctor`: what this host supports and the limits that cap
 * experiments.  Exit 0 when the lab can run here (root, a cgroup backend with
 * the memory and pids controllers, pid and net namespaces, seccomp); 1 when
 * it cannot, naming what is missing.  io_uring missing is a warning: the
 * coroutine runtime falls back to its epoll backend.
 */
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "hostinfo.h"

static void
print_limit (const char *name, int64_t v, const char *why)
{
  if (v < 0)
    printf ("  %-22s %-12s %s\n", name, "unlimited", why);
  else
    printf ("  %-22s %-12lld %s\n", name, (long long) v, why);
}

static void
print_gib (const char *name, int64_t v)
{
  printf ("  %-22s %.1f GiB\n", name, v < 0 ? 0.0 : (double) v / (1 << 30));
}

int
cmd_doctor (int argc, char **argv)
{
  static const struct option opts[] = { { "help", no_argument, 0, 'h' }, { "json", no_argument, 0, 'j' }, { 0, 0, 0, 0 } };
  struct lab_hostinfo h;
  int c, as_json = 0, bad = 0;

  while ((c = getopt_long (argc, argv, "hj", opts, NULL)) != -1)
    switch (c)
      {
      case 'h':
        printf ("usage: lab doctor [--json]\n\nChecks the kernel, the cgroup mode and controllers, io_uring, seccomp and\n"
                "namespaces, and prints the host limits that cap experiments.  Exit 0 when\nthe lab can run here.\n");
        return 0;
      case 'j': as_json = 1; break;
      default: return 2;
      }
  if (optind < argc)
    {
      fprintf (stderr, "lab doctor: unexpected argument `%s`\n", argv[optind]);
      return 2;
    }
  lab_hostinfo_collect (&h);
  bad = (h.ct.engine[0] && h.ct.problem[0]) || !h.is_root || !h.cg_ok || !h.pidns || !h.netns || !h.seccomp
        || (h.cg_ok && (!strstr (h.cg.controllers, "memory") || !strstr (h.cg.controllers, "pids")));
  if (as_json)
    {
      struct json_object *o = lab_hostinfo_to_json (&h);
      json_object_object_add (o, "ok", json_object_new_boolean (!bad));
      puts (json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
      json_object_put (o);
      return bad;
    }
  printf ("host       %s (%s), %d cores, %s\n", h.hostname, h.machine, h.cores, h.cpu_model);
  printf ("kernel     %s\n", h.kernel);
  print_gib ("memory", h.mem_total);
  print_gib ("swap", h.swap_total);
  if (h.cg_ok)
    {
      const char *mode = h.cg.mode == LAB_CG_V2 ? "v2" : h.cg.mode == LAB_CG_HYBRID ? "hybrid" : "v1";
      printf ("cgroup     %s, backend %s, controllers: %s\n", mode, h.cg.backend ? h.cg.backend : "?", h.cg.controllers);
    }
  else
    printf ("cgroup     NOT USABLE: %s\n", h.cg_error);
  if (h.ct.engine[0])
    printf ("container  %s, %s; %s%s%s\n", h.ct.engine, h.ct.privileged ? "privileged" : "NOT privileged",
            h.ct.cgroup_case, h.ct.problem[0] ? "\n           NO: " : "", h.ct.problem);
  printf ("io_uring   %s (%s)\n", h.io_uring ? "yes" : "no: coroutine I/O falls back to epoll", h.io_uring_detail);
  printf ("seccomp    %s\n", h.seccomp ? "yes" : "NO");
  printf ("namespaces pid %s, net %s, user %s\n", h.pidns ? "yes" : "NO", h.netns ? "yes" : "NO", h.userns ? "yes" : "no");
  printf ("root       %s\n", h.is_root ? "yes" : "NO (the sandbox needs root)");
  printf ("limits that cap experiments:\n");
  print_limit ("kernel.pid_max", h.pid_max, "caps live threads (each has a pid)");
  print_limit ("kernel.threads-max", h.threads_max, "caps live threads system-wide");
  print_limit ("vm.max_map_count", h.max_map_count, "a guarded stack costs 2 mappings");
  print_limit ("RLIMIT_NPROC", h.nproc_soft, "threads per user (root is exempt)");
  print_limit ("RLIMIT_NOFILE", h.nofile_soft, "caps connections and rings");
  print_limit ("RLIMIT_MEMLOCK", h.memlock_soft, "io_uring rings on older kernels");
  print_limit ("vm.overcommit_memory", h.overcommit_memory, "2 = strict: VSS counts");
  printf ("verdict    %s\n", bad ? "the lab cannot run here (see NO above)" : "the lab can run here");
  return bad;
}
