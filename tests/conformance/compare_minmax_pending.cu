/*
 * compare_minmax_pending.cu - float min and max, which the engine gets
 * wrong today in two ways (compare_ref.h has the ISA's rule):
 * - zeros of both signs: the ISA takes -0 < +0, so min(+0, -0) = -0 and
 *   max(-0, +0) = +0; the engine gives +0 for min and -0 for max;
 * - a signalling NaN operand: the ISA returns the other operand
 *   (min.f32 0x0a8a8898, 0x7fb54b19 = 0x0a8a8898); the engine returns a
 *   quiet NaN, as C's fminf does.
 * Moves into compare.cu when it passes.
 */
// pending: min/max.f32/.f64 wrong on (+0, -0) and on signalling NaN operands
#include "compare_ref.h"

MINMAX_F(min_f32, "min.f32 %0, %1, %2;", float, "f", fminmax(a, b, false, false, false))
MINMAX_F(max_f32, "max.f32 %0, %1, %2;", float, "f", fminmax(a, b, false, true, false))
MINMAX_F(min_ftz_f32, "min.ftz.f32 %0, %1, %2;", float, "f",
	 fminmax(ftz32(a), ftz32(b), false, false, false))
MINMAX_F(max_ftz_f32, "max.ftz.f32 %0, %1, %2;", float, "f",
	 fminmax(ftz32(a), ftz32(b), false, true, false))
MINMAX_F(min_f64, "min.f64 %0, %1, %2;", double, "d", fminmax(a, b, true, false, false))
MINMAX_F(max_f64, "max.f64 %0, %1, %2;", double, "d", fminmax(a, b, true, true, false))

int main()
{
	inputs s = corner_inputs(f32_corners, 32), d = corner_inputs(f64_corners, 64);

	RUN(min_f32, s, same_f32);
	RUN(max_f32, s, same_f32);
	RUN(min_ftz_f32, s, same_f32);
	RUN(max_ftz_f32, s, same_f32);
	RUN(min_f64, d, same_f64);
	RUN(max_f64, d, same_f64);
	return conf_verdict("compare_minmax_pending");
}
