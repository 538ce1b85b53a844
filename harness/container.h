/*
 * container.h - is the lab running inside a container, and can it sandbox
 * points there?  `lab doctor` prints it; meta.json records it.
 */
#ifndef LAB_CONTAINER_H
#define LAB_CONTAINER_H

#include <json-c/json.h>

struct lab_container
{
  char engine[32];   /* "docker", "podman", the `container=` of PID 1, or "" (not in one) */
  int privileged;    /* the cgroup files the lab writes are writable */
  char cgroup_case[160]; /* how the lab nests its cgroups here */
  char problem[256]; /* what stops the sandbox here and how to fix it, or "" */
};

/* Fills c from /.dockerenv, /run/.containerenv, PID 1's environment, the
   cgroup mount and /proc/self/cgroup.  Never fails: unknown stays "". */
void lab_container_detect (struct lab_container *c);
struct json_object *lab_container_to_json (const struct lab_container *c);

#endif
