/*
 * float_fma64_pending.cu - fma.rz.f64, fma.rm.f64 and fma.rp.f64, which
 * the engine refuses today ("unsupported instruction 'fma.rz.f64' (type)"):
 * the exact a*b+c rounded once in the given mode.  Moves into
 * float_arith.cu when it passes.
 */
// pending: fma.rz/.rm/.rp.f64 are refused by the translator
#include "float_ref.h"

F64(fma_rz_f64, "fma.rz.f64 %0, %1, %2, %3;", f64op(FMA, RZ, a, b, c))
F64(fma_rm_f64, "fma.rm.f64 %0, %1, %2, %3;", f64op(FMA, RM, a, b, c))
F64(fma_rp_f64, "fma.rp.f64 %0, %1, %2, %3;", f64op(FMA, RP, a, b, c))

int main()
{
	inputs d = corner_inputs(f64_corners, 64, 6000);

	RUN(fma_rz_f64, d, same_f64);
	RUN(fma_rm_f64, d, same_f64);
	RUN(fma_rp_f64, d, same_f64);
	return conf_verdict("float_fma64_pending");
}
