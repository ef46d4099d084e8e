/*
 * int_arith.cu - conformance of integer add, sub, mul.lo/.hi/.wide, mad,
 * neg and abs at 16, 32 and 64 bits, signed and unsigned, with .sat where
 * the ISA has it.  PTX integer arithmetic wraps (two's complement) except
 * under .sat, which clamps to MININT..MAXINT of the operation's width.
 */
#include "conf.h"

#define M16 0xffffull
#define M32 0xffffffffull

static u64 sat32(long long v)
{
	if (v > INT32_MAX)
		v = INT32_MAX;
	if (v < INT32_MIN)
		v = INT32_MIN;
	return (u32)v;
}

/* High half of the 2n-bit product of two n-bit values. */
static u64 mulhi_u(u64 a, u64 b, int n)
{
	return (u64)(((unsigned __int128)a * b) >> n) & width_mask(n);
}

static u64 mulhi_s(u64 a, u64 b, int n)
{
	return (u64)(((__int128)sx(a, n) * sx(b, n)) >> n) & width_mask(n);
}

static u64 wide_s(u64 a, u64 b, int n)
{
	return (u64)(sx(a, n) * sx(b, n)) & width_mask(2 * n);
}

CONF_OP(add_u16, u16, "h", u16, "h", "add.u16 %0, %1, %2;", (a + b) & M16)
CONF_OP(add_s16, u16, "h", u16, "h", "add.s16 %0, %1, %2;", (a + b) & M16)
CONF_OP(add_u32, u32, "r", u32, "r", "add.u32 %0, %1, %2;", (a + b) & M32)
CONF_OP(add_s32, u32, "r", u32, "r", "add.s32 %0, %1, %2;", (a + b) & M32)
CONF_OP(add_sat_s32, u32, "r", u32, "r", "add.sat.s32 %0, %1, %2;", sat32(sx(a, 32) + sx(b, 32)))
CONF_OP(add_u64, u64, "l", u64, "l", "add.u64 %0, %1, %2;", a + b)
CONF_OP(add_s64, u64, "l", u64, "l", "add.s64 %0, %1, %2;", a + b)
CONF_OP(sub_u16, u16, "h", u16, "h", "sub.u16 %0, %1, %2;", (a - b) & M16)
CONF_OP(sub_s32, u32, "r", u32, "r", "sub.s32 %0, %1, %2;", (a - b) & M32)
CONF_OP(sub_sat_s32, u32, "r", u32, "r", "sub.sat.s32 %0, %1, %2;", sat32(sx(a, 32) - sx(b, 32)))
CONF_OP(sub_u64, u64, "l", u64, "l", "sub.u64 %0, %1, %2;", a - b)
CONF_OP(mul_lo_u16, u16, "h", u16, "h", "mul.lo.u16 %0, %1, %2;", (a * b) & M16)
CONF_OP(mul_lo_s16, u16, "h", u16, "h", "mul.lo.s16 %0, %1, %2;", (a * b) & M16)
CONF_OP(mul_lo_u32, u32, "r", u32, "r", "mul.lo.u32 %0, %1, %2;", (a * b) & M32)
CONF_OP(mul_lo_s32, u32, "r", u32, "r", "mul.lo.s32 %0, %1, %2;", (a * b) & M32)
CONF_OP(mul_lo_u64, u64, "l", u64, "l", "mul.lo.u64 %0, %1, %2;", a * b)
CONF_OP(mul_hi_u16, u16, "h", u16, "h", "mul.hi.u16 %0, %1, %2;", mulhi_u(a, b, 16))
CONF_OP(mul_hi_s16, u16, "h", u16, "h", "mul.hi.s16 %0, %1, %2;", mulhi_s(a, b, 16))
CONF_OP(mul_hi_u32, u32, "r", u32, "r", "mul.hi.u32 %0, %1, %2;", mulhi_u(a, b, 32))
CONF_OP(mul_hi_s32, u32, "r", u32, "r", "mul.hi.s32 %0, %1, %2;", mulhi_s(a, b, 32))
CONF_OP(mul_hi_u64, u64, "l", u64, "l", "mul.hi.u64 %0, %1, %2;", mulhi_u(a, b, 64))
CONF_OP(mul_hi_s64, u64, "l", u64, "l", "mul.hi.s64 %0, %1, %2;", mulhi_s(a, b, 64))
CONF_OP(mul_wide_u16, u32, "r", u16, "h", "mul.wide.u16 %0, %1, %2;", a * b)
CONF_OP(mul_wide_s16, u32, "r", u16, "h", "mul.wide.s16 %0, %1, %2;", wide_s(a, b, 16))
CONF_OP(mul_wide_u32, u64, "l", u32, "r", "mul.wide.u32 %0, %1, %2;", a * b)
CONF_OP(mul_wide_s32, u64, "l", u32, "r", "mul.wide.s32 %0, %1, %2;", wide_s(a, b, 32))
CONF_OP(mad_lo_s16, u16, "h", u16, "h", "mad.lo.s16 %0, %1, %2, %3;", (a * b + c) & M16)
CONF_OP(mad_lo_u32, u32, "r", u32, "r", "mad.lo.u32 %0, %1, %2, %3;", (a * b + c) & M32)
CONF_OP(mad_lo_s32, u32, "r", u32, "r", "mad.lo.s32 %0, %1, %2, %3;", (a * b + c) & M32)
CONF_OP(mad_hi_u32, u32, "r", u32, "r", "mad.hi.u32 %0, %1, %2, %3;", (mulhi_u(a, b, 32) + c) & M32)
CONF_OP(mad_hi_s32, u32, "r", u32, "r", "mad.hi.s32 %0, %1, %2, %3;", (mulhi_s(a, b, 32) + c) & M32)
CONF_OP(mad_lo_u64, u64, "l", u64, "l", "mad.lo.u64 %0, %1, %2, %3;", a * b + c)
CONF_OP(mad_hi_u64, u64, "l", u64, "l", "mad.hi.u64 %0, %1, %2, %3;", mulhi_u(a, b, 64) + c)
CONF_OP(mad_hi_s64, u64, "l", u64, "l", "mad.hi.s64 %0, %1, %2, %3;", mulhi_s(a, b, 64) + c)
CONF_OP(neg_s32, u32, "r", u32, "r", "neg.s32 %0, %1;", (0 - a) & M32)
CONF_OP(neg_s64, u64, "l", u64, "l", "neg.s64 %0, %1;", 0 - a)
CONF_OP(abs_s32, u32, "r", u32, "r", "abs.s32 %0, %1;", sx(a, 32) < 0 ? (0 - a) & M32 : a)
CONF_OP(abs_s16, u16, "h", u16, "h", "abs.s16 %0, %1;", sx(a, 16) < 0 ? (0 - a) & M16 : a)
CONF_OP(abs_s64, u64, "l", u64, "l", "abs.s64 %0, %1;", (long long)a < 0 ? 0 - a : a)

