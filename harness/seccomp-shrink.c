/*
 * seccomp-shrink.c - runs of `jeq` rewritten as ranges (see seccomp-shrink.h).
 *
 * The program is first copied into `struct ins` records whose jumps hold
 * absolute targets (indices of the old program; a rewritten run's internal
 * jumps hold indices of the new one), then the new program is laid out and
 * every offset recomputed from the old->new index map.
 */
#include <stdlib.h>
#include <string.h>

#include "seccomp-shrink.h"

#define JEQ_K (BPF_JMP | BPF_JEQ | BPF_K)
#define RET_K (BPF_RET | BPF_K)
#define NEW(i) (-(int64_t) (i) - 1) /* a target given as a new index */

struct ins
{
  struct sock_filter f;
  int64_t t[2]; /* jt/jf targets (JA: t[0]): old index, or NEW(new index) */
};

struct member
{
  uint32_t k, v, target; /* `jeq #k` whose true branch is `ret #v` at old index target */
};

static int
is_jump (uint16_t code)
{
  return BPF_CLASS (code) == BPF_JMP;
}

static int
is_ja (uint16_t code)
{
  return BPF_CLASS (code) == BPF_JMP && BPF_OP (code) == BPF_JA;
}

static int
by_v_k (const void *a, const void *b)
{
  const struct member *x = a, *y = b;
  if (x->v != y->v)
    return x->v < y->v ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

static int
by_k (const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *) a, y = *(const uint32_t *) b;
  return x < y ? -1 : x > y;
}

/* `jeq #K` with a false branch to the next instruction: a run member. */
static int
member (const struct sock_filter *f)
{
  return f->code == JEQ_K && f->jf == 0 && f->jt > 0;
}

static void
emit (struct ins *out, uint32_t *n_out, uint16_t code, uint32_t k, int64_t jt, int64_t jf)
{
  struct ins *o = &out[(*n_out)++];
  o->f = (struct sock_filter){ code, 0, 0, k };
  o->t[0] = jt;
  o->t[1] = jf;
}

/* Lays out the run old[s..e) as its rewrite at out[*n_out...]; 0 when the
   rewrite would not be shorter (nothing emitted). */
static int
rewrite_run (const struct sock_filter *old, uint32_t s, uint32_t e, struct ins *out, uint32_t *n_out,
             struct member *m, uint32_t *ks)
{
  uint32_t n_m = 0, n_other = 0, len = 0;

  for (uint32_t i = s; i < e; i++)
    ks[i - s] = old[i].k;
  qsort (ks, e - s, sizeof *ks, by_k);
  for (uint32_t i = 1; i < e - s; i++)
    if (ks[i] == ks[i - 1])
      return 0; /* the same K twice: the first would win, keep the order */
  for (uint32_t i = s; i < e; i++)
    {
      uint32_t t = i + 1 + old[i].jt;
      if (old[t].code == RET_K)
        m[n_m++] = (struct member){ old[i].k, old[t].k, t };
      else
        n_other++;
    }
  qsort (m, n_m, sizeof *m, by_v_k);
  /* Count first: only a shorter run is rewritten. */
  len = n_other;
  for (uint32_t a = 0; a < n_m;)
    {
      uint32_t b = a + 1;
      while (b < n_m && m[b].v == m[a].v && m[b].k == m[b - 1].k + 1)
        b++;
      len += b - a >= 2 ? 2 : 1;
      a = b;
    }
  if (len >= e - s)
    return 0;
  /* The others first, each as it was (K unique: order is free). */
  for (uint32_t i = s; i < e; i++)
    if (old[i + 1 + old[i].jt].code != RET_K)
      emit (out, n_out, JEQ_K, old[i].k, i + 1 + old[i].jt, NEW (*n_out + 1));
  for (uint32_t a = 0; a < n_m;)
    {
      uint32_t target = m[a].target, b = a;
      /* The nearest `ret #v` for the whole group. */
      for (uint32_t c = a; c < n_m && m[c].v == m[a].v; c++)
        if (m[c].target < target)
          target = m[c].target;
      while (b < n_m && m[b].v == m[a].v)
        {
          uint32_t c = b + 1;
          while (c < n_m && m[c].v == m[b].v && m[c].k == m[c - 1].k + 1)
            c++;
          if (c - b == 1)
            emit (out, n_out, JEQ_K, m[b].k, target, NEW (*n_out + 1));
          else if (c - b == 2)
            {
              emit (out, n_out, JEQ_K, m[b].k, target, NEW (*n_out + 1));
              emit (out, n_out, JEQ_K, m[b + 1].k, target, NEW (*n_out + 1));
            }
          else
            {
              /* k >= lo ? (k > hi ? next : ret) : next */
              emit (out, n_out, BPF_JMP | BPF_JGE | BPF_K, m[b].k, NEW (*n_out + 1), NEW (*n_out + 2));
              emit (out, n_out, BPF_JMP | BPF_JGT | BPF_K, m[c - 1].k, NEW (*n_out + 1), target);
            }
          b = c;
        }
      a = b;
    }
  return 1;
}

