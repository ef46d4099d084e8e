/*
 * int_bits_bfe_pending.cu - bfe.s32 and bfe.s64, which the engine gets
 * wrong today when the length is 0: the ISA's sign bit is 0 when len == 0
 * ("sbit = (.u32 || .u64 || len == 0) ? 0 : a[min(pos+len-1, msb)]"), so
 * the result is 0, but the engine sign-fills from a[pos-1].  Moves into
 * int_bits.cu when it passes.
 */
// pending: bfe.s32/.s64 with len 0 gives all ones instead of 0
#include "int_bits_ref.h"

CONF_OP(bfe_s32, u32, "r", u32, "r", "bfe.s32 %0, %1, %2, %3;", bfe(a, b, c, 32, true))
CONF_OPX(bfe_s64, u64, "l", u64, "l", u32, "r", u32, "r", "bfe.s64 %0, %1, %2, %3;",
	 bfe(a, b, c, 64, true))

int main()
{
	RUN(bfe_s32, field_inputs(32));
	RUN(bfe_s64, field_inputs(64));
	return conf_verdict("int_bits_bfe_pending");
}
