/*
 * claims.h - verdicts on the published claims (shared/CLAIMS.md) from a run's
 * aggregates.  report.md and report.html print the same verdicts.
 *
 * A claim is one entry of lab_claims[] (claims.c): its id, the claim as
 * published, and a judge that writes what this run measured to `out`
 * (markdown inline markup: **bold**, `code`) and returns the verdict.
 * Adding a claim: a judge `enum lab_verdict claim_cN (const struct lab_agg *,
 * int, FILE *)` in harness/claims-<experiment>.c, its prototype below, one
 * line in lab_claims[].  Verdicts are computed, never written by hand:
 * LAB_V_HOLDS / LAB_V_FAILS when the difference is beyond the repeats' spread,
 * LAB_V_NOISE when the spreads overlap, LAB_V_NOT_TESTED when this run lacks
 * the points (the text says why and what to run).
 */
#ifndef LAB_CLAIMS_H
#define LAB_CLAIMS_H

#include <stdio.h>

#include "aggregate.h"

enum lab_verdict
{
  LAB_V_HOLDS,
  LAB_V_FAILS,
  LAB_V_NOISE,
  LAB_V_NOT_TESTED,
};

struct lab_claim
{
  const char *id;        /* "C1" */
  const char *published; /* the claim as published, short */
  enum lab_verdict (*judge) (const struct lab_agg *agg, int n, FILE *out);
};

extern const struct lab_claim lab_claims[]; /* ends with { NULL, NULL, NULL } */

/* Judges `c` on `agg`: its verdict in *v and its text (inline markdown) as a
   malloc'd string, or NULL when out of memory (*v is then LAB_V_NOT_TESTED). */
char *lab_claim_text (const struct lab_claim *c, const struct lab_agg *agg, int n, enum lab_verdict *v);

/* "holds", "fails", "within noise", "not tested here". */
const char *lab_verdict_name (enum lab_verdict v);

/* Compares a (lower is better, e.g. a time) against b by their spreads:
   LAB_V_HOLDS when a's max < b's min, LAB_V_FAILS when a's min > b's max,
   LAB_V_NOISE when they overlap or either side has fewer than 2 repeats (a
   single run has no spread), LAB_V_NOT_TESTED when either is missing. */
enum lab_verdict lab_verdict_lower (const struct lab_stat *a, const struct lab_stat *b);
/* Why lab_verdict_lower said LAB_V_NOISE, as a phrase. */
const char *lab_verdict_why_noise (const struct lab_stat *a, const struct lab_stat *b);

/* Formats bytes as "9.6 KiB" ("-" when b < 0). */
void lab_human_bytes (char *buf, size_t len, double b);
/* "<variant> was not run at n=N" or "<variant> ended `status` at n=N (detail)". */
void lab_claim_why_not (FILE *f, const struct lab_agg *g, const char *variant, long n);

/* The judges (claims-<experiment>.c). */
enum lab_verdict lab_claim_c1 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c2 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c3 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c12 (const struct lab_agg *agg, int n, FILE *out);
/* claims-io.c */
enum lab_verdict lab_claim_c4 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c6 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c10 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c11 (const struct lab_agg *agg, int n, FILE *out);
/* claims-echo.c */
enum lab_verdict lab_claim_c5 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c7 (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c8 (const struct lab_agg *agg, int n, FILE *out);
/* C1 and C2 with the `go` peer's figures of this run beside them (claims-peers.c). */
enum lab_verdict lab_claim_c1_with_peers (const struct lab_agg *agg, int n, FILE *out);
enum lab_verdict lab_claim_c2_with_peers (const struct lab_agg *agg, int n, FILE *out);

#endif