/* Offsets from absolute targets; -1 when one does not fit. */
static int
relocate (const struct ins *in, uint32_t n, const uint32_t *map, struct sock_filter *outp)
{
  for (uint32_t p = 0; p < n; p++)
    {
      outp[p] = in[p].f;
      if (!is_jump (in[p].f.code))
        continue;
      int64_t to[2];
      for (int j = 0; j < (is_ja (in[p].f.code) ? 1 : 2); j++)
        to[j] = in[p].t[j] < 0 ? -in[p].t[j] - 1 : map[in[p].t[j]];
      if (is_ja (in[p].f.code))
        {
          if (to[0] <= (int64_t) p || to[0] >= (int64_t) n)
            return -1;
          outp[p].k = (uint32_t) (to[0] - p - 1);
          continue;
        }
      for (int j = 0; j < 2; j++)
        if (to[j] <= (int64_t) p || to[j] - p - 1 > 255 || to[j] >= (int64_t) n)
          return -1;
      outp[p].jt = (uint8_t) (to[0] - p - 1);
      outp[p].jf = (uint8_t) (to[1] - p - 1);
    }
  return 0;
}

uint32_t
lab_bpf_shrink (struct sock_filter *insns, uint32_t *n)
{
  uint32_t n0 = *n, n_out = 0, removed = 0;
  uint8_t *entry = calloc (n0 + 1, 1);
  uint32_t *map = malloc ((n0 + 1) * sizeof *map), *ks = malloc (n0 * sizeof *ks);
  struct ins *out = malloc (n0 * sizeof *out);
  struct member *m = malloc (n0 * sizeof *m);
  struct sock_filter *res = malloc (n0 * sizeof *res);

  if (n0 < 4 || !entry || !map || !ks || !out || !m || !res)
    goto done;
  /* Where jumps land (a fall-through to the next instruction aside), and
     that every jump lands inside the program. */
  for (uint32_t i = 0; i < n0; i++)
    {
      const struct sock_filter *f = &insns[i];
      if (!is_jump (f->code))
        continue;
      uint64_t to[2] = { (uint64_t) i + 1 + (is_ja (f->code) ? f->k : f->jt), (uint64_t) i + 1 + f->jf };
      for (int j = 0; j < (is_ja (f->code) ? 1 : 2); j++)
        {
          if (to[j] >= n0)
            goto done;
          if (to[j] > (uint64_t) i + 1)
            entry[to[j]] = 1;
        }
    }
  for (uint32_t i = 0; i < n0;)
    {
      uint32_t e = i + 1;
      if (member (&insns[i]))
        while (e < n0 && member (&insns[e]) && !entry[e])
          e++;
      map[i] = n_out;
      if (e - i >= 3 && rewrite_run (insns, i, e, out, &n_out, m, ks))
        {
          for (uint32_t j = i + 1; j < e; j++)
            map[j] = UINT32_MAX; /* never a target: no jump enters a run inside */
          i = e;
          continue;
        }
      for (uint32_t j = i; j < e; j++)
        {
          map[j] = n_out;
          out[n_out].f = insns[j];
          out[n_out].t[0] = j + 1 + (is_ja (insns[j].code) ? insns[j].k : insns[j].jt);
          out[n_out].t[1] = j + 1 + insns[j].jf;
          n_out++;
        }
      i = e;
    }
  map[n0] = n_out;
  if (n_out < n0 && relocate (out, n_out, map, res) == 0)
    {
      memcpy (insns, res, n_out * sizeof *res);
      removed = n0 - n_out;
      *n = n_out;
    }
done:
  free (entry), free (map), free (ks), free (out), free (m), free (res);
  return removed;
}
