/*
 * int_arith_pending.cu - integer arithmetic the engine refuses today:
 * mad.hi.sat.s32, the saturating high-half multiply-add (d = clamp(
 * (a*b)<63..32> + c) to MININT..MAXINT).  Moves into int_arith.cu when
 * it passes.
 */
// pending: mad.hi.sat.s32 is refused by the translator ("modifier")
#include "conf.h"

static u64 sat32(long long v)
{
	if (v > INT32_MAX)
		v = INT32_MAX;
	if (v < INT32_MIN)
		v = INT32_MIN;
	return (u32)v;
}

static u64 mulhi_s32(u64 a, u64 b)
{
	return (u64)((sx(a, 32) * sx(b, 32)) >> 32) & 0xffffffffull;
}

CONF_OP(mad_hi_sat_s32, u32, "r", u32, "r", "mad.hi.sat.s32 %0, %1, %2, %3;",
	sat32(sx(mulhi_s32(a, b), 32) + sx(c, 32)))

int main()
{
	RUN(mad_hi_sat_s32, corner_inputs(int_corners, 32));
	return conf_verdict("int_arith_pending");
}
