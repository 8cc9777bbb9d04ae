/* ir_layout.h - the IR's layouts (IrLayout in ir.h): their text form, their checks, and
 * the one interface every user of a layout goes through: its linear map over GF(2)
 * (linear_layout.h) for a given block shape.
 *
 * The kinds, each a linear map from (register, lane, warp) bits - or a shared buffer's
 * element offset bits - to the bits of an element's row-major index:
 *
 * blocked<spt, tpw, wpc, order>: each thread holds spt consecutive elements per dim; a
 *   warp's 32 lanes (tpw) and the CTA's warps (wpc) tile the block, dims taken in `order`
 *   (fastest first). A block larger than the tile wraps (more registers); a smaller one is
 *   replicated (lanes or warps holding copies). Registers count order[0] fastest, each
 *   dim's spt chunk first, so a chunk is consecutive registers: one vector access.
 * slice<dim, parent>: the parent with dim `dim` removed (a reduction's result, the operand
 *   of expand_dims): threads that differed only along `dim` hold copies.
 * mma<version, wpc, instr_n>: a tensor-core accumulator. Within a warp, the 16x8 fragment
 *   of mma.sync: lane l holds rows l/4 and l/4+8, columns 2*(l%4) and +1 (register bit 0:
 *   column 1; lane bits 0-1: columns 2, 4; lane bits 2-4: rows 1, 2, 4; register bit 1:
 *   row 8). Version 2 (mma.sync m16n8): warps tile M first (wpc[0] of them, 16 rows
 *   apart), then N (wpc[1], 8 columns apart). Version 3 (wgmma m64 x instr_n): register
 *   bits 2.. add the columns 8 .. instr_n/2 of one instruction; warps go 16 rows apart in
 *   groups of four (a warpgroup: 64 rows), further warpgroups along M (wpc[0] / 4), then
 *   N (wpc[1], instr_n apart). Then registers repeat the CTA's tile along N, then M.
 * dot_op<idx, parent, k_width>: operand A (idx 0, MxK) or B (idx 1, KxN) of an mma parent,
 *   as mma.sync's fragments (and wgmma's A from registers): k_width consecutive k
 *   elements per 32-bit register (2 for 16-bit types, 1 for tf32, 4 for 8-bit); lane bits
 *   0-1 add k; lane bits 2-4 rows of A (columns of B); then register bits: A's row 8 and
 *   k 4*k_width, B's k 4*k_width; warps as the parent's, copies along the dim the operand
 *   lacks; registers repeat along K, then M (A) or N (B).
 * shared<vec, per_phase, max_phase, order, atom>: a buffer's layout. Rows of the
 *   contiguous dim order[0] follow each other along order[1] (then order[2], ...); in row
 *   r, the chunk of `vec` elements at position c sits at chunk c ^ ((r / per_phase) %
 *   max_phase) (a swizzle that spreads a column over the banks; 1, 1, 1 is plain row
 *   major). With atom > 0 the contiguous dim is cut into panels of `atom` elements, each
 *   a whole tile of rows stored after the previous one (the canonical layouts of wgmma
 *   and TMA, whose swizzles work on rows of at most 128 bytes). */
#ifndef NEREID_IR_LAYOUT_H
#define NEREID_IR_LAYOUT_H

#include "ir.h"
#include "linear_layout.h"

/* Intern a layout in the module's table; equal layouts get one id. */
uint32_t ir_layout_intern(IrModule *m, const IrLayout *l);
/* Are two layouts the same (the fields their kind uses equal)? */
bool ir_layout_equal(const IrLayout *a, const IrLayout *b);
/* Append a layout as it is, even if an equal one exists (the parser keeps a file's ids). */
uint32_t ir_layout_add(IrModule *m, const IrLayout *l);
static inline const IrLayout *ir_layout(const IrModule *m, uint32_t id) { return &m->layouts[id]; }

bool ir_layout_is_distributed(int kind);
/* The id of a linear layout with map lin (copied into the module's arena). */
uint32_t ir_layout_intern_linear(IrModule *m, const LinearLayout *lin);

/* Is layout `id` well formed for blocks of type t (its rank, the sizes the kind needs,
 * num_warps when > 0)? If not, the reason goes to why. Parents are checked too. */
bool ir_layout_check(const IrModule *m, uint32_t id, IrType t, int num_warps, StrBuf *why);

/* Can a scan or reduce_fn run along `axis` of a block of t in this distributed layout:
 * does every input bit with a nonzero basis step along the axis alone (by one of its
 * index bits) or not at all, and no two alike, every axis bit covered? Then each of the
 * axis's index bits is one register, lane or warp bit, and the combine runs digit by
 * digit over them (codegen/llvm_scan.c); the layouts Nereid makes qualify. */
bool ir_layout_axis_separable(const IrModule *m, uint32_t layout, IrType t, int axis);
/* Does some warp bit step along the axis (a scan or reduce_fn then exchanges through
 * shared memory)? */
bool ir_layout_axis_warps(const IrModule *m, uint32_t layout, IrType t, int axis);
/* Can a reduction run along `axis` of a block of t in this distributed layout: does
 * every lane and warp bit step along the axis alone or not at all? Then the threads that
 * share an output differ only in lane and warp bits along the axis (butterflies, then
 * partials across warps: codegen/llvm_reduce.c); the layouts Nereid makes qualify. */
bool ir_layout_axis_threads_apart(const IrModule *m, uint32_t layout, IrType t, int axis);

/* The linear map of layout `id` for blocks of t's shape (rank 0: an empty map). The
 * layout must pass ir_layout_check. */
void ir_layout_linear(const IrModule *m, uint32_t id, IrType t, LinearLayout *out);
/* The same for a shared layout not (or not yet) in the module's table. */
void ir_layout_linear_shared(const IrLayout *l, IrType t, LinearLayout *out);

/* A shared-memory buffer's tiles: each starts at a multiple of the alignment its swizzle
 * needs (1024 bytes when swizzled, the period of the hardware's 128-byte swizzle, which
 * wgmma and TMA apply to addresses; 16 otherwise), so stage i of a ring is at i times
 * the stage size. */
int ir_smem_align(const IrModule *m, uint32_t layout);
int64_t ir_smem_stage_bytes(const IrModule *m, uint32_t layout, IrType buf);

/* ---- text form: kind<name=value, ...> ---- */
void ir_layout_print(StrBuf *out, const IrLayout *l);
/* Kinds by name ("blocked", ...): LAYOUT_NONE if unknown. */
int ir_layout_kind_from_name(const char *name, size_t len);
/* The fields of a kind, for the parser: their names, and whether a field is a list of
 * ints, one int, or a layout reference (#Ln). */
typedef enum { LF_INT, LF_INTS, LF_REF } LayoutFieldType;
int ir_layout_field_count(int kind);
const char *ir_layout_field_name(int kind, int field);
int ir_layout_field_type(int kind, int field);
/* Sets field `field` of l from n values (n == 1 unless LF_INTS); false (with why) if a
 * value is out of the field's range. An LF_INTS field sets l->rank when the kind takes
 * its rank from it. */
bool ir_layout_set_field(IrLayout *l, int field, const int64_t *v, int n, StrBuf *why);
/* Sets the rank of the kinds that do not list it (mma and dot_op: 2; slice: its
 * parent's less one); false if a slice's parent is not a layout of m. */
bool ir_layout_derive_rank(const IrModule *m, IrLayout *l);

#endif
