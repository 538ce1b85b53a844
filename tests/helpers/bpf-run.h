/*
 * bpf-run.h - a classic-BPF interpreter over struct seccomp_data, what the
 * kernel runs for a seccomp filter; for tests/seccomp-shrink.c and the
 * seccomp fuzz target (tests/fuzz/seccomp.c), which compare libseccomp's
 * program with the shrunk one (harness/seccomp-shrink.c) input by input.
 */
#ifndef LAB_BPF_RUN_H
#define LAB_BPF_RUN_H

#include <stdint.h>
#include <string.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

/* The program's verdict for `d`; *bad is set (and 0 returned) on an
   instruction this interpreter does not know, a load outside seccomp_data,
   or a run off the program's end. */
static inline uint32_t
lab_bpf_run (const struct sock_filter *p, uint32_t n, const struct seccomp_data *d, int *bad)
{
  uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };
  const unsigned char *data = (const unsigned char *) d;
  for (uint32_t pc = 0; pc < n; pc++)
    {
      const struct sock_filter *f = &p[pc];
      uint32_t src = BPF_SRC (f->code) == BPF_X ? x : f->k;
      switch (BPF_CLASS (f->code))
        {
        case BPF_LD:
          if (f->code == (BPF_LD | BPF_W | BPF_ABS) && f->k % 4 == 0 && f->k + 4 <= sizeof *d)
            memcpy (&a, data + f->k, 4);
          else if (f->code == (BPF_LD | BPF_IMM))
            a = f->k;
          else if (f->code == (BPF_LD | BPF_MEM) && f->k < BPF_MEMWORDS)
            a = mem[f->k];
          else if (f->code == (BPF_LD | BPF_W | BPF_LEN))
            a = sizeof *d;
          else
            goto bad;
          break;
        case BPF_LDX:
          if (f->code == (BPF_LDX | BPF_IMM))
            x = f->k;
          else if (f->code == (BPF_LDX | BPF_MEM) && f->k < BPF_MEMWORDS)
            x = mem[f->k];
          else if (f->code == (BPF_LDX | BPF_W | BPF_LEN))
            x = sizeof *d;
          else
            goto bad;
          break;
        case BPF_ST:
        case BPF_STX:
          if (f->k >= BPF_MEMWORDS)
            goto bad;
          mem[f->k] = BPF_CLASS (f->code) == BPF_ST ? a : x;
          break;
        case BPF_ALU:
          switch (BPF_OP (f->code))
            {
            case BPF_ADD: a += src; break;
            case BPF_SUB: a -= src; break;
            case BPF_MUL: a *= src; break;
            case BPF_DIV: a = src ? a / src : 0; break;
            case BPF_MOD: a = src ? a % src : 0; break;
            case BPF_OR: a |= src; break;
            case BPF_AND: a &= src; break;
            case BPF_XOR: a ^= src; break;
            case BPF_LSH: a = src < 32 ? a << src : 0; break;
            case BPF_RSH: a = src < 32 ? a >> src : 0; break;
            case BPF_NEG: a = -a; break;
            default: goto bad;
            }
          break;
        case BPF_JMP:
          if (BPF_OP (f->code) == BPF_JA)
            pc += f->k;
          else
            {
              int c;
              switch (BPF_OP (f->code))
                {
                case BPF_JEQ: c = a == src; break;
                case BPF_JGT: c = a > src; break;
                case BPF_JGE: c = a >= src; break;
                case BPF_JSET: c = (a & src) != 0; break;
                default: goto bad;
                }
              pc += c ? f->jt : f->jf;
            }
          break;
        case BPF_RET:
          return BPF_RVAL (f->code) == BPF_A ? a : f->k;
        case BPF_MISC:
          if (BPF_MISCOP (f->code) == BPF_TAX)
            x = a;
          else
            a = x;
          break;
        }
    }
bad:
  *bad = 1;
  return 0;
}

#endif
