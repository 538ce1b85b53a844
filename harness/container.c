/*
 * container.c - see container.h.
 *
 * The two cases the lab supports inside a container (README, "Reproduce with
 * Docker"):
 *  - cgroup v2 with a private cgroup namespace: /proc/self/cgroup reads
 *    `0::/init` after tools/docker/entrypoint.sh moved the container's
 *    processes into the leaf /init and delegated the controllers; the lab's
 *    groups go below /init.  `0::/` means the entry point did not run (or
 *    could not write); a long path means the host's cgroup namespace.
 *  - cgroup v1 / hybrid: the lab nests under the container's own cgroup of
 *    each hierarchy, as on a host.
 * Either way the cgroup files must be writable, which engines grant only to
 * --privileged containers (the cgroup mount is read-only otherwise).
 */
#include "container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <linux/magic.h>
#include <unistd.h>

static int
exists (const char *p)
{
  return access (p, F_OK) == 0;
}

/* The value of `container=` in PID 1's environment, if any. */
static void
pid1_container_env (char *out, size_t len)
{
  FILE *f = fopen ("/proc/1/environ", "re");
  char buf[8192];
  size_t n;
  out[0] = '\0';
  if (f == NULL)
    return;
  n = fread (buf, 1, sizeof buf - 1, f);
  fclose (f);
  buf[n] = '\0';
  for (size_t i = 0; i < n; i += strlen (buf + i) + 1)
    if (strncmp (buf + i, "container=", 10) == 0)
      {
        snprintf (out, len, "%s", buf + i + 10);
        return;
      }
}

static int
root_is_overlay (void)
{
  struct statfs s;
  return statfs ("/", &s) == 0 && s.f_type == OVERLAYFS_SUPER_MAGIC;
}

static int
read_only (const char *path)
{
  struct statvfs s;
  return statvfs (path, &s) == 0 && (s.f_flag & ST_RDONLY);
}

/* The v2 line of /proc/self/cgroup ("0::PATH"), or "". */
static void
self_v2_path (char *out, size_t len)
{
  FILE *f = fopen ("/proc/self/cgroup", "re");
  char line[4096];
  out[0] = '\0';
  if (f == NULL)
    return;
  while (fgets (line, sizeof line, f))
    if (strncmp (line, "0::", 3) == 0)
      {
        line[strcspn (line, "\n")] = '\0';
        snprintf (out, len, "%s", line + 3);
      }
  fclose (f);
}

static void
classify_v2 (struct lab_container *c)
{
  char self[4096];
  self_v2_path (self, sizeof self);
  if (strncmp (self, "/init", 5) == 0 && (self[5] == '\0' || self[5] == '/'))
    snprintf (c->cgroup_case, sizeof c->cgroup_case,
              "cgroup v2, private cgroup namespace; processes in /init (entry point), lab groups below it");
  else if (strcmp (self, "/") == 0)
    {
      snprintf (c->cgroup_case, sizeof c->cgroup_case, "cgroup v2, private cgroup namespace, processes at its root");
      if (!c->problem[0])
        snprintf (c->problem, sizeof c->problem,
                  "the container's root cgroup holds processes: start through the image's entry point "
                  "(tools/docker/entrypoint.sh moves them to /init)");
    }
  else
    {
      snprintf (c->cgroup_case, sizeof c->cgroup_case, "cgroup v2, the host's cgroup namespace (%.100s)", self);
      if (!c->problem[0])
        snprintf (c->problem, sizeof c->problem, "run with --cgroupns=private on a cgroup v2 host");
    }
}

void
lab_container_detect (struct lab_container *c)
{
  char env[64];
  memset (c, 0, sizeof *c);
  pid1_container_env (env, sizeof env);
  /* /.dockerenv alone is not enough: VM images made from Docker images keep
     it.  Docker's containers run on an overlay (or other union) root. */
  if (exists ("/.dockerenv") && root_is_overlay ())
    snprintf (c->engine, sizeof c->engine, "docker");
  else if (exists ("/run/.containerenv"))
    snprintf (c->engine, sizeof c->engine, "podman");
  else if (env[0])
    snprintf (c->engine, sizeof c->engine, "%s", env);
  else if (getenv ("LAB_CONTAINER"))
    snprintf (c->engine, sizeof c->engine, "container");
  if (!c->engine[0])
    return;
  int v2 = exists ("/sys/fs/cgroup/cgroup.controllers");
  const char *probe = v2 ? "/sys/fs/cgroup" : exists ("/sys/fs/cgroup/memory") ? "/sys/fs/cgroup/memory" : "/sys/fs/cgroup";
  c->privileged = !read_only (probe) && access (probe, W_OK) == 0;
  if (!c->privileged)
    snprintf (c->problem, sizeof c->problem, "not privileged: cgroup files are read-only; run with --privileged");
  if (v2)
    classify_v2 (c);
  else
    snprintf (c->cgroup_case, sizeof c->cgroup_case,
              "cgroup v1/hybrid: lab groups nest under the container's own cgroup of each hierarchy");
}

struct json_object *
lab_container_to_json (const struct lab_container *c)
{
  struct json_object *o = json_object_new_object ();
  json_object_object_add (o, "in_container", json_object_new_boolean (c->engine[0] != '\0'));
  if (!c->engine[0])
    return o;
  json_object_object_add (o, "engine", json_object_new_string (c->engine));
  json_object_object_add (o, "privileged", json_object_new_boolean (c->privileged));
  json_object_object_add (o, "cgroup_case", json_object_new_string (c->cgroup_case));
  if (c->problem[0])
    json_object_object_add (o, "problem", json_object_new_string (c->problem));
  return o;
}
