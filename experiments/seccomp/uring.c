/* uring.c - the same openat + read through io_uring, with or without
   IORING_REGISTER_RESTRICTIONS.  Debian's liburing 2.3 declares
   io_uring_register_restrictions() and io_uring_enable_rings() in liburing.h but
   does not export them from liburing.so (its symbol map lacks them), so those two
   steps use the io_uring_register(2) system call directly. */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "seccomp.h"

/* Submits one prepared SQE and returns its CQE's res (or -errno of the submit). */
static int
run_one (struct io_uring *ring)
{
  struct io_uring_cqe *cqe;
  int ret = io_uring_submit (ring);

  if (ret < 0)
    return ret;
  ret = io_uring_wait_cqe (ring, &cqe);
  if (ret < 0)
    return ret;
  ret = cqe->res;
  io_uring_cqe_seen (ring, cqe);
  return ret;
}

static int
uring_openat (struct io_uring *ring, const char *file)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (ring);
  io_uring_prep_openat (sqe, AT_FDCWD, file, O_RDONLY, 0); /* the same flags as the control */
  return run_one (ring);
}

static int
uring_read (struct io_uring *ring, int fd, char *buf, unsigned len)
{
  struct io_uring_sqe *sqe = io_uring_get_sqe (ring);
  io_uring_prep_read (sqe, fd, buf, len, 0);
  return run_one (ring);
}

/* Creates the ring disabled, allows only READ and NOP, enables it. */
static int
restrict_ring (struct io_uring *ring)
{
  struct io_uring_restriction res[2];
  int ret;

  memset (res, 0, sizeof res);
  res[0].opcode = IORING_RESTRICTION_SQE_OP;
  res[0].sqe_op = IORING_OP_READ;
  res[1].opcode = IORING_RESTRICTION_SQE_OP;
  res[1].sqe_op = IORING_OP_NOP;
  ret = (int) syscall (__NR_io_uring_register, ring->ring_fd, IORING_REGISTER_RESTRICTIONS, res, 2);
  if (ret < 0)
    return -errno;
  ret = (int) syscall (__NR_io_uring_register, ring->ring_fd, IORING_REGISTER_ENABLE_RINGS, NULL, 0);
  return ret < 0 ? -errno : 0;
}

int
seccomp_probe_uring (const struct wl_args *a, struct wl_report *r, const char *file, int restricted)
{
  struct io_uring ring;
  char buf[256];
  int ret, open_res = 0, read_res = -EBADF, fd;
  long i, ok = 0;

  ret = io_uring_queue_init (8, &ring, restricted ? IORING_SETUP_R_DISABLED : 0);
  wl_report_int (r, "io_uring_setup_res", ret);
  if (ret < 0)
    {
      wl_report_str (r, "io_uring_setup_error", strerror (-ret));
      return -1;
    }
  wl_report_int (r, "io_uring_restricted", restricted);
  if (restricted)
    {
      ret = restrict_ring (&ring);
      wl_report_int (r, "io_uring_register_restrictions_res", ret);
      if (ret < 0)
        {
          wl_report_str (r, "io_uring_register_restrictions_error", strerror (-ret));
          io_uring_queue_exit (&ring);
          return -1;
        }
    }
  for (i = 0; i < a->n; i++)
    {
      int res = uring_openat (&ring, file);
      if (i == 0 || res < 0)
        open_res = res;
      if (res < 0)
        continue;
      ok++;
      read_res = uring_read (&ring, res, buf, sizeof buf);
      close (res);
    }
  wl_report_int (r, "io_uring_openat_res", open_res);
  wl_report_int (r, "io_uring_openat_errno", open_res < 0 ? -open_res : 0);
  wl_report_str (r, "io_uring_openat_error", open_res < 0 ? strerror (-open_res) : "");
  wl_report_int (r, "io_uring_openat_ok", ok);
  if (ok == 0)
    {
      /* Show that the ring still works for what it may do: read a file opened with
         O_CLOEXEC (which deny-openat lets through). */
      fd = open (file, O_RDONLY | O_CLOEXEC);
      if (fd >= 0)
        {
          read_res = uring_read (&ring, fd, buf, sizeof buf);
          close (fd);
        }
    }
  wl_report_int (r, "io_uring_read_res", read_res);
  io_uring_queue_exit (&ring);
  return 0;
}
