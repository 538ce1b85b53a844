/*
 * caps.c - capability names, the default set and the drop (see caps.h).
 * Raw prctl/capset, no libcap: the clone of the harness only calls syscalls.
 */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "caps.h"
#include "utils.h"

static const char *const names[LAB_CAP_MAX] = {
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
  "CAP_SETGID", "CAP_SETUID", "CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE",
  "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
  "CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT",
  "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE", "CAP_SYS_RESOURCE", "CAP_SYS_TIME",
  "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL",
  "CAP_SETFCAP", "CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM",
  "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF", "CAP_CHECKPOINT_RESTORE",
};

int
lab_cap_from_name (const char *name)
{
  for (int i = 0; i < LAB_CAP_MAX; i++)
    if (strcmp (names[i], name) == 0)
      return i;
  return -1;
}

const char *
lab_cap_name (int cap)
{
  return cap >= 0 && cap < LAB_CAP_MAX ? names[cap] : NULL;
}

uint64_t
lab_caps_default (void)
{
  static const int docker[] = { CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FSETID, CAP_FOWNER, CAP_NET_RAW,
                                CAP_SETGID, CAP_SETUID, CAP_SETFCAP, CAP_SETPCAP,
                                CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT, CAP_KILL, CAP_AUDIT_WRITE };
  uint64_t m = 0;
  for (size_t i = 0; i < ARRAY_SIZE (docker); i++)
    m |= 1ULL << docker[i];
  return m;
}

uint64_t
lab_caps_all (void)
{
  return (1ULL << LAB_CAP_MAX) - 1;
}

uint64_t
lab_caps_effective (void)
{
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  if (syscall (SYS_capget, &h, d) < 0)
    return 0;
  return (uint64_t) d[1].effective << 32 | d[0].effective;
}

int
lab_caps_drop (uint64_t keep, lab_error_t *err)
{
  /* PR_CAPBSET_READ fails with EINVAL past the kernel's last capability. */
  for (int c = 0; c < 64 && prctl (PR_CAPBSET_READ, c, 0, 0, 0) >= 0; c++)
    if (!(keep >> c & 1) && prctl (PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
      return lab_error (err, errno, "dropping %s from the bounding set",
                        lab_cap_name (c) ? lab_cap_name (c) : "a capability");
  if (prctl (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
    return lab_error (err, errno, "clearing the ambient capabilities");
  struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
  struct __user_cap_data_struct d[2];
  if (syscall (SYS_capget, &h, d) < 0)
    return lab_error (err, errno, "capget");
  uint64_t perm = ((uint64_t) d[1].permitted << 32 | d[0].permitted) & keep;
  for (int i = 0; i < 2; i++)
    d[i].permitted = d[i].effective = d[i].inheritable = (uint32_t) (perm >> (32 * i));
  if (syscall (SYS_capset, &h, d) < 0)
    return lab_error (err, errno, "setting the capability sets (capset)");
  return 0;
}
