/*
 * half_ftz.cu - add.ftz.f16: subnormal halves in and out become signed
 * zeros.
 */
#include "half_ref.h"

H(add_ftz_f16, "add.ftz.f16 %0, %1, %2;", hftz(h(hv(hftz(a)) + hv(hftz(b)))))

int main()
{
	RUN(add_ftz_f16, corner_inputs(half_corners, 16, 20000), same_f16);
	return conf_verdict("half_ftz");
}
