#!/bin/sh
# to-host.sh IN.ll OUT.ll - a kernel's LLVM IR (nereid compile --emit=llvm) made host IR
# for cta_emu.h: no target, flat pointers (global and shared memory), no attribute groups,
# the NVVM intrinsics renamed @nv_NAME (dots as underscores), which cta_emu.h defines, and
# the register move that hides a shared-memory address's thread part (gen_opaque) an empty
# asm with its operand tied to its result, and ldmatrix's inline PTX (x1, x2, x4; .trans)
# a call of @nv_ldmatrix_xN[_trans], defined in IR below: LLVM returns an aggregate in more
# registers than C's struct ABI, so these unpack what cta_emu.h's emu_ldmatrix writes.
sed -e '/^target /d' -e '/^attributes #/d' -e 's/ptx_kernel //' \
    -e 's/ addrspace([0-9])//g' -e 's/^@global_smem = external global/@global_smem = external global/' \
    -e 's/) #[0-9]*\( {\)\{0,1\}$/)\1/' \
    -e ':a' -e 's/@llvm\.nvvm\.\([A-Za-z0-9_]*\)\./@llvm.nvvm.\1_/' -e 'ta' \
    -e 's/@llvm\.nvvm\./@nv_/g' \
    -e 's/asm "mov\.b32 \$0, \$1;", "=r,r"/asm "", "=r,0"/g' \
    -e 's/asm sideeffect "ldmatrix\.sync\.aligned\.m8n8\.\(x[124]\)\.trans\.shared\.b16 [^"]*", "[^"]*"/@nv_ldmatrix_\1_trans/' \
    -e 's/asm sideeffect "ldmatrix\.sync\.aligned\.m8n8\.\(x[124]\)\.shared\.b16 [^"]*", "[^"]*"/@nv_ldmatrix_\1/' \
    "$1" > "$2"
for t in "" _trans; do
    tr=0
    [ -n "$t" ] && tr=1
    cat >> "$2" <<EOF
define linkonce_odr i32 @nv_ldmatrix_x1$t(i32 %a) {
  %o = alloca [4 x i32]
  call void @emu_ldmatrix(i32 %a, i32 1, i32 $tr, ptr %o)
  %v0 = load i32, ptr %o
  ret i32 %v0
}
define linkonce_odr { i32, i32 } @nv_ldmatrix_x2$t(i32 %a) {
  %o = alloca [4 x i32]
  call void @emu_ldmatrix(i32 %a, i32 2, i32 $tr, ptr %o)
  %v0 = load i32, ptr %o
  %p1 = getelementptr i32, ptr %o, i32 1
  %v1 = load i32, ptr %p1
  %r0 = insertvalue { i32, i32 } undef, i32 %v0, 0
  %r1 = insertvalue { i32, i32 } %r0, i32 %v1, 1
  ret { i32, i32 } %r1
}
define linkonce_odr { i32, i32, i32, i32 } @nv_ldmatrix_x4$t(i32 %a) {
  %o = alloca [4 x i32]
  call void @emu_ldmatrix(i32 %a, i32 4, i32 $tr, ptr %o)
  %v0 = load i32, ptr %o
  %p1 = getelementptr i32, ptr %o, i32 1
  %v1 = load i32, ptr %p1
  %p2 = getelementptr i32, ptr %o, i32 2
  %v2 = load i32, ptr %p2
  %p3 = getelementptr i32, ptr %o, i32 3
  %v3 = load i32, ptr %p3
  %r0 = insertvalue { i32, i32, i32, i32 } undef, i32 %v0, 0
  %r1 = insertvalue { i32, i32, i32, i32 } %r0, i32 %v1, 1
  %r2 = insertvalue { i32, i32, i32, i32 } %r1, i32 %v2, 2
  %r3 = insertvalue { i32, i32, i32, i32 } %r2, i32 %v3, 3
  ret { i32, i32, i32, i32 } %r3
}
EOF
done
echo "declare void @emu_ldmatrix(i32, i32, i32, ptr)" >> "$2"