/* mad.wide: the 2n-bit product plus a 2n-bit addend. */
CONF_OPX(mad_wide_s32, u64, "l", u32, "r", u32, "r", u64, "l", "mad.wide.s32 %0, %1, %2, %3;",
	 (u64)(sx(a & M32, 32) * sx(b & M32, 32)) + c)
CONF_OPX(mad_wide_u32, u64, "l", u32, "r", u32, "r", u64, "l", "mad.wide.u32 %0, %1, %2, %3;",
	 (a & M32) * (b & M32) + c)

CONF_OP(mad_hi_sat_s32, u32, "r", u32, "r", "mad.hi.sat.s32 %0, %1, %2, %3;",
	sat32(sx(mulhi_s(a, b, 32), 32) + sx(c, 32)))

int main()
{
	inputs i16 = corner_inputs(int_corners, 16);
	inputs i32 = corner_inputs(int_corners, 32);
	inputs i64 = corner_inputs(int_corners, 64);

	RUN(add_u16, i16);
	RUN(add_s16, i16);
	RUN(add_u32, i32);
	RUN(add_s32, i32);
	RUN(add_sat_s32, i32);
	RUN(add_u64, i64);
	RUN(add_s64, i64);
	RUN(sub_u16, i16);
	RUN(sub_s32, i32);
	RUN(sub_sat_s32, i32);
	RUN(sub_u64, i64);
	RUN(mul_lo_u16, i16);
	RUN(mul_lo_s16, i16);
	RUN(mul_lo_u32, i32);
	RUN(mul_lo_s32, i32);
	RUN(mul_lo_u64, i64);
	RUN(mul_hi_u16, i16);
	RUN(mul_hi_s16, i16);
	RUN(mul_hi_u32, i32);
	RUN(mul_hi_s32, i32);
	RUN(mul_hi_u64, i64);
	RUN(mul_hi_s64, i64);
	RUN(mul_wide_u16, i16);
	RUN(mul_wide_s16, i16);
	RUN(mul_wide_u32, i32);
	RUN(mul_wide_s32, i32);
	RUN(mad_lo_s16, i16);
	RUN(mad_lo_u32, i32);
	RUN(mad_lo_s32, i32);
	RUN(mad_hi_u32, i32);
	RUN(mad_hi_s32, i32);
	RUN(mad_lo_u64, i64);
	RUN(mad_hi_u64, i64);
	RUN(mad_hi_s64, i64);
	RUN(neg_s32, i32);
	RUN(neg_s64, i64);
	RUN(abs_s16, i16);
	RUN(abs_s32, i32);
	RUN(abs_s64, i64);
	RUN(mad_wide_s32, corner_inputs(int_corners, 64));
	RUN(mad_wide_u32, corner_inputs(int_corners, 64));
	RUN(mad_hi_sat_s32, corner_inputs(int_corners, 32));
	return conf_verdict("int_arith");
}
