/* clock.c - a monotonic clock in milliseconds, for --time and the stage timings. */
#include <time.h>

#include "support.h"

double clock_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
