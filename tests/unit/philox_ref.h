/* philox_ref.h - a plain-C Philox4x32-10 as Triton's tl.randint / tl.rand compute it
 * (shared/design/philox.md), the reference the tests check the language's stdlib against. */
#ifndef NEREID_PHILOX_REF_H
#define NEREID_PHILOX_REF_H

#include <stdint.h>

static inline void philox_ref(uint64_t seed, uint32_t c[4]) {
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        uint32_t c0 = c[0], c2 = c[2];
        uint64_t pb = (uint64_t)0xCD9E8D57u * c2, pa = (uint64_t)0xD2511F53u * c0;
        c[0] = (uint32_t)(pb >> 32) ^ c[1] ^ k0;
        c[2] = (uint32_t)(pa >> 32) ^ c[3] ^ k1;
        c[1] = (uint32_t)pb;
        c[3] = (uint32_t)pa;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
}

static inline float philox_uniform(uint32_t w) {
    int32_t x = (int32_t)w;
    if (x < 0) x = -x - 1;
    return (float)x * 4.6566127342e-10f;
}

/* Philox4x64-10 as Triton computes it for 64-bit offsets: key (seed, 0), the 64-bit
 * multipliers and Weyl increments; k1 is free here so that Random123's known answers can
 * be checked (Triton's k1 is always 0). */
static inline void philox64_ref(uint64_t k0, uint64_t k1, uint64_t c[4]) {
    for (int r = 0; r < 10; r++) {
        uint64_t c0 = c[0], c2 = c[2];
        unsigned __int128 pb = (unsigned __int128)0xCA5A826395121157u * c2;
        unsigned __int128 pa = (unsigned __int128)0xD2E7470EE14C6C93u * c0;
        c[0] = (uint64_t)(pb >> 64) ^ c[1] ^ k0;
        c[2] = (uint64_t)(pa >> 64) ^ c[3] ^ k1;
        c[1] = (uint64_t)pb;
        c[3] = (uint64_t)pa;
        k0 += 0x9E3779B97F4A7C15u;
        k1 += 0xBB67AE8584CAA73Bu;
    }
}

/* tl.rand of a 64-bit word: int64 in fp32 times 2^-63 (rounded into fp32 as Triton's) */
static inline float philox64_uniform(uint64_t w) {
    int64_t x = (int64_t)w;
    if (x < 0) x = ~x; /* -x - 1 without overflow */
    return (float)x * (float)1.0842020432385337e-19;
}

#endif
