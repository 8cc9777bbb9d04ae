/* parallel.c - parallel_for (parallel.h): a pool made for one call, taking jobs from a
 * shared atomic counter, joined before returning. No state outlives the call. */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct Pool {
    atomic_int next;
    int n;
    ParallelFn fn;
    void *user;
} Pool;

static void *work(void *arg) {
    Pool *p = arg;
    for (int i; (i = atomic_fetch_add(&p->next, 1)) < p->n;) p->fn(p->user, i);
    return NULL;
}

void parallel_for(int n, int threads, ParallelFn fn, void *user) {
    if (threads > n) threads = n;
    if (threads <= 1) {
        for (int i = 0; i < n; i++) fn(user, i);
        return;
    }
    Pool p = {0, n, fn, user};
    pthread_t *tids = malloc(sizeof *tids * (size_t)(threads - 1));
    int started = 0;
    for (int t = 0; tids && t < threads - 1; t++)
        if (!pthread_create(&tids[started], NULL, work, &p)) started++;
    work(&p); /* the calling thread takes jobs too */
    for (int t = 0; t < started; t++) pthread_join(tids[t], NULL);
    free(tids);
}
