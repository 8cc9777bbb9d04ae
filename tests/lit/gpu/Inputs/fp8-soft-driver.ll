; fp8-soft-driver.ll - the host side of fp8-soft-lli.nr: stubs for the NVVM intrinsics the
; kernel reads (thread and program ids; the warp index's broadcast returns its value), and
; a main that fills the inputs, runs every program's 32 threads one after another, and
; prints one line per input ("fp32-bits", then its bytes in the five formats fp8e4nv,
; fp8e5, fp8e4b15, fp8e4b8, fp8e5b16 from fp32, then from fp64) and one per byte ("byte",
; then its value as fp32 in the five formats, NaNs printed as 7fc00000).

@tid = internal global i32 0
@ctaid = internal global i32 0
@lo16 = internal constant [3 x i32] [i32 0, i32 1, i32 65535]
@scale = internal constant [3 x double] [double 1.0, double 0x3FF0000000001000, double 0x3FEFFFFFFFFFE000]
@fmt_n = private constant [56 x i8] c"%08x %02x %02x %02x %02x %02x %02x %02x %02x %02x %02x\0A\00"
@fmt_w = private constant [31 x i8] c"%02x %08x %08x %08x %08x %08x\0A\00"

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

define internal i32 @nan_normalised(ptr %p, i32 %i) {
  %fp = getelementptr float, ptr %p, i32 %i
  %f = load float, ptr %fp
  %bits = bitcast float %f to i32
  %nan = fcmp uno float %f, %f
  %r = select i1 %nan, i32 2143289344, i32 %bits
  ret i32 %r
}

define internal i32 @byte_at(ptr %p, i32 %i) {
  %bp = getelementptr i8, ptr %p, i32 %i
  %b = load i8, ptr %bp
  %r = zext i8 %b to i32
  ret i32 %r
}

define i32 @main() {
entry:
  %x = call ptr @calloc(i64 196608, i64 4)
  %d = call ptr @calloc(i64 196608, i64 8)
  %y = call ptr @calloc(i64 256, i64 1)
  %n4 = call ptr @calloc(i64 196608, i64 1)
  %n5 = call ptr @calloc(i64 196608, i64 1)
  %n15 = call ptr @calloc(i64 196608, i64 1)
  %n8 = call ptr @calloc(i64 196608, i64 1)
  %n16 = call ptr @calloc(i64 196608, i64 1)
  %d4 = call ptr @calloc(i64 196608, i64 1)
  %d5 = call ptr @calloc(i64 196608, i64 1)
  %d15 = call ptr @calloc(i64 196608, i64 1)
  %d8 = call ptr @calloc(i64 196608, i64 1)
  %d16 = call ptr @calloc(i64 196608, i64 1)
  %w4 = call ptr @calloc(i64 196608, i64 4)
  %w5 = call ptr @calloc(i64 196608, i64 4)
  %w15 = call ptr @calloc(i64 196608, i64 4)
  %w8 = call ptr @calloc(i64 196608, i64 4)
  %w16 = call ptr @calloc(i64 196608, i64 4)
  br label %fill

fill:
  %i = phi i32 [ 0, %entry ], [ %i.next, %fill ]
  %r = urem i32 %i, 3
  %q = udiv i32 %i, 3
  %hi = shl i32 %q, 16
  %lop = getelementptr [3 x i32], ptr @lo16, i32 0, i32 %r
  %lo = load i32, ptr %lop
  %u = or i32 %hi, %lo
  %xp = getelementptr i32, ptr %x, i32 %i
  store i32 %u, ptr %xp
  %f = bitcast i32 %u to float
  %fd = fpext float %f to double
  %sp = getelementptr [3 x double], ptr @scale, i32 0, i32 %r
  %s = load double, ptr %sp
  %dv = fmul double %fd, %s
  %dp = getelementptr double, ptr %d, i32 %i
  store double %dv, ptr %dp
  %i.next = add i32 %i, 1
  %filled = icmp eq i32 %i.next, 196608
  br i1 %filled, label %bytes, label %fill

bytes:
  %j = phi i32 [ 0, %fill ], [ %j.next, %bytes ]
  %yp = getelementptr i8, ptr %y, i32 %j
  %jb = trunc i32 %j to i8
  store i8 %jb, ptr %yp
  %j.next = add i32 %j, 1
  %bytes.done = icmp eq i32 %j.next, 256
  br i1 %bytes.done, label %launch, label %bytes

launch:
  %p = phi i32 [ 0, %bytes ], [ %p.next, %launch.end ]
  store i32 %p, ptr @ctaid
  br label %thread

thread:
  %t = phi i32 [ 0, %launch ], [ %t.next, %thread ]
  store i32 %t, ptr @tid
  call void @k(ptr %x, ptr %d, ptr %y, ptr %n4, ptr %n5, ptr %n15, ptr %n8, ptr %n16, ptr %d4, ptr %d5, ptr %d15, ptr %d8, ptr %d16, ptr %w4, ptr %w5, ptr %w15, ptr %w8, ptr %w16)
  %t.next = add i32 %t, 1
  %threads.done = icmp eq i32 %t.next, 32
  br i1 %threads.done, label %launch.end, label %thread

launch.end:
  %p.next = add i32 %p, 1
  %launched = icmp eq i32 %p.next, 6144
  br i1 %launched, label %print, label %launch

print:
  %k = phi i32 [ 0, %launch.end ], [ %k.next, %print ]
  %up = getelementptr i32, ptr %x, i32 %k
  %uk = load i32, ptr %up
  %b.n4 = call i32 @byte_at(ptr %n4, i32 %k)
  %b.n5 = call i32 @byte_at(ptr %n5, i32 %k)
  %b.n15 = call i32 @byte_at(ptr %n15, i32 %k)
  %b.n8 = call i32 @byte_at(ptr %n8, i32 %k)
  %b.n16 = call i32 @byte_at(ptr %n16, i32 %k)
  %b.d4 = call i32 @byte_at(ptr %d4, i32 %k)
  %b.d5 = call i32 @byte_at(ptr %d5, i32 %k)
  %b.d15 = call i32 @byte_at(ptr %d15, i32 %k)
  %b.d8 = call i32 @byte_at(ptr %d8, i32 %k)
  %b.d16 = call i32 @byte_at(ptr %d16, i32 %k)
  call i32 (ptr, ...) @printf(ptr @fmt_n, i32 %uk, i32 %b.n4, i32 %b.n5, i32 %b.n15, i32 %b.n8, i32 %b.n16, i32 %b.d4, i32 %b.d5, i32 %b.d15, i32 %b.d8, i32 %b.d16)
  %k.next = add i32 %k, 1
  %printed = icmp eq i32 %k.next, 196608
  br i1 %printed, label %print.bytes, label %print

print.bytes:
  %m = phi i32 [ 0, %print ], [ %m.next, %print.bytes ]
  %v4 = call i32 @nan_normalised(ptr %w4, i32 %m)
  %v5 = call i32 @nan_normalised(ptr %w5, i32 %m)
  %v15 = call i32 @nan_normalised(ptr %w15, i32 %m)
  %v8 = call i32 @nan_normalised(ptr %w8, i32 %m)
  %v16 = call i32 @nan_normalised(ptr %w16, i32 %m)
  call i32 (ptr, ...) @printf(ptr @fmt_w, i32 %m, i32 %v4, i32 %v5, i32 %v15, i32 %v8, i32 %v16)
  %m.next = add i32 %m, 1
  %all = icmp eq i32 %m.next, 256
  br i1 %all, label %done, label %print.bytes

done:
  ret i32 0
}
