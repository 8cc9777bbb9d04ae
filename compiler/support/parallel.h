/* parallel.h - independent jobs on a few threads: how the compiles of an autotuned
 * kernel's configs run at once. The compiler is re-entrant (each compile owns its arena,
 * diagnostics, LLVM context and target machine), so jobs that share nothing but
 * read-only input need no lock; each writes only its own result. */
#ifndef NEREID_PARALLEL_H
#define NEREID_PARALLEL_H

/* Runs fn(user, i) for every i in 0..n-1 on up to `threads` threads, the calling thread
 * among them, and returns when all are done. Each thread takes the next job not yet
 * taken, so the order in which jobs start is 0, 1, ..., but not the order they end.
 * threads <= 1 or n <= 1: every job in order on the calling thread. A thread that cannot
 * be created is not an error: its share runs on the others. */
typedef void (*ParallelFn)(void *user, int job);
void parallel_for(int n, int threads, ParallelFn fn, void *user);

#endif
