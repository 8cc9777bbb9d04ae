#!/bin/sh
# to-host.sh IN.ll OUT.ll - a kernel's LLVM IR (nereid compile --emit=llvm) made host IR
# for cta_emu.h: no target, flat pointers (global and shared memory), no attribute groups,
# the NVVM intrinsics renamed @nv_NAME (dots as underscores), which cta_emu.h defines, and
# the register move that hides a shared-memory address's thread part (gen_opaque) an empty
# asm with its operand tied to its result.
sed -e '/^target /d' -e '/^attributes #/d' -e 's/ptx_kernel //' \
    -e 's/ addrspace([0-9])//g' -e 's/^@global_smem = external global/@global_smem = external global/' \
    -e 's/) #[0-9]*\( {\)\{0,1\}$/)\1/' \
    -e ':a' -e 's/@llvm\.nvvm\.\([A-Za-z0-9_]*\)\./@llvm.nvvm.\1_/' -e 'ta' \
    -e 's/@llvm\.nvvm\./@nv_/g' \
    -e 's/asm "mov\.b32 \$0, \$1;", "=r,r"/asm "", "=r,0"/g' "$1" > "$2"
