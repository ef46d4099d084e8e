/*
 * int_madc_pending.cu - multi-word multiply-add: mad.lo.cc.u32 carrying
 * into madc.hi.u32 / madc.hi.cc.u32, which the engine refuses today
 * ("unsupported instruction 'mad.lo.cc.u32' (modifier '.cc')").  The
 * reference is the 64-bit (a * b) + c and its carry out.  Moves into
 * int_misc.cu when it passes.
 */
// pending: mad.lo.cc.u32 / madc.hi(.cc).u32 are refused by the translator
#include "conf.h"

#define M32 0xffffffffull

/* (a * b) + c for 32-bit a, b and 64-bit c in 32-bit words: mad.lo.cc
 * carries into madc.hi. */
CONF_OPX(madc_chain, u64, "l", u32, "r", u32, "r", u64, "l",
	 "{ .reg .u32 cl, ch, l, h; mov.b64 {cl, ch}, %3;"
	 " mad.lo.cc.u32 l, %1, %2, cl; madc.hi.u32 h, %1, %2, ch; mov.b64 %0, {l, h}; }",
	 (a & M32) * (b & M32) + c)
/* The carry out of madc.hi.cc into a third word. */
CONF_OPX(madc_carry, u32, "r", u32, "r", u32, "r", u64, "l",
	 "{ .reg .u32 cl, ch, l, h; mov.b64 {cl, ch}, %3;"
	 " mad.lo.cc.u32 l, %1, %2, cl; madc.hi.cc.u32 h, %1, %2, ch; addc.u32 %0, 0, 0; }",
	 (u64)(((unsigned __int128)((a & M32) * (b & M32)) + c) >> 64))

int main()
{
	inputs i64 = corner_inputs(int_corners, 64);

	RUN(madc_chain, i64);
	RUN(madc_carry, i64);
	return conf_verdict("int_madc_pending");
}
