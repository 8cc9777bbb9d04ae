/* test_cuda_nodevice.c - the CUDA runtime (runtime/cuda.c) where there may be no driver.
 * Without libcuda.so.1 (or without a device) cuda_open must fail cleanly: -1, a clear
 * message naming the driver or the device, no device handed out, nothing leaked. Where a
 * driver and a device are present it opens device 0, prints its name and compute
 * capability and closes it again. Either way the test passes; it checks the messages. */
#include <stdlib.h>

#include "check.h"
#include "runtime/cuda.h"

/* Under AddressSanitizer the CUDA driver needs the shadow gap left unprotected (otherwise
 * cuInit fails with CUDA_ERROR_OUT_OF_MEMORY), and cuInit leaks a few hundred bytes of its
 * own: these hooks (read by ASan/LSan only, inert otherwise) set that up for this program. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "protect_shadow_gap=0"; }
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libcuda.so\n"; }

static CheckState st;
#define CHECK(cond, ...) CHECK_AT(&st, cond, __VA_ARGS__)

/* A sensible failure message: one or more lines, naming libcuda, the driver or a device. */
static bool sensible(const char *msg) {
    return msg && strlen(msg) > 10 &&
           (strstr(msg, "libcuda") || strstr(msg, "driver") || strstr(msg, "device") ||
            strstr(msg, "CUDA_ERROR"));
}

int main(void) {
    /* the PTX target for each compute capability */
    CHECK(!strcmp(cuda_arch_for_cc(90), "sm_90a"), "9.0 -> %s", cuda_arch_for_cc(90));
    CHECK(!strcmp(cuda_arch_for_cc(80), "sm_80"), "8.0 -> %s", cuda_arch_for_cc(80));
    CHECK(!strcmp(cuda_arch_for_cc(86), "sm_80"), "8.6 -> %s", cuda_arch_for_cc(86));
    CHECK(!strcmp(cuda_arch_for_cc(89), "sm_80"), "8.9 -> %s", cuda_arch_for_cc(89));
    CHECK(!strcmp(cuda_arch_for_cc(100), "sm_90"), "10.0 -> %s", cuda_arch_for_cc(100));
    CHECK(!strcmp(cuda_arch_for_cc(120), "sm_90"), "12.0 -> %s", cuda_arch_for_cc(120));
    CHECK(cuda_arch_for_cc(75) == NULL, "7.5 should be unsupported");

    /* NULL-tolerant accessors and close */
    cuda_close(NULL);
    CHECK(cuda_compute_capability(NULL) == 0, "cc of no device");
    CHECK(!strcmp(cuda_device_name(NULL), ""), "name of no device");

    StrBuf err;
    sb_init(&err);
    /* the device count: -1 without a driver (saying so), else the driver's count */
    int count = -1, crc = cuda_device_count(&count, &err);
    CHECK((crc == -1 && count == 0 && sensible(sb_cstr(&err))) || (crc == 0 && count >= 0),
          "cuda_device_count: %d, %d devices, '%s'", crc, count, sb_cstr(&err));
    sb_free(&err);
    sb_init(&err);
    CudaDevice *d = (CudaDevice *)(uintptr_t)1; /* must be overwritten either way */
    int rc = cuda_open(0, &d, &err);
    if (rc != 0) {
        printf("no CUDA device here: %s\n", sb_cstr(&err));
        CHECK(rc == -1, "cuda_open returned %d", rc);
        CHECK(d == NULL, "a failed cuda_open must hand out no device");
        CHECK(sensible(sb_cstr(&err)), "unclear message: '%s'", sb_cstr(&err));
        /* a second attempt fails the same way (no state left behind by the first) */
        StrBuf err2;
        sb_init(&err2);
        CudaDevice *d2 = NULL;
        CHECK(cuda_open(0, &d2, &err2) == -1 && d2 == NULL, "second cuda_open should fail too");
        CHECK(!strcmp(sb_cstr(&err), sb_cstr(&err2)), "second failure differs: '%s'",
              sb_cstr(&err2));
        sb_free(&err2);
    } else {
        CHECK(d != NULL, "cuda_open succeeded without a device");
        int cc = cuda_compute_capability(d);
        printf("CUDA device 0: %s, compute capability %d.%d, PTX target %s, driver %d\n",
               cuda_device_name(d), cc / 10, cc % 10, cuda_arch_name(d), cuda_driver_version(d));
        CHECK(cc >= 80, "cuda_open accepted compute capability %d", cc);
        CHECK(strlen(cuda_device_name(d)) > 0, "empty device name");
        CHECK(!strcmp(cuda_arch_name(d), cuda_arch_for_cc(cc)), "arch name %s", cuda_arch_name(d));
        /* a small allocation round trip */
        uint64_t p = 0;
        unsigned char in[256], out[256];
        for (int i = 0; i < 256; i++) in[i] = (unsigned char)i;
        CHECK(cuda_malloc(d, sizeof in, &p, &err) == 0 && p != 0, "cuda_malloc: %s", sb_cstr(&err));
        CHECK(cuda_htod(d, p, in, sizeof in, &err) == 0, "cuda_htod: %s", sb_cstr(&err));
        CHECK(cuda_dtoh(d, out, p, sizeof out, &err) == 0 && !memcmp(in, out, sizeof in),
              "round trip: %s", sb_cstr(&err));
        CHECK(cuda_memset(d, p, 0xab, sizeof in, &err) == 0 &&
                  cuda_dtoh(d, out, p, sizeof out, &err) == 0 && out[0] == 0xab && out[255] == 0xab,
              "memset: %s", sb_cstr(&err));
        CHECK(cuda_free(d, p, &err) == 0, "cuda_free: %s", sb_cstr(&err));
        CHECK(cuda_synchronize(d, &err) == 0, "cuda_synchronize: %s", sb_cstr(&err));
        /* a device that does not exist */
        StrBuf err2;
        sb_init(&err2);
        CudaDevice *d2 = NULL;
        CHECK(cuda_open(4096, &d2, &err2) == -1 && d2 == NULL, "device 4096 should not exist");
        printf("device 4096: %s\n", sb_cstr(&err2));
        CHECK(sensible(sb_cstr(&err2)), "unclear message: '%s'", sb_cstr(&err2));
        sb_free(&err2);
        cuda_close(d);
    }
    sb_free(&err);
    return check_done("test_cuda_nodevice", &st);
}
