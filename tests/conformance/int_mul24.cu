/*
 * int_mul24.cu - mul24.lo/.hi and mad24.lo/.hi on .u32 and .s32.  The ISA
 * multiplies the low 24 bits of each operand (sign-extended from bit 23
 * for .s32) into a 48-bit product; .lo keeps bits 31..0, .hi bits 47..16.
 */
#include "conf.h"

#define M32 0xffffffffull

static u64 s24(u64 v)
{
	return (u64)sx(v, 24);
}

static u64 u24(u64 v)
{
	return v & 0xffffff;
}

CONF_OP(mul24_lo_u32, u32, "r", u32, "r", "mul24.lo.u32 %0, %1, %2;", (u24(a) * u24(b)) & M32)
CONF_OP(mul24_hi_u32, u32, "r", u32, "r", "mul24.hi.u32 %0, %1, %2;", ((u24(a) * u24(b)) >> 16) & M32)
CONF_OP(mul24_lo_s32, u32, "r", u32, "r", "mul24.lo.s32 %0, %1, %2;", (s24(a) * s24(b)) & M32)
CONF_OP(mul24_hi_s32, u32, "r", u32, "r", "mul24.hi.s32 %0, %1, %2;",
	(u64)((long long)(s24(a) * s24(b)) >> 16) & M32)
CONF_OP(mad24_lo_u32, u32, "r", u32, "r", "mad24.lo.u32 %0, %1, %2, %3;", (u24(a) * u24(b) + c) & M32)
CONF_OP(mad24_lo_s32, u32, "r", u32, "r", "mad24.lo.s32 %0, %1, %2, %3;", (s24(a) * s24(b) + c) & M32)
CONF_OP(mad24_hi_u32, u32, "r", u32, "r", "mad24.hi.u32 %0, %1, %2, %3;",
	(((u24(a) * u24(b)) >> 16) + c) & M32)

int main()
{
	inputs i32 = corner_inputs(int_corners, 32);

	RUN(mul24_lo_u32, i32);
	RUN(mul24_hi_u32, i32);
	RUN(mul24_lo_s32, i32);
	RUN(mul24_hi_s32, i32);
	RUN(mad24_lo_u32, i32);
	RUN(mad24_lo_s32, i32);
	RUN(mad24_hi_u32, i32);
	return conf_verdict("int_mul24");
}
