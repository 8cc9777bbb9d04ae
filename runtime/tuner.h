/* tuner.h - the autotuner's rules (nereid.h's nr_tuner_*), shared by the C API's tuned
 * kernels (autotune.c) and, through the API, the Python package. */
#ifndef NEREID_TUNER_H
#define NEREID_TUNER_H

#include "objects.h"

enum { TUNER_MAX_CONFIGS = 1024 };

#endif
