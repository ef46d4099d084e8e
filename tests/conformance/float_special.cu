/*
 * float_special.cu - conformance of sqrt and rcp (IEEE-rounded in every
 * mode: exact comparison, with .ftz) and of the .approx functions within
 * error bounds taken from the ISA: sqrt.approx and rsqrt.approx (relative
 * 2^-22), rcp.approx (1 ulp), ex2.approx (2 ulp),
 * lg2.approx (absolute 2^-22), sin/cos.approx (absolute 2^-20.9 on
 * [-pi, pi]: we allow 2^-20.5) and tanh.approx (relative 2^-10.987),
 * where an absolute bound also admits one ulp of the result.  Special operands (zeros, infinities, NaN, negative inputs
 * to sqrt and lg2) must give exactly the special result.  Approximate
 * references are computed in double and carried as f64 bits.
 */
#include <cfloat>

#include "float_ref.h"

/* f(x) in double, as f64 bits, for the tolerance comparisons. */
#define APPROX(name, text, expr)                                                \
	CONF_OPX(name, float, "f", float, "f", float, "f", float, "f", text,    \
		 bits64((double)(expr)))

static u64 sqrt32(u64 a, int mode, bool ftz)
{
	u64 r = in_mode(mode, [&] {
		volatile float x = f32(ftz ? ftz32(a) : a);
		return bits32(sqrtf(x));
	});
	return ftz ? ftz32(r) : r;
}

static u64 rcp32(u64 a, int mode, bool ftz)
{
	u64 r = in_mode(mode, [&] {
		volatile float x = f32(ftz ? ftz32(a) : a);
		return bits32(1.0f / x);
	});
	return ftz ? ftz32(r) : r;
}

/* got (f32 bits) against want (f64 bits of the exact value): specials
 * exactly, the rest within rel relative, abs absolute or ulps f32 ulps. */
static bool within(u64 got, u64 want, double rel, double abs_err, double ulps)
{
	float g = f32(got);
	double w = f64(want);

	if (std::isnan(w))
		return std::isnan(g);
	/* Beyond the f32 range the rounded result is an infinity. */
	if (std::isinf((float)w) || std::isinf(g))
		return g == (float)w;
	double err = fabs((double)g - w);
	double ulp = ldexp(1.0, std::max(ilogb(w == 0 ? (double)FLT_MIN : w), -126) - 23);
	return err <= rel * fabs(w) || err <= abs_err || err <= ulps * ulp;
}

static bool rel_2m22(u64 got, u64 want) { return within(got, want, ldexp(1, -22), 0, 1); }
static bool one_ulp(u64 got, u64 want) { return within(got, want, 0, 0, 1); }
static bool two_ulp(u64 got, u64 want) { return within(got, want, 0, 0, 2); }
static bool abs_2m22(u64 got, u64 want) { return within(got, want, 0, ldexp(1, -22), 1); }
static bool abs_2m20(u64 got, u64 want) { return within(got, want, 0, ldexp(1, -20.5), 1); }
static bool rel_2m11(u64 got, u64 want) { return within(got, want, ldexp(1, -10.9), 0, 1); }

F32(sqrt_rn_f32, "sqrt.rn.f32 %0, %1;", sqrt32(a, RN, false))
F32(sqrt_rz_f32, "sqrt.rz.f32 %0, %1;", sqrt32(a, RZ, false))
F32(sqrt_rm_f32, "sqrt.rm.f32 %0, %1;", sqrt32(a, RM, false))
F32(sqrt_rp_f32, "sqrt.rp.f32 %0, %1;", sqrt32(a, RP, false))
F32(sqrt_rn_ftz_f32, "sqrt.rn.ftz.f32 %0, %1;", sqrt32(a, RN, true))
F32(rcp_rn_f32, "rcp.rn.f32 %0, %1;", rcp32(a, RN, false))
F32(rcp_rz_f32, "rcp.rz.f32 %0, %1;", rcp32(a, RZ, false))
F32(rcp_rn_ftz_f32, "rcp.rn.ftz.f32 %0, %1;", rcp32(a, RN, true))
F64(sqrt_rn_f64, "sqrt.rn.f64 %0, %1;", sqrt64(a, RN))
F64(rcp_rn_f64, "rcp.rn.f64 %0, %1;", rcp64(a, RN))

