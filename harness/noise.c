/* noise.c - spread and outlier warnings over repeats (see noise.h). */
#include "noise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

double
lab_noise_outlier (const double *v, int n, double med)
{
  double *dev, mad, worst = -1, worst_dev = -1;

  if (n < 3)
    return -1;
  dev = malloc ((size_t) n * sizeof *dev);
  if (dev == NULL)
    return -1;
  for (int i = 0; i < n; i++)
    {
      dev[i] = fabs (v[i] - med);
      if (dev[i] > worst_dev)
        worst_dev = dev[i], worst = v[i];
    }
  qsort (dev, (size_t) n, sizeof *dev, cmp_double);
  mad = n % 2 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
  free (dev);
  /* Off by more than 10% of the median, and (MAD > 0) beyond the z-score. */
  if (worst_dev <= fabs (med) * LAB_NOISE_SPREAD_PCT / 100)
    return -1;
  return mad == 0 || 0.6745 * worst_dev / mad > LAB_NOISE_Z ? worst : -1;
}

static int
warn_stat (FILE *f, const struct lab_agg *g, enum lab_metric m)
{
  const struct lab_stat *s = &g->m[m];
  const char *name = lab_metrics[m].name;
  int k = 0;

  if (s->n < 2)
    return 0;
  if (s->spread_pct > LAB_NOISE_SPREAD_PCT)
    {
      fprintf (f, "- warning: %s n=%ld: `%s` spreads %.0f%% of its median over %d repeats (%.4g-%.4g, median %.4g): "
                  "more than %.0f%%, compare with care\n",
               g->variant, g->n, name, s->spread_pct, s->n, s->min, s->max, s->med, LAB_NOISE_SPREAD_PCT);
      k++;
    }
  if (s->outlier >= 0)
    {
      fprintf (f, "- warning: %s n=%ld: a repeat's `%s` of %.4g is an outlier (median %.4g of %d repeats)\n",
               g->variant, g->n, name, s->outlier, s->med, s->n);
      k++;
    }
  return k;
}

int
lab_noise_report (FILE *f, const struct lab_agg *agg, int n, const char *exp, enum lab_metric headline)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    if (strcmp (agg[i].experiment, exp) == 0 && agg[i].n_ok > 1)
      {
        k += warn_stat (f, &agg[i], headline);
        if (headline != LAB_M_WALL)
          k += warn_stat (f, &agg[i], LAB_M_WALL);
      }
  return k;
}
