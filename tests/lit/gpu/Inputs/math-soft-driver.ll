; math-soft-driver.ll - the host side of math-soft-host.nr: stubs for the NVVM intrinsics
; the kernel reads (thread and program ids; the warp index's broadcast returns its value),
; and a main that fills the two inputs (32768 each: random bit patterns, then evenly spaced
; values in [-16, 16), [-1, 1) and [1e-3, 8)), runs every program's 32 threads one after
; another, and prints one line per input: the two inputs' bits and the 25 results' bits
; (NaNs printed as they are).

@tid = internal global i32 0
@ctaid = internal global i32 0
@fmt = private constant [136 x i8] c"%08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x %08x\0A\00"

define i32 @stub_read.ptx.sreg.tid.x() {
  %v = load i32, ptr @tid
  ret i32 %v
}

define i32 @stub_read.ptx.sreg.ctaid.x() {
  %v = load i32, ptr @ctaid
  ret i32 %v
}

define i32 @stub_shfl.sync.idx.i32(i32 %mask, i32 %v, i32 %lane, i32 %clamp) {
  ret i32 %v
}

declare i32 @printf(ptr, ...)
declare ptr @calloc(i64, i64)

define internal i32 @bits_at(ptr %p, i32 %i) {
  %fp = getelementptr i32, ptr %p, i32 %i
  %b = load i32, ptr %fp
  ret i32 %b
}

; input i of operand `which` (0: x, 1: y)
define internal float @input(i32 %i, i32 %which) {
entry:
  %set = lshr i32 %i, 13
  %j = and i32 %i, 8191
  %isy = icmp ne i32 %which, 0
  %mulx = select i1 %isy, i32 101, i32 1
  %jm = mul i32 %j, %mulx
  %jy = and i32 %jm, 8191
  %c = sub i32 %jy, 4096
  %cf = sitofp i32 %c to float
  switch i32 %set, label %s0 [ i32 1, label %s1
                               i32 2, label %s2
                               i32 3, label %s3 ]
s0:
  %h1 = mul i32 %i, -1640531535
  %h2 = mul i32 %i, -2048144777
  %h3 = add i32 %h2, 374761393
  %h = select i1 %isy, i32 %h3, i32 %h1
  %hf = bitcast i32 %h to float
  ret float %hf
s1:
  %v1 = fmul float %cf, 0x3F70000000000000
  ret float %v1
s2:
  %v2 = fmul float %cf, 0x3F30000000000000
  ret float %v2
s3:
  %jf = uitofp i32 %j to float
  %v3a = fmul float %jf, 0x3F50000000000000
  %v3 = fadd float %v3a, 0x3F50624DE0000000
  %v3y = fmul float %cf, 0x3F60000000000000
  %v3r = select i1 %isy, float %v3y, float %v3
  ret float %v3r
}

define i32 @main() {
entry:
  %x = call ptr @calloc(i64 32768, i64 4)
  %y = call ptr @calloc(i64 32768, i64 4)
  %out = call ptr @calloc(i64 819200, i64 4)
  br label %fill

fill:
  %i = phi i32 [ 0, %entry ], [ %i.next, %fill ]
  %xv = call float @input(i32 %i, i32 0)
  %yv = call float @input(i32 %i, i32 1)
  %xp = getelementptr float, ptr %x, i32 %i
  store float %xv, ptr %xp
  %yp = getelementptr float, ptr %y, i32 %i
  store float %yv, ptr %yp
  %i.next = add i32 %i, 1
  %filled = icmp eq i32 %i.next, 32768
  br i1 %filled, label %launch, label %fill

launch:
  %p = phi i32 [ 0, %fill ], [ %p.next, %launch.end ]
  store i32 %p, ptr @ctaid
  br label %thread

thread:
  %t = phi i32 [ 0, %launch ], [ %t.next, %thread ]
  store i32 %t, ptr @tid
  call void @k(ptr %x, ptr %y, ptr %out)
  %t.next = add i32 %t, 1
  %threads.done = icmp eq i32 %t.next, 32
  br i1 %threads.done, label %launch.end, label %thread

launch.end:
  %p.next = add i32 %p, 1
  %launched = icmp eq i32 %p.next, 1024
  br i1 %launched, label %print, label %launch

print:
  %k = phi i32 [ 0, %launch.end ], [ %k.next, %print ]
  %xb = call i32 @bits_at(ptr %x, i32 %k)
  %yb = call i32 @bits_at(ptr %y, i32 %k)
  %o0 = add i32 %k, 0
  %r0 = call i32 @bits_at(ptr %out, i32 %o0)
  %o1 = add i32 %k, 32768
  %r1 = call i32 @bits_at(ptr %out, i32 %o1)
  %o2 = add i32 %k, 65536
  %r2 = call i32 @bits_at(ptr %out, i32 %o2)
  %o3 = add i32 %k, 98304
  %r3 = call i32 @bits_at(ptr %out, i32 %o3)
  %o4 = add i32 %k, 131072
  %r4 = call i32 @bits_at(ptr %out, i32 %o4)
  %o5 = add i32 %k, 163840
  %r5 = call i32 @bits_at(ptr %out, i32 %o5)
  %o6 = add i32 %k, 196608
  %r6 = call i32 @bits_at(ptr %out, i32 %o6)
  %o7 = add i32 %k, 229376
  %r7 = call i32 @bits_at(ptr %out, i32 %o7)
  %o8 = add i32 %k, 262144
  %r8 = call i32 @bits_at(ptr %out, i32 %o8)
  %o9 = add i32 %k, 294912
  %r9 = call i32 @bits_at(ptr %out, i32 %o9)
  %o10 = add i32 %k, 327680
  %r10 = call i32 @bits_at(ptr %out, i32 %o10)
  %o11 = add i32 %k, 360448
  %r11 = call i32 @bits_at(ptr %out, i32 %o11)
  %o12 = add i32 %k, 393216
  %r12 = call i32 @bits_at(ptr %out, i32 %o12)
  %o13 = add i32 %k, 425984
  %r13 = call i32 @bits_at(ptr %out, i32 %o13)
  %o14 = add i32 %k, 458752
  %r14 = call i32 @bits_at(ptr %out, i32 %o14)
  %o15 = add i32 %k, 491520
  %r15 = call i32 @bits_at(ptr %out, i32 %o15)
  %o16 = add i32 %k, 524288
  %r16 = call i32 @bits_at(ptr %out, i32 %o16)
  %o17 = add i32 %k, 557056
  %r17 = call i32 @bits_at(ptr %out, i32 %o17)
  %o18 = add i32 %k, 589824
  %r18 = call i32 @bits_at(ptr %out, i32 %o18)
  %o19 = add i32 %k, 622592
  %r19 = call i32 @bits_at(ptr %out, i32 %o19)
  %o20 = add i32 %k, 655360
  %r20 = call i32 @bits_at(ptr %out, i32 %o20)
  %o21 = add i32 %k, 688128
  %r21 = call i32 @bits_at(ptr %out, i32 %o21)
  %o22 = add i32 %k, 720896
  %r22 = call i32 @bits_at(ptr %out, i32 %o22)
  %o23 = add i32 %k, 753664
  %r23 = call i32 @bits_at(ptr %out, i32 %o23)
  %o24 = add i32 %k, 786432
  %r24 = call i32 @bits_at(ptr %out, i32 %o24)
  call i32 (ptr, ...) @printf(ptr @fmt, i32 %xb, i32 %yb, i32 %r0, i32 %r1, i32 %r2, i32 %r3, i32 %r4, i32 %r5, i32 %r6, i32 %r7, i32 %r8, i32 %r9, i32 %r10, i32 %r11, i32 %r12, i32 %r13, i32 %r14, i32 %r15, i32 %r16, i32 %r17, i32 %r18, i32 %r19, i32 %r20, i32 %r21, i32 %r22, i32 %r23, i32 %r24)
  %k.next = add i32 %k, 1
  %printed = icmp eq i32 %k.next, 32768
  br i1 %printed, label %done, label %print

done:
  ret i32 0
}
