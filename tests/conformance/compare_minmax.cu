/*
 * compare_minmax.cu - float min and max against the ISA's rule
 * (compare_ref.h): -0 counts as less than +0, so min(+0, -0) = -0 and
 * max(-0, +0) = +0; a NaN operand, quiet or signalling, yields the other
 * operand (min.f32 0x0a8a8898, 0x7fb54b19 = 0x0a8a8898), where C's fminf
 * would pass a quieted NaN on.
 */
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
	return conf_verdict("compare_minmax");
}
