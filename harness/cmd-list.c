/* cmd-list.c - `lab list`: the experiments, their variants, scales and claims. */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "catalog.h"
#include "commands.h"
#include "peers.h"

static void
print_scale (const char *label, const long *s)
{
  printf ("    %-6s", label);
  for (; *s; s++)
    printf (" %ld", *s);
  printf ("\n");
}

int
cmd_list (int argc, char **argv)
{
  static const struct option opts[] = { { "help", no_argument, 0, 'h' }, { 0, 0, 0, 0 } };
  int c;

  while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1)
    {
      if (c == 'h')
        {
          printf ("usage: lab list\n\nLists the experiments, their variants, the scales `quick` and `full`\n"
                  "(n = what the experiment counts), and the claims of shared/CLAIMS.md they re-measure.\n");
          return 0;
        }
      return 2;
    }
  if (optind < argc)
    {
      fprintf (stderr, "lab list: unexpected argument `%s`\n", argv[optind]);
      return 2;
    }
  for (const struct lab_experiment *e = lab_experiments; e->name; e++)
    {
      char path[4096];
      snprintf (path, sizeof (path), "%s/wl-%s", lab_bin_dir (), e->name);
      printf ("%s%s\n  %s\n  claims: %s; n = %s\n  variants:", e->name,
              access (path, X_OK) == 0 ? "" : "  (workload not built)", e->summary, e->claims, e->n_means);
      for (int i = 0; e->variants[i]; i++)
        printf (" %s", e->variants[i]);
      printf ("\n");
      for (int i = 0; e->variants[i]; i++)
        {
          char why[256];
          if (lab_peer_unavailable (e->name, e->variants[i], why, sizeof (why)))
            printf ("  unavailable: %s\n", why);
        }
      print_scale ("quick:", e->quick);
      print_scale ("full:", e->full);
    }
  return 0;
}
