/*
 * half_minmax.cu - min/max on .f16 and .bf16 against the ISA's rule: -0
 * counts as less than +0, so min.f16 0x8000, 0x0000 = 0x8000 and
 * max.f16 0x0000, 0x8000 = 0x0000.
 */
#include "half_ref.h"

H(min_f16, "min.f16 %0, %1, %2;", hminmax(a, b, F16, false))
H(max_f16, "max.f16 %0, %1, %2;", hminmax(a, b, F16, true))
H(min_bf16, "min.bf16 %0, %1, %2;", hminmax(a, b, BF16, false))
H(max_bf16, "max.bf16 %0, %1, %2;", hminmax(a, b, BF16, true))

int main()
{
	inputs hh = corner_inputs(half_corners, 16, 20000);

	RUN(min_f16, hh, same_f16);
	RUN(max_f16, hh, same_f16);
	RUN(min_bf16, hh, same_bf16);
	RUN(max_bf16, hh, same_bf16);
	return conf_verdict("half_minmax");
}
