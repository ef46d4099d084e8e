/*
 * half.cu - conformance of half precision: add/sub/mul/fma.rn on .f16
 * (with .sat), neg/abs on .f16, fma.rn on .bf16, and cvt between f32/f64
 * and f16/bf16 in both directions.  The host reference computes the
 * exact result in double (sums and products of halves are exact there;
 * fma is rounded to odd) and rounds it once to the 16-bit format
 * (half_ref.h).  A NaN result may be any NaN.  min/max and .ftz, which
 * the engine gets wrong or refuses today, are in half_*_pending.cu.
 */
#include "half_ref.h"

H(add_f16, "add.f16 %0, %1, %2;", h(hv(a) + hv(b)))
H(sub_f16, "sub.rn.f16 %0, %1, %2;", h(hv(a) - hv(b)))
H(mul_f16, "mul.rn.f16 %0, %1, %2;", h(hv(a) * hv(b)))
H(fma_rn_f16, "fma.rn.f16 %0, %1, %2, %3;", h(fma_odd(hv(a), hv(b), hv(c))))
H(mul_sat_f16, "mul.sat.f16 %0, %1, %2;", hsat(h(hv(a) * hv(b))))
H(fma_rn_sat_f16, "fma.rn.sat.f16 %0, %1, %2, %3;", hsat(h(fma_odd(hv(a), hv(b), hv(c)))))
H(neg_f16, "neg.f16 %0, %1;", a ^ 0x8000)
H(abs_f16, "abs.f16 %0, %1;", a & 0x7fff)
H(fma_rn_bf16, "fma.rn.bf16 %0, %1, %2, %3;", encode(fma_odd(bv(a), bv(b), bv(c)), BF16))
CONF_OP(cvt_rn_f16_f32, u16, "h", float, "f", "cvt.rn.f16.f32 %0, %1;", h(f32(a)))
CONF_OP(cvt_rn_f16_f64, u16, "h", double, "d", "cvt.rn.f16.f64 %0, %1;", h(f64(a)))
CONF_OP(cvt_f32_f16, float, "f", u16, "h", "cvt.f32.f16 %0, %1;", bits32((float)hv(a)))
CONF_OP(cvt_f64_f16, double, "d", u16, "h", "cvt.f64.f16 %0, %1;", bits64(hv(a)))
CONF_OP(cvt_rn_bf16_f32, u16, "h", float, "f", "cvt.rn.bf16.f32 %0, %1;", encode(f32(a), BF16))

int main()
{
	inputs hh = corner_inputs(half_corners, 16, 20000);
	inputs s = corner_inputs(f32_corners, 32, 20000), d = corner_inputs(f64_corners, 64, 20000);

	RUN(add_f16, hh, same_f16);
	RUN(sub_f16, hh, same_f16);
	RUN(mul_f16, hh, same_f16);
	RUN(fma_rn_f16, hh, same_f16);
	RUN(mul_sat_f16, hh, same_f16);
	RUN(fma_rn_sat_f16, hh, same_f16);
	RUN(neg_f16, hh, same_f16);
	RUN(abs_f16, hh, same_f16);
	RUN(fma_rn_bf16, hh, same_bf16);
	RUN(cvt_rn_f16_f32, s, same_f16);
	RUN(cvt_rn_f16_f64, d, same_f16);
	RUN(cvt_f32_f16, hh, same_f32);
	RUN(cvt_f64_f16, hh, same_f64);
	RUN(cvt_rn_bf16_f32, s, same_bf16);
	return conf_verdict("half");
}
