/* launch_cpu.h - a kernel on the CPU device (the IR interpreter). */
#ifndef NEREID_LAUNCH_CPU_H
#define NEREID_LAUNCH_CPU_H

#include "objects.h"

/* Run k over the grid with np checked-count arguments, each checked and converted. */
nr_status cpu_launch_kernel(nr_kernel *k, const unsigned grid[3], const nr_arg *args, int np,
                            bool cooperative);

#endif
