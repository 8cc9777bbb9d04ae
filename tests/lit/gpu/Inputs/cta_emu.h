/* cta_emu.h - runs a kernel's LLVM IR, made host IR by to-host.sh and compiled by llc,
 * as a CUDA thread block would: one host thread per GPU thread, the NVVM intrinsics the
 * kernels use (thread and block ids, warp shuffles, bar.sync) implemented with barriers,
 * shared memory a host array. A test of the GPU back end's cross-thread code (scans,
 * sorts, histograms: shuffles and shared memory) without a GPU. Only for kernels without
 * inline PTX (masked loads and stores, tensor cores), which no host can run. */
#ifndef CTA_EMU_H
#define CTA_EMU_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

unsigned char global_smem[1 << 18] __attribute__((aligned(1024)));

/* The host programs' checks: EXPECT prints the first 10 failures, `bad` counts them all. */
static int bad;
#define EXPECT(cond, ...)            \
    do {                             \
        if (!(cond) && bad++ < 10) { \
            printf(__VA_ARGS__);     \
            printf("\n");            \
        }                            \
    } while (0)

static int emu_threads, emu_ctaid[3], emu_nctaid[3];
static __thread int emu_tid;
static pthread_barrier_t emu_all, emu_warp[32];
static int32_t emu_slot[1024];

int32_t nv_read_ptx_sreg_tid_x(void) { return emu_tid; }
int32_t nv_read_ptx_sreg_ctaid_x(void) { return emu_ctaid[0]; }
int32_t nv_read_ptx_sreg_ctaid_y(void) { return emu_ctaid[1]; }
int32_t nv_read_ptx_sreg_ctaid_z(void) { return emu_ctaid[2]; }
int32_t nv_read_ptx_sreg_nctaid_x(void) { return emu_nctaid[0]; }
int32_t nv_read_ptx_sreg_nctaid_y(void) { return emu_nctaid[1]; }
int32_t nv_read_ptx_sreg_nctaid_z(void) { return emu_nctaid[2]; }
void nv_barrier0(void) { pthread_barrier_wait(&emu_all); }

/* every lane of the warp publishes its value, then reads its source lane's */
static int32_t shfl(int32_t v, int src_lane) {
    int w = emu_tid / 32;
    emu_slot[emu_tid] = v;
    pthread_barrier_wait(&emu_warp[w]);
    int32_t r = emu_slot[w * 32 + (src_lane & 31)];
    pthread_barrier_wait(&emu_warp[w]);
    return r;
}
int32_t nv_shfl_sync_idx_i32(int32_t mask, int32_t v, int32_t lane, int32_t clamp) {
    (void)mask, (void)clamp;
    return shfl(v, lane);
}
int32_t nv_shfl_sync_bfly_i32(int32_t mask, int32_t v, int32_t m, int32_t clamp) {
    (void)mask, (void)clamp;
    return shfl(v, (emu_tid % 32) ^ m);
}

typedef struct {
    void (*call)(void *);
    void *args;
    int tid;
} EmuThread;

static void *emu_main(void *p) {
    EmuThread *t = p;
    emu_tid = t->tid;
    t->call(t->args);
    return NULL;
}

/* Runs call(args) (which calls the kernel) in `threads` threads (a multiple of 32) for
 * every block of the grid, one block after another. */
static void emu_launch(int gx, int gy, int gz, int threads, void (*call)(void *), void *args) {
    emu_threads = threads;
    emu_nctaid[0] = gx, emu_nctaid[1] = gy, emu_nctaid[2] = gz;
    pthread_barrier_init(&emu_all, NULL, (unsigned)threads);
    for (int w = 0; w < threads / 32; w++) pthread_barrier_init(&emu_warp[w], NULL, 32);
    pthread_t th[1024];
    EmuThread et[1024];
    for (int z = 0; z < gz; z++)
        for (int y = 0; y < gy; y++)
            for (int x = 0; x < gx; x++) {
                emu_ctaid[0] = x, emu_ctaid[1] = y, emu_ctaid[2] = z;
                memset(global_smem, 0xa5, sizeof global_smem); /* stale data a read must not see */
                for (int i = 0; i < threads; i++) {
                    et[i] = (EmuThread){call, args, i};
                    if (pthread_create(&th[i], NULL, emu_main, &et[i])) {
                        fprintf(stderr, "cta_emu: cannot start thread %d\n", i);
                        exit(2);
                    }
                }
                for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
            }
    pthread_barrier_destroy(&emu_all);
    for (int w = 0; w < threads / 32; w++) pthread_barrier_destroy(&emu_warp[w]);
}

#endif
