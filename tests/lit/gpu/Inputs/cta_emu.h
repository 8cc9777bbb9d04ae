/* cta_emu.h - runs a kernel's LLVM IR, made host IR by to-host.sh and compiled by llc,
 * as a CUDA thread block would: one host thread per GPU thread, the NVVM intrinsics the
 * kernels use (thread and block ids, warp shuffles, bar.sync) implemented with barriers,
 * shared memory a host array. A test of the GPU back end's cross-thread code (scans,
 * sorts, histograms, layout conversions: shuffles, shared memory, ldmatrix) without a
 * GPU. Only for kernels without other inline PTX (masked loads and stores, tensor cores),
 * which no host can run. */
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

/* ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 (to-host.sh calls it): lane l gives the
 * shared-memory address (32 bits: the host address truncated; offsets from global_smem
 * survive) of row l % 8 of matrix l / 8; it gets from each matrix m the 32 bits at row
 * l / 4, bytes 4 (l % 4) .. +3, or with trans the 16-bit elements (2 (l % 4), l / 4) and
 * (2 (l % 4) + 1, l / 4) of the matrix read as rows of eight. A matrix whose eight rows
 * are not in eight different 16-byte bank groups (bank conflicts) is counted. */
static int emu_ldmatrix_conflicts; /* matrices whose 8 rows share a bank (lane 0 counts) */
void emu_ldmatrix(int32_t addr, int32_t mats, int32_t trans, int32_t *out) {
    int w = emu_tid / 32, l = emu_tid % 32;
    uint32_t base = (uint32_t)(uintptr_t)global_smem;
    emu_slot[emu_tid] = addr;
    pthread_barrier_wait(&emu_warp[w]);
    for (int m = 0; !l && m < mats; m++) {
        unsigned seen = 0;
        for (int r = 0; r < 8; r++)
            seen |= 1u << (((uint32_t)emu_slot[w * 32 + m * 8 + r] >> 4) & 7);
        if (seen != 0xff) __atomic_add_fetch(&emu_ldmatrix_conflicts, 1, __ATOMIC_RELAXED);
    }
    for (int m = 0; m < mats; m++) {
        if (!trans) {
            uint32_t row = (uint32_t)emu_slot[w * 32 + m * 8 + l / 4] - base;
            memcpy(&out[m], global_smem + row + 4 * (l % 4), 4);
            continue;
        }
        uint16_t h[2];
        for (int k = 0; k < 2; k++) {
            uint32_t row = (uint32_t)emu_slot[w * 32 + m * 8 + 2 * (l % 4) + k] - base;
            memcpy(&h[k], global_smem + row + 2 * (l / 4), 2);
        }
        memcpy(&out[m], h, 4);
    }
    pthread_barrier_wait(&emu_warp[w]);
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
