/* rewrite.h - the editing helpers every pass shares: replacing values, rebuilding a
 * region's op list, counting uses, and a growable op list. Shared by the passes of
 * compiler/passes and compiler/gpu. */
#ifndef NEREID_REWRITE_H
#define NEREID_REWRITE_H

#include "compiler/ir/ir.h"

/* A malloc'd list of ops, for rebuilding a region's op list. */
typedef struct OpVec {
    OpId *v;
    uint32_t n, cap;
} OpVec;
void opvec_push(OpVec *l, OpId op);
void opvec_free(OpVec *l);
/* A new op of f with one result of type ty, appended to l; its result. */
ValId opvec_emit(OpVec *l, IrFunc *f, int code, Loc loc, const ValId *opnds, uint32_t n, IrType ty);

/* A zeroed map ValId -> ValId with an entry for every value f has now (free() it). */
ValId *ir_repl_new(const IrFunc *f);
/* v after following repl (0 entries end the chain); repl covers f->nvals values. */
ValId ir_repl_resolve(const IrFunc *f, const ValId *repl, ValId v);
/* Every operand of every op reachable from f's body goes through repl (which has an
 * entry for each of f's values; 0 means unchanged). */
void ir_replace_all_uses(IrFunc *f, const ValId *repl);
/* pairs holds (old value, new value) pairs, in that order: every use of each old value
 * becomes a use of its new one (the map made after the rewrite, so it covers the new
 * values); pairs is freed. */
void ir_replace_pairs(IrFunc *f, OpVec *pairs);
/* The operands of one op go through repl. */
void ir_op_remap(IrFunc *f, OpId op, const ValId *repl);

/* Copies ops into region r's list (reusing its storage when it fits) and points every
 * op's parent link at r. */
void ir_region_set_ops(IrFunc *f, RegionId r, const OpId *ops, uint32_t n);
/* A malloc'd copy of region r's op list (free() it); n receives the count. */
OpId *ir_region_copy_ops(IrFunc *f, RegionId r, uint32_t *n);

/* Is value v defined inside region r: by an op of r or of a region nested in it, or as
 * the argument of such a region? */
bool ir_defined_in(const IrFunc *f, ValId v, RegionId r);

/* Uses of each value by ops reachable from the body (calloc'd, f->nvals entries). */
uint32_t *ir_count_uses(IrFunc *f);

/* The op defining v if it is a const, else NULL. */
const IrOp *ir_const_def(const IrFunc *f, ValId v);

/* Does op id write global memory, itself or anywhere in its regions: 0 no; 1 through the
 * generic proxy (a store, an atomic, a call, inline assembly not marked pure); 2 through a
 * tensor map too (a descriptor store or a TMA store, whose global writes complete
 * asynchronously: a proxy fence does not wait for them)? */
int ir_writes_global(const IrFunc *f, OpId id);

#endif
