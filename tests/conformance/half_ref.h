/*
 * half_ref.h - host references for half precision: decoding and
 * correctly rounded encoding of f16 and bf16 (round to nearest even,
 * subnormals, overflow to infinity, NaN), .ftz and .sat, min/max with
 * NaN and signed zeros, and NaN-tolerant comparisons.  Shared by half.cu
 * and half_*_pending.cu.
 */
#ifndef AG_HALF_REF_H
#define AG_HALF_REF_H

#include "conf.h"

/* A 16-bit float format: mantissa bits, smallest and largest exponent. */
struct fmt {
	int mant, emin, emax;
};

static const fmt F16 = { 10, -14, 15 }, BF16 = { 7, -126, 127 };

static double decode(u64 v, fmt f)
{
	int ebits = 15 - f.mant, bias = f.emax;
	u64 e = (v >> f.mant) & ((1u << ebits) - 1), m = v & ((1u << f.mant) - 1);
	double s = v & 0x8000 ? -1 : 1;

	if (e == (u64)(1 << ebits) - 1)
		return m ? NAN : s * INFINITY;
	if (e == 0)
		return s * ldexp((double)m, f.emin - f.mant);
	return s * ldexp((double)(m | 1u << f.mant), (int)e - bias - f.mant);
}

/* x rounded to nearest even in format f. */
static u64 encode(double x, fmt f)
{
	u64 sign = std::signbit(x) ? 0x8000 : 0, inf = (u64)(0x7fff >> f.mant) << f.mant;
	int e;

	if (std::isnan(x))
		return 0x7fff;
	x = fabs(x);
	if (std::isinf(x))
		return sign | inf;
	frexp(x, &e);
	e = std::max(e - 1, f.emin);
	double q = nearbyint(ldexp(x, f.mant - e));
	if (q >= ldexp(1, f.mant + 1)) {
		q /= 2;
		e++;
	}
	if (e > f.emax)
		return sign | inf;
	if (q < ldexp(1, f.mant))
		return sign | (u64)q;
	return sign | (u64)(e + f.emax) << f.mant | ((u64)q - (1ull << f.mant));
}

/* fma(a, b, c) in double rounded to odd (toward zero, then the last bit
 * set when inexact): rounding that once more to a 16-bit format gives
 * the correctly rounded fma, which rounding twice to nearest would not. */
static double fma_odd(double a, double b, double c)
{
	volatile double x = a, y = b, z = c, r;
	u64 bits;

	feclearexcept(FE_INEXACT);
	fesetround(FE_TOWARDZERO);
	r = fma(x, y, z);
	fesetround(FE_TONEAREST);
	bits = bits64(r);
	if (fetestexcept(FE_INEXACT) && !std::isinf(r))
		bits |= 1;
	return f64(bits);
}

static u64 h(double x) { return encode(x, F16); }
static double hv(u64 v) { return decode(v, F16); }
static double bv(u64 v) { return decode(v, BF16); }

/* .ftz on f16: subnormal inputs and results become signed zero. */
static u64 hftz(u64 v)
{
	return (v & 0x7c00) == 0 ? v & 0x8000 : v & 0xffff;
}

static u64 hsat(u64 v)
{
	double x = hv(v);
	if (std::isnan(x) || x <= 0)
		return 0;
	return x > 1 ? 0x3c00 : v;
}

/* IEEE min/max on decoded values: NaN loses, -0 < +0. */
static u64 hminmax(u64 a, u64 b, fmt f, bool max)
{
	double x = decode(a, f), y = decode(b, f);
	if (std::isnan(x) && std::isnan(y))
		return 0x7fff;
	if (std::isnan(x))
		return b;
	if (std::isnan(y))
		return a;
	if (x == 0 && y == 0)
		return max ? (a & b & 0x8000) : ((a | b) & 0x8000);
	return (max ? x > y : x < y) ? a : b;
}

static bool same_f16(u64 got, u64 want)
{
	if (std::isnan(hv(want)))
		return std::isnan(hv(got));
	return got == want;
}

static bool same_bf16(u64 got, u64 want)
{
	if (std::isnan(bv(want)))
		return std::isnan(bv(got));
	return got == want;
}

#define H(name, text, ref) CONF_OP(name, u16, "h", u16, "h", text, ref)

/* Halves: every class, then random bit patterns. */
static const std::vector<u64> half_corners = {
	0x0000, 0x8000, 0x3c00, 0xbc00, 0x3e00, 0x3555, 0x3c01, 0x0001, 0x8001, 0x03ff, 0x0400,
	0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x5800, 0x1400, 0x3f80, 0x7f7f, 0x0080, 0x0040,
};

#endif
