/* plot-hooks.c - the table of experiments' own plot functions (see plot-hooks.h). */
#include "plot-hooks.h"

#include <stddef.h>

const struct lab_plot_hook lab_plot_hooks[] = {
  { "udp", plot_udp },
  { "wakeup", plot_wakeup },
  { "blocking", plot_blocking },
  { "memory", plot_memory },     /* plots-scale.c: memory over time */
  { "pressure", plot_pressure }, /* plots-scale.c */
  { "echo", plot_echo },         /* plots-echo.c */
  { NULL, NULL },
};
