/*
 * int_dp4a.cu - the integer dot products dp4a (four byte products) and
 * dp2a.lo/.hi (two 16-bit by byte products) with every signedness of a
 * and b.
 */
#include "conf.h"

#define M32 0xffffffffull

/* Element i (of size bits) of v, signed or not. */
static long long elem(u64 v, int i, int bits, bool sgn)
{
	u64 e = (v >> (i * bits)) & width_mask(bits);
	return sgn ? sx(e, bits) : (long long)e;
}

static u64 dp4a(u64 a, u64 b, u64 c, bool sa, bool sb)
{
	long long s = 0;
	for (int i = 0; i < 4; i++)
		s += elem(a, i, 8, sa) * elem(b, i, 8, sb);
	return (c + (u64)s) & M32;
}

/* dp2a: the two 16-bit halves of a times bytes 0,1 (.lo) or 2,3 (.hi) of b. */
static u64 dp2a(u64 a, u64 b, u64 c, bool sa, bool sb, bool hi)
{
	long long s = 0;
	for (int i = 0; i < 2; i++)
		s += elem(a, i, 16, sa) * elem(b, i + (hi ? 2 : 0), 8, sb);
	return (c + (u64)s) & M32;
}

CONF_OP(dp4a_u32_u32, u32, "r", u32, "r", "dp4a.u32.u32 %0, %1, %2, %3;", dp4a(a, b, c, false, false))
CONF_OP(dp4a_s32_s32, u32, "r", u32, "r", "dp4a.s32.s32 %0, %1, %2, %3;", dp4a(a, b, c, true, true))
CONF_OP(dp4a_u32_s32, u32, "r", u32, "r", "dp4a.u32.s32 %0, %1, %2, %3;", dp4a(a, b, c, false, true))
CONF_OP(dp4a_s32_u32, u32, "r", u32, "r", "dp4a.s32.u32 %0, %1, %2, %3;", dp4a(a, b, c, true, false))
CONF_OP(dp2a_lo_u32_u32, u32, "r", u32, "r", "dp2a.lo.u32.u32 %0, %1, %2, %3;", dp2a(a, b, c, false, false, false))
CONF_OP(dp2a_hi_s32_s32, u32, "r", u32, "r", "dp2a.hi.s32.s32 %0, %1, %2, %3;", dp2a(a, b, c, true, true, true))
CONF_OP(dp2a_lo_s32_u32, u32, "r", u32, "r", "dp2a.lo.s32.u32 %0, %1, %2, %3;", dp2a(a, b, c, true, false, false))
CONF_OP(dp2a_hi_u32_s32, u32, "r", u32, "r", "dp2a.hi.u32.s32 %0, %1, %2, %3;", dp2a(a, b, c, false, true, true))

int main()
{
	inputs i32 = corner_inputs(int_corners, 32);

	RUN(dp4a_u32_u32, i32);
	RUN(dp4a_s32_s32, i32);
	RUN(dp4a_u32_s32, i32);
	RUN(dp4a_s32_u32, i32);
	RUN(dp2a_lo_u32_u32, i32);
	RUN(dp2a_hi_s32_s32, i32);
	RUN(dp2a_lo_s32_u32, i32);
	RUN(dp2a_hi_u32_s32, i32);
	return conf_verdict("int_dp4a");
}
