/*
 * float_arith.cu - conformance of f32 and f64 add, sub, mul, fma and div
 * in the four IEEE rounding modes (.rn .rz .rm .rp), with .ftz (subnormal
 * inputs and results become zero of the same sign) and .sat (clamp to
 * [0, 1], NaN to +0), and abs/neg, against float_ref.h.  A NaN result may
 * be any NaN.  The f64 fmas in the directed modes also get operands
 * whose product nearly cancels c, so that the rounding hangs on the
 * product's low bits, with results down to the subnormals.
 */
#include "float_ref.h"

F32(add_rn_f32, "add.rn.f32 %0, %1, %2;", f32op(ADD, RN, a, b, c))
F32(add_rz_f32, "add.rz.f32 %0, %1, %2;", f32op(ADD, RZ, a, b, c))
F32(add_rp_f32, "add.rp.f32 %0, %1, %2;", f32op(ADD, RP, a, b, c))
F32(add_rn_ftz_f32, "add.rn.ftz.f32 %0, %1, %2;", f32op_ftz(ADD, RN, a, b, c))
F32(add_rn_sat_f32, "add.rn.sat.f32 %0, %1, %2;", sat32(f32op(ADD, RN, a, b, c)))
F32(sub_rn_f32, "sub.rn.f32 %0, %1, %2;", f32op(SUB, RN, a, b, c))
F32(sub_rp_ftz_f32, "sub.rp.ftz.f32 %0, %1, %2;", f32op_ftz(SUB, RP, a, b, c))
F32(mul_rn_f32, "mul.rn.f32 %0, %1, %2;", f32op(MUL, RN, a, b, c))
F32(mul_rz_f32, "mul.rz.f32 %0, %1, %2;", f32op(MUL, RZ, a, b, c))
F32(mul_rm_f32, "mul.rm.f32 %0, %1, %2;", f32op(MUL, RM, a, b, c))
F32(mul_rp_f32, "mul.rp.f32 %0, %1, %2;", f32op(MUL, RP, a, b, c))
F32(mul_rn_ftz_f32, "mul.rn.ftz.f32 %0, %1, %2;", f32op_ftz(MUL, RN, a, b, c))
F32(mul_rz_sat_f32, "mul.rz.sat.f32 %0, %1, %2;", sat32(f32op(MUL, RZ, a, b, c)))
F32(fma_rn_f32, "fma.rn.f32 %0, %1, %2, %3;", f32op(FMA, RN, a, b, c))
F32(fma_rz_f32, "fma.rz.f32 %0, %1, %2, %3;", f32op(FMA, RZ, a, b, c))
F32(fma_rp_f32, "fma.rp.f32 %0, %1, %2, %3;", f32op(FMA, RP, a, b, c))
F32(fma_rn_ftz_f32, "fma.rn.ftz.f32 %0, %1, %2, %3;", f32op_ftz(FMA, RN, a, b, c))
F32(fma_rn_sat_f32, "fma.rn.sat.f32 %0, %1, %2, %3;", sat32(f32op(FMA, RN, a, b, c)))
F32(div_rn_f32, "div.rn.f32 %0, %1, %2;", f32op(DIV, RN, a, b, c))
F32(div_rz_f32, "div.rz.f32 %0, %1, %2;", f32op(DIV, RZ, a, b, c))
F32(div_rm_f32, "div.rm.f32 %0, %1, %2;", f32op(DIV, RM, a, b, c))
F32(div_rp_f32, "div.rp.f32 %0, %1, %2;", f32op(DIV, RP, a, b, c))
F32(div_rn_ftz_f32, "div.rn.ftz.f32 %0, %1, %2;", f32op_ftz(DIV, RN, a, b, c))
F32(abs_f32, "abs.f32 %0, %1;", a & 0x7fffffff)
F32(neg_f32, "neg.f32 %0, %1;", a ^ 0x80000000)
F32(abs_ftz_f32, "abs.ftz.f32 %0, %1;", ftz32(a) & 0x7fffffff)
F64(add_rn_f64, "add.rn.f64 %0, %1, %2;", f64op(ADD, RN, a, b, c))
F64(mul_rn_f64, "mul.rn.f64 %0, %1, %2;", f64op(MUL, RN, a, b, c))
F64(fma_rn_f64, "fma.rn.f64 %0, %1, %2, %3;", f64op(FMA, RN, a, b, c))
F64(div_rn_f64, "div.rn.f64 %0, %1, %2;", f64op(DIV, RN, a, b, c))
F64(abs_f64, "abs.f64 %0, %1;", a & 0x7fffffffffffffffull)
F64(neg_f64, "neg.f64 %0, %1;", a ^ 0x8000000000000000ull)

