/*
 * compare_minmax_nan.cu - min.NaN.f32 and max.NaN.f32 (sm_80): NaN when
 * either operand is NaN, otherwise min/max with -0 < +0.
 */
#include "compare_ref.h"

MINMAX_F(min_NaN_f32, "min.NaN.f32 %0, %1, %2;", float, "f", fminmax(a, b, false, false, true))
MINMAX_F(max_NaN_f32, "max.NaN.f32 %0, %1, %2;", float, "f", fminmax(a, b, false, true, true))

int main()
{
	inputs s = corner_inputs(f32_corners, 32);

	RUN(min_NaN_f32, s, same_f32);
	RUN(max_NaN_f32, s, same_f32);
	return conf_verdict("compare_minmax_nan");
}
