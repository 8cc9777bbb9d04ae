/* clock.c - a monotonic clock in milliseconds, for --time and the stage timings, and the
 * calling thread's CPU time, for timings on a shared machine. */
#include <time.h>

#include "support.h"

double clock_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

double clock_thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}
