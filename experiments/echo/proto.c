/* proto.c - the work every echo variant does (see echo.h). */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "echo.h"

struct echo_stats echo_stats;

static const char http_response[] = "HTTP/1.1 200 OK\r\n"
                                    "Content-Type: text/plain\r\n"
                                    "Content-Length: 13\r\n"
                                    "\r\n"
                                    "Hello, world!";
static char http_batch[ECHO_HTTP_BATCH * (sizeof http_response - 1)];

void
echo_count (uint64_t *counter, uint64_t v)
{
  __atomic_fetch_add (counter, v, __ATOMIC_RELAXED);
}

void
echo_count_open (int delta)
{
  int64_t now = __atomic_add_fetch (&echo_stats.open, delta, __ATOMIC_RELAXED);
  int64_t max = __atomic_load_n (&echo_stats.open_max, __ATOMIC_RELAXED);
  while (now > max && !__atomic_compare_exchange_n (&echo_stats.open_max, &max, now, 1, __ATOMIC_RELAXED,
                                                    __ATOMIC_RELAXED))
    ;
  if (delta > 0)
    echo_count (&echo_stats.accepted, 1);
  else
    echo_count (&echo_stats.closed, 1);
}

size_t
echo_proto_feed (enum echo_proto p, struct echo_proto_state *st, const char *buf, size_t len)
{
  static const char end[4] = { '\r', '\n', '\r', '\n' };
  size_t k = 0;

  echo_count (&echo_stats.bytes_in, len);
  if (p == ECHO_PROTO_ECHO)
    {
      echo_count (&echo_stats.requests, 1); /* one read answered */
      return len;
    }
  for (size_t i = 0; i < len; i++)
    {
      if (buf[i] == end[st->match])
        st->match++;
      else
        st->match = buf[i] == '\r';
      if (st->match == 4)
        {
          k++;
          st->match = 0;
        }
    }
  echo_count (&echo_stats.requests, k);
  return k;
}

const char *
echo_http_responses (size_t k, size_t *len)
{
  size_t one = sizeof http_response - 1;
  if (http_batch[0] == '\0')
    for (size_t i = 0; i < ECHO_HTTP_BATCH; i++)
      memcpy (http_batch + i * one, http_response, one);
  *len = k * one;
  return http_batch;
}

int
echo_write_all (int fd, const char *buf, size_t len, echo_send_op op)
{
  while (len > 0)
    {
      ssize_t w = op (fd, buf, len, 0);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return -1;
      echo_count (&echo_stats.bytes_out, (uint64_t) w);
      buf += w;
      len -= (size_t) w;
    }
  return 0;
}
