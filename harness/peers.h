/*
 * peers.h - reference peers as variants: runtimes the lab did not write
 * (Go's goroutines, Boost.Context's fcontext), built as their own workload
 * binaries `wl-<experiment>-<variant>` by the Makefile when their toolchain
 * is installed, and run by the harness like any variant.  A peer whose binary
 * is missing is `unavailable`: `lab list` says which package brings it, and
 * its points end `skipped` with that reason; the lab itself always builds.
 */
#ifndef LAB_PEERS_H
#define LAB_PEERS_H

#include <stddef.h>

/* The workload binary for (experiment, variant): bin/wl-<exp> for the lab's
   own variants, bin/wl-<exp>-<variant> for a peer. */
void lab_variant_binary (const char *exp, const char *variant, char *path, size_t len);
/* 1 when `variant` is a peer whose binary is not built here; `why` says what
   to install.  0 for every other variant. */
int lab_peer_unavailable (const char *exp, const char *variant, char *why, size_t len);

#endif