F32(add_rm_f32, "add.rm.f32 %0, %1, %2;", f32op(ADD, RM, a, b, c))
F32(sub_rm_f32, "sub.rm.f32 %0, %1, %2;", f32op(SUB, RM, a, b, c))
F32(fma_rm_f32, "fma.rm.f32 %0, %1, %2, %3;", f32op(FMA, RM, a, b, c))
F64(add_rz_f64, "add.rz.f64 %0, %1, %2;", f64op(ADD, RZ, a, b, c))
F64(add_rm_f64, "add.rm.f64 %0, %1, %2;", f64op(ADD, RM, a, b, c))
F64(add_rp_f64, "add.rp.f64 %0, %1, %2;", f64op(ADD, RP, a, b, c))
F64(sub_rz_f64, "sub.rz.f64 %0, %1, %2;", f64op(SUB, RZ, a, b, c))
F64(mul_rz_f64, "mul.rz.f64 %0, %1, %2;", f64op(MUL, RZ, a, b, c))
F64(mul_rm_f64, "mul.rm.f64 %0, %1, %2;", f64op(MUL, RM, a, b, c))
F64(mul_rp_f64, "mul.rp.f64 %0, %1, %2;", f64op(MUL, RP, a, b, c))
F64(div_rz_f64, "div.rz.f64 %0, %1, %2;", f64op(DIV, RZ, a, b, c))
F64(div_rm_f64, "div.rm.f64 %0, %1, %2;", f64op(DIV, RM, a, b, c))
F64(div_rp_f64, "div.rp.f64 %0, %1, %2;", f64op(DIV, RP, a, b, c))
F64(fma_rz_f64, "fma.rz.f64 %0, %1, %2, %3;", f64op(FMA, RZ, a, b, c))
F64(fma_rm_f64, "fma.rm.f64 %0, %1, %2, %3;", f64op(FMA, RM, a, b, c))
F64(fma_rp_f64, "fma.rp.f64 %0, %1, %2, %3;", f64op(FMA, RP, a, b, c))
F64(mad_rm_f64, "mad.rm.f64 %0, %1, %2, %3;", f64op(FMA, RM, a, b, c))

/* a*b + c where c is minus the product rounded to nearest, give or take
 * a few units, at magnitudes from huge to subnormal: the exact result is
 * the product's rounding error and its neighbours. */
static inputs cancelling(int n)
{
	inputs in;

	for (int i = 0; i < n; i++) {
		int scale = (int)(rnd() % 2100) - 1075;
		double a = ldexp(1 + (double)(rnd() >> 12) / 4503599627370496.0, scale / 2);
		double b = ldexp(1 + (double)(rnd() >> 12) / 4503599627370496.0, scale - scale / 2);
		double c = -(a * b);
		u64 cb = bits64(c) + (rnd() % 5) - 2;

		if (rnd() & 1)
			a = -a;
		if (rnd() & 1)
			cb ^= 0x8000000000000000ull;
		in.add(bits64(a), bits64(b), (rnd() & 3) ? cb : bits64(c));
	}
	return in;
}

int main()
{
	inputs s = corner_inputs(f32_corners, 32, 6000);
	inputs d = corner_inputs(f64_corners, 64, 6000);

	RUN(add_rn_f32, s, same_f32);
	RUN(add_rz_f32, s, same_f32);
	RUN(add_rp_f32, s, same_f32);
	RUN(add_rn_ftz_f32, s, same_f32);
	RUN(add_rn_sat_f32, s, same_f32);
	RUN(sub_rn_f32, s, same_f32);
	RUN(sub_rp_ftz_f32, s, same_f32);
	RUN(mul_rn_f32, s, same_f32);
	RUN(mul_rz_f32, s, same_f32);
	RUN(mul_rm_f32, s, same_f32);
	RUN(mul_rp_f32, s, same_f32);
	RUN(mul_rn_ftz_f32, s, same_f32);
	RUN(mul_rz_sat_f32, s, same_f32);
	RUN(fma_rn_f32, s, same_f32);
	RUN(fma_rz_f32, s, same_f32);
	RUN(fma_rp_f32, s, same_f32);
	RUN(fma_rn_ftz_f32, s, same_f32);
	RUN(fma_rn_sat_f32, s, same_f32);
	RUN(div_rn_f32, s, same_f32);
	RUN(div_rz_f32, s, same_f32);
	RUN(div_rm_f32, s, same_f32);
	RUN(div_rp_f32, s, same_f32);
	RUN(div_rn_ftz_f32, s, same_f32);
	RUN(abs_f32, s, same_f32);
	RUN(neg_f32, s, same_f32);
	RUN(abs_ftz_f32, s, same_f32);
	RUN(add_rn_f64, d, same_f64);
	RUN(mul_rn_f64, d, same_f64);
	RUN(fma_rn_f64, d, same_f64);
	RUN(div_rn_f64, d, same_f64);
	RUN(abs_f64, d, same_f64);
	RUN(neg_f64, d, same_f64);
	RUN(add_rm_f32, s, same_f32);
	RUN(sub_rm_f32, s, same_f32);
	RUN(fma_rm_f32, s, same_f32);
	RUN(add_rz_f64, d, same_f64);
	RUN(add_rm_f64, d, same_f64);
	RUN(add_rp_f64, d, same_f64);
	RUN(sub_rz_f64, d, same_f64);
	RUN(mul_rz_f64, d, same_f64);
	RUN(mul_rm_f64, d, same_f64);
	RUN(mul_rp_f64, d, same_f64);
	RUN(div_rz_f64, d, same_f64);
	RUN(div_rm_f64, d, same_f64);
	RUN(div_rp_f64, d, same_f64);
	inputs f = corner_inputs(f64_corners, 64, 6000), x = cancelling(20000);
	RUN(fma_rz_f64, f, same_f64);
	RUN(fma_rm_f64, f, same_f64);
	RUN(fma_rp_f64, f, same_f64);
	RUN(mad_rm_f64, f, same_f64);
	RUN(fma_rz_f64, x, same_f64);
	RUN(fma_rm_f64, x, same_f64);
	RUN(fma_rp_f64, x, same_f64);
	return conf_verdict("float_arith");
}
