/*
 * int_shift.cu - conformance of shl and shr at 16, 32 and 64 bits with
 * every kind of shift count.  The count is always a .u32 operand, and the
 * ISA clamps counts larger than the width: shl and shr.b/.u give 0, shr.s
 * fills with the sign bit.  (C leaves such shifts undefined, so a
 * translation that shifts in C directly goes wrong here.)
 */
#include "conf.h"

static u64 shl(u64 a, u64 n, int w)
{
	n &= 0xffffffff;
	return n >= (u64)w ? 0 : (a << n) & width_mask(w);
}

static u64 shr_u(u64 a, u64 n, int w)
{
	n &= 0xffffffff;
	return n >= (u64)w ? 0 : (a & width_mask(w)) >> n;
}

static u64 shr_s(u64 a, u64 n, int w)
{
	n &= 0xffffffff;
	if (n >= (u64)w)
		n = w - 1;
	return (u64)(sx(a, w) >> n) & width_mask(w);
}

#define SHIFT(name, T, C, text, ref) CONF_OPX(name, T, C, T, C, u32, "r", u32, "r", text, ref)

SHIFT(shl_b16, u16, "h", "shl.b16 %0, %1, %2;", shl(a, b, 16))
SHIFT(shl_b32, u32, "r", "shl.b32 %0, %1, %2;", shl(a, b, 32))
SHIFT(shl_b64, u64, "l", "shl.b64 %0, %1, %2;", shl(a, b, 64))
SHIFT(shr_b16, u16, "h", "shr.b16 %0, %1, %2;", shr_u(a, b, 16))
SHIFT(shr_u16, u16, "h", "shr.u16 %0, %1, %2;", shr_u(a, b, 16))
SHIFT(shr_s16, u16, "h", "shr.s16 %0, %1, %2;", shr_s(a, b, 16))
SHIFT(shr_b32, u32, "r", "shr.b32 %0, %1, %2;", shr_u(a, b, 32))
SHIFT(shr_u32, u32, "r", "shr.u32 %0, %1, %2;", shr_u(a, b, 32))
SHIFT(shr_s32, u32, "r", "shr.s32 %0, %1, %2;", shr_s(a, b, 32))
SHIFT(shr_b64, u64, "l", "shr.b64 %0, %1, %2;", shr_u(a, b, 64))
SHIFT(shr_u64, u64, "l", "shr.u64 %0, %1, %2;", shr_u(a, b, 64))
SHIFT(shr_s64, u64, "l", "shr.s64 %0, %1, %2;", shr_s(a, b, 64))

/* Values in a, shift counts (any 32-bit value, small ones most) in b. */
static inputs shift_inputs(int bits)
{
	inputs in = corner_inputs(int_corners, bits);

	for (size_t i = 0; i < in.size(); i++) {
		in.b[i] &= 0xffffffff;
		if (i % 3 == 0)
			in.b[i] %= 70;
	}
	return in;
}

int main()
{
	inputs i16 = shift_inputs(16), i32 = shift_inputs(32), i64 = shift_inputs(64);

	RUN(shl_b16, i16);
	RUN(shl_b32, i32);
	RUN(shl_b64, i64);
	RUN(shr_b16, i16);
	RUN(shr_u16, i16);
	RUN(shr_s16, i16);
	RUN(shr_b32, i32);
	RUN(shr_u32, i32);
	RUN(shr_s32, i32);
	RUN(shr_b64, i64);
	RUN(shr_u64, i64);
	RUN(shr_s64, i64);
	return conf_verdict("int_shift");
}
