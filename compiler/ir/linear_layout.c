/* linear_layout.c - linear maps over GF(2) from input bits to row-major element indices
 * (see linear_layout.h). */
#include "linear_layout.h"

#include <string.h>

static int log2_exact(int64_t x) {
    int k = 0;
    while (((int64_t)1 << k) < x) k++;
    return ((int64_t)1 << k) == x ? k : -1;
}

void ll_init(LinearLayout *l, int rank, const int32_t *shape) {
    memset(l, 0, sizeof *l);
    NR_ASSERT(rank >= 0 && rank <= LL_MAX_RANK);
    l->rank = (uint8_t)rank;
    int total = 0;
    for (int d = 0; d < rank; d++) {
        int k = log2_exact(shape[d]);
        NR_ASSERT(k >= 0);
        l->log2shape[d] = (uint8_t)k;
        total += k;
    }
    NR_ASSERT(total <= LL_MAX_BITS);
}

void ll_push(LinearLayout *l, int in, uint32_t flat) {
    NR_ASSERT(in >= 0 && in < LL_NIN && l->nbits[in] < LL_MAX_BITS);
    l->basis[in][l->nbits[in]++] = flat;
}

int ll_dim_shift(const LinearLayout *l, int dim) {
    int s = 0;
    for (int d = l->rank - 1; d > dim; d--) s += l->log2shape[d];
    return s;
}

void ll_push_dim(LinearLayout *l, int in, int dim, int bit) {
    ll_push(l, in, bit < l->log2shape[dim] ? (uint32_t)1 << (ll_dim_shift(l, dim) + bit) : 0);
}

uint32_t ll_flat(const LinearLayout *l, const int32_t *coord) {
    uint32_t f = 0;
    for (int d = 0; d < l->rank; d++) f |= (uint32_t)coord[d] << ll_dim_shift(l, d);
    return f;
}

void ll_coords(const LinearLayout *l, uint32_t flat, int32_t *coord) {
    for (int d = 0; d < l->rank; d++)
        coord[d] = (int32_t)((flat >> ll_dim_shift(l, d)) & ((1u << l->log2shape[d]) - 1));
}

uint32_t ll_apply_dim(const LinearLayout *l, int in, uint32_t x) {
    uint32_t f = 0;
    for (int i = 0; i < l->nbits[in] && x; i++, x >>= 1)
        if (x & 1) f ^= l->basis[in][i];
    return f;
}

uint32_t ll_apply(const LinearLayout *l, const uint32_t *x) {
    uint32_t f = 0;
    for (int in = 0; in < LL_NIN; in++) f ^= ll_apply_dim(l, in, x[in]);
    return f;
}

uint32_t ll_zero_mask(const LinearLayout *l, int in) {
    uint32_t m = 0;
    for (int i = 0; i < l->nbits[in]; i++)
        if (!l->basis[in][i]) m |= 1u << i;
    return m;
}

/* Gaussian elimination: rows are (basis, input bit set) pairs reduced to echelon form on
 * the basis's highest bit. */
bool ll_solve(const LinearLayout *l, int in, uint32_t flat, uint32_t *out) {
    uint32_t row[LL_MAX_BITS], comb[LL_MAX_BITS];
    int n = 0;
    for (int i = 0; i < l->nbits[in]; i++) {
        uint32_t b = l->basis[in][i], c = 1u << i;
        for (int j = 0; j < n && b; j++)
            if ((b ^ row[j]) < b) b ^= row[j], c ^= comb[j];
        if (!b) continue; /* dependent: a copy of earlier bits; never used in a solution */
        row[n] = b, comb[n] = c;
        n++;
        /* keep rows sorted by highest bit, descending, so the reduction above is exact */
        for (int j = n - 1; j > 0 && row[j] > row[j - 1]; j--) {
            uint32_t t = row[j];
            row[j] = row[j - 1];
            row[j - 1] = t;
            t = comb[j];
            comb[j] = comb[j - 1];
            comb[j - 1] = t;
        }
    }
    uint32_t c = 0;
    for (int j = 0; j < n && flat; j++)
        if ((flat ^ row[j]) < flat) flat ^= row[j], c ^= comb[j];
    if (flat) return false;
    *out = c;
    return true;
}

bool ll_same_dim(const LinearLayout *a, const LinearLayout *b, int in) {
    if (a->nbits[in] != b->nbits[in]) return false;
    for (int i = 0; i < a->nbits[in]; i++)
        if (a->basis[in][i] != b->basis[in][i]) return false;
    return true;
}

bool ll_surjective(const LinearLayout *l) {
    int bits = 0;
    for (int d = 0; d < l->rank; d++) bits += l->log2shape[d];
    uint32_t span[LL_MAX_BITS] = {0}; /* span[k]: a vector with highest bit k */
    int have = 0;
    for (int in = 0; in < LL_NIN; in++)
        for (int i = 0; i < l->nbits[in]; i++) {
            uint32_t b = l->basis[in][i];
            for (int k = bits - 1; k >= 0 && b; k--) {
                if (!(b >> k & 1)) continue;
                if (!span[k]) {
                    span[k] = b, have++;
                    break;
                }
                b ^= span[k];
            }
        }
    return have == bits;
}

bool ll_invert_offset(const LinearLayout *l, uint32_t *offset_of_bit) {
    int bits = 0;
    for (int d = 0; d < l->rank; d++) bits += l->log2shape[d];
    if (l->nbits[LL_OFFSET] != bits) return false;
    for (int k = 0; k < bits; k++) {
        uint32_t o;
        if (!ll_solve(l, LL_OFFSET, 1u << k, &o)) return false;
        offset_of_bit[k] = o;
    }
    return true;
}

int ll_contig_bits(const LinearLayout *l, int in, int dim) {
    int shift = ll_dim_shift(l, dim), k = 0;
    while (k < l->nbits[in] && k < l->log2shape[dim] &&
           l->basis[in][k] == (uint32_t)1 << (shift + k))
        k++;
    return k;
}

static void print_coords(StrBuf *out, const LinearLayout *l, uint32_t flat) {
    int32_t c[LL_MAX_RANK];
    ll_coords(l, flat, c);
    sb_putc(out, '[');
    for (int d = 0; d < l->rank; d++) sb_printf(out, d ? ", %d" : "%d", c[d]);
    sb_putc(out, ']');
}

void ll_print_dim(StrBuf *out, const LinearLayout *l, int in) {
    sb_putc(out, '[');
    for (int i = 0; i < l->nbits[in]; i++) {
        if (i) sb_puts(out, ", ");
        print_coords(out, l, l->basis[in][i]);
    }
    sb_putc(out, ']');
}

void ll_print(StrBuf *out, const LinearLayout *l) {
    static const char *const names[LL_NIN] = {"register", "lane", "warp"};
    sb_puts(out, "{");
    for (int in = 0; in < LL_NIN; in++) {
        sb_printf(out, "%s%s = ", in ? ", " : "", names[in]);
        ll_print_dim(out, l, in);
    }
    sb_puts(out, "}");
}
