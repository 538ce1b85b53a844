/* peers.c - see peers.h.  Adding a peer: its sources under
   experiments/<exp>/<variant>/, a Makefile rule for wl-<exp>-<variant>, the
   variant in the catalog, and one row here. */
#include "peers.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

struct lab_peer
{
  const char *variant;
  const char *what;    /* the toolchain or library */
  const char *package; /* the Debian package that brings it */
};

static const struct lab_peer peers[] = {
  { "go", "the Go toolchain", "golang-go" },
  { "fcontext", "Boost.Context (and g++)", "libboost-context-dev g++" },
};

static const struct lab_peer *
find (const char *variant)
{
  for (size_t i = 0; i < sizeof peers / sizeof peers[0]; i++)
    if (strcmp (peers[i].variant, variant) == 0)
      return &peers[i];
  return NULL;
}

void
lab_variant_binary (const char *exp, const char *variant, char *path, size_t len)
{
  if (find (variant))
    snprintf (path, len, "%s/wl-%s-%s", lab_bin_dir (), exp, variant);
  else
    snprintf (path, len, "%s/wl-%s", lab_bin_dir (), exp);
}

int
lab_peer_unavailable (const char *exp, const char *variant, char *why, size_t len)
{
  const struct lab_peer *p = find (variant);
  char path[4096];
  if (p == NULL)
    return 0;
  lab_variant_binary (exp, variant, path, sizeof path);
  if (access (path, X_OK) == 0)
    return 0;
  snprintf (why, len, "peer `%s` not built: %s is missing (apt-get install %s, then make)", variant, p->what,
            p->package);
  return 1;
}