APPROX(sqrt_approx_f32, "sqrt.approx.f32 %0, %1;", sqrt((double)f32(a)))
APPROX(rsqrt_approx_f32, "rsqrt.approx.f32 %0, %1;", 1 / sqrt((double)f32(a)))
APPROX(rcp_approx_f32, "rcp.approx.f32 %0, %1;", 1 / (double)f32(a))
APPROX(ex2_approx_f32, "ex2.approx.f32 %0, %1;", exp2((double)f32(a)))
APPROX(ex2_approx_ftz_f32, "ex2.approx.ftz.f32 %0, %1;", exp2((double)f32(ftz32(a))))
APPROX(lg2_approx_f32, "lg2.approx.f32 %0, %1;", log2((double)f32(a)))
APPROX(sin_approx_f32, "sin.approx.f32 %0, %1;", sin((double)f32(a)))
APPROX(cos_approx_f32, "cos.approx.f32 %0, %1;", cos((double)f32(a)))
APPROX(tanh_approx_f32, "tanh.approx.f32 %0, %1;", tanh((double)f32(a)))

/* Arguments in [-pi, pi] for sin and cos, plus the specials. */
static inputs angle_inputs(void)
{
	inputs in;

	for (u64 v : { 0x0ull, 0x80000000ull, 0x7f800000ull, 0xff800000ull, 0x7fc00000ull,
		       0x40490fdbull, 0xc0490fdbull, 0x3fc90fdbull, 0x00000001ull })
		in.add(v, 0, 0);
	for (int i = 0; i < 20000; i++)
		in.add(bits32((float)(((double)(rnd() >> 11) / (1ull << 53) * 2 - 1) * M_PI)), 0, 0);
	return in;
}

/* ex2 where the result is a normal float: |x| < 126, and the specials. */
static inputs ex2_inputs(void)
{
	inputs in = corner_inputs(f32_corners, 32, 0);

	for (int i = 0; i < 20000; i++)
		in.add(bits32((float)(((double)(rnd() >> 11) / (1ull << 53) * 2 - 1) * 126)), 0, 0);
	return in;
}

CONF_OP(sqrt_rp_f64, double, "d", double, "d", "sqrt.rp.f64 %0, %1;", sqrt64(a, RP))
CONF_OP(rcp_rm_f64, double, "d", double, "d", "rcp.rm.f64 %0, %1;", rcp64(a, RM))

int main()
{
	inputs s = corner_inputs(f32_corners, 32, 20000), d = corner_inputs(f64_corners, 64, 20000);

	RUN(sqrt_rn_f32, s, same_f32);
	RUN(sqrt_rz_f32, s, same_f32);
	RUN(sqrt_rm_f32, s, same_f32);
	RUN(sqrt_rp_f32, s, same_f32);
	RUN(sqrt_rn_ftz_f32, s, same_f32);
	RUN(rcp_rn_f32, s, same_f32);
	RUN(rcp_rz_f32, s, same_f32);
	RUN(rcp_rn_ftz_f32, s, same_f32);
	RUN(sqrt_rn_f64, d, same_f64);
	RUN(rcp_rn_f64, d, same_f64);
	RUN(sqrt_approx_f32, s, rel_2m22);
	RUN(rsqrt_approx_f32, s, rel_2m22);
	RUN(rcp_approx_f32, s, one_ulp);
	RUN(ex2_approx_f32, ex2_inputs(), two_ulp);
	RUN(ex2_approx_ftz_f32, ex2_inputs(), two_ulp);
	RUN(lg2_approx_f32, s, abs_2m22);
	RUN(sin_approx_f32, angle_inputs(), abs_2m20);
	RUN(cos_approx_f32, angle_inputs(), abs_2m20);
	RUN(tanh_approx_f32, s, rel_2m11);
	RUN(sqrt_rp_f64, d, same_f64);
	RUN(rcp_rm_f64, d, same_f64);
	return conf_verdict("float_special");
}
