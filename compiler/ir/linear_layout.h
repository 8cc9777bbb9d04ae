/* linear_layout.h - layouts as linear maps over GF(2).
 *
 * Every layout Nereid uses is a linear map over GF(2) (Zhou et al. 2024, "Linear Layouts";
 * Triton's LinearLayout): from the bits of the input dimensions (for a distributed layout
 * a thread's register index, its lane and its warp; for a shared layout the element's
 * offset in the buffer) to the bits of an element's row-major index in a block whose dims
 * are powers of two. Each input bit has a basis: the row-major index it contributes; the
 * image of an input is the XOR of the bases of its set bits. Because the block's dims are
 * powers of two, the XOR of row-major indices is the row-major index of the coordinates
 * XORed dim by dim, so one uint32 carries a basis of any rank.
 *
 * A basis of 0 means the bit does not move the element: its values hold copies (a lane
 * bit with basis 0 is replication across lanes; a register bit with basis 0 a duplicate
 * register). The arithmetic the back end needs (positions of a thread's elements,
 * whether a layout change moves data between threads, vector widths, where a register
 * is, shared-memory addresses) is computed from these maps, for every kind of layout
 * alike. compiler/ir/ir_layout.c builds them from the IR's layout attributes. */
#ifndef NEREID_LINEAR_LAYOUT_H
#define NEREID_LINEAR_LAYOUT_H

#include "compiler/support/support.h"

enum { LL_MAX_RANK = 16, LL_MAX_BITS = 24 };

/* Input dimensions: distributed layouts use REG, LANE and WARP; shared layouts OFFSET. */
typedef enum { LL_REG = 0, LL_LANE = 1, LL_WARP = 2, LL_NIN = 3, LL_OFFSET = 0 } LinInDim;

typedef struct LinearLayout {
    uint8_t rank;                   /* output dims */
    uint8_t log2shape[LL_MAX_RANK]; /* the block's dims, log2 */
    uint8_t nbits[LL_NIN];          /* bits of each input dim (0 for unused dims) */
    uint32_t basis[LL_NIN][LL_MAX_BITS];
} LinearLayout;

/* An empty layout of a block shape (dims must be powers of two); no input bits. */
void ll_init(LinearLayout *l, int rank, const int32_t *shape);
/* Appends an input bit to dim `in` whose basis is `flat` (a row-major index). */
void ll_push(LinearLayout *l, int in, uint32_t flat);
/* Appends an input bit whose basis is 2^bit along output dim `dim`, or 0 (a copy) when
 * that coordinate bit is outside the block (the block is smaller than the layout's tile). */
void ll_push_dim(LinearLayout *l, int in, int dim, int bit);

/* Row-major index <-> coordinates of the layout's block. */
int ll_dim_shift(const LinearLayout *l, int dim); /* lowest bit of dim in the index */
uint32_t ll_flat(const LinearLayout *l, const int32_t *coord);
void ll_coords(const LinearLayout *l, uint32_t flat, int32_t *coord);

/* The image of input values (x[in] for each input dim; missing dims 0). */
uint32_t ll_apply(const LinearLayout *l, const uint32_t *x);
/* The image of one input dim's value with the others 0. */
uint32_t ll_apply_dim(const LinearLayout *l, int in, uint32_t x);

/* The input bits of dim `in` whose basis is 0 (copies), as a mask. */
uint32_t ll_zero_mask(const LinearLayout *l, int in);
/* Input value of dim `in` (others 0) whose image is flat, if one exists: Gaussian
 * elimination over GF(2). Among several, the one with no zero-basis bits set. */
bool ll_solve(const LinearLayout *l, int in, uint32_t flat, uint32_t *out);
/* Do the two layouts (of one block shape) place dim `in` alike, bit for bit? */
bool ll_same_dim(const LinearLayout *a, const LinearLayout *b, int in);
/* True if every element of the block is the image of some input (the layout covers it). */
bool ll_surjective(const LinearLayout *l);

/* For a shared layout (one input dim, a bijection): the element offset of a row-major
 * index. False if the map is not invertible. */
bool ll_invert_offset(const LinearLayout *l, uint32_t *offset_of_bit /* [sum log2shape] */);

/* The number of low input bits of dim `in` whose bases are 1, 2, 4, ... times the unit
 * step of output dim `dim`: that many elements are consecutive along `dim`. */
int ll_contig_bits(const LinearLayout *l, int in, int dim);

/* "[[0, 1], [0, 2]]"-style text of one input dim's bases (coordinates), for dumps. */
void ll_print_dim(StrBuf *out, const LinearLayout *l, int in);
void ll_print(StrBuf *out, const LinearLayout *l);

#endif
