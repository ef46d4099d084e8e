/*
 * compare_ref.h - the host reference of float min and max from the ISA:
 * the other operand when one is NaN (signalling or quiet), NaN when both
 * are (or either, under .NaN), and -0 below +0.  Shared by compare.cu and
 * compare_minmax*_pending.cu.
 */
#ifndef AG_COMPARE_REF_H
#define AG_COMPARE_REF_H

#include "conf.h"

static bool isnan_bits(u64 v, bool dbl)
{
	return dbl ? std::isnan(f64(v)) : std::isnan(f32(v));
}

static double value(u64 v, bool dbl)
{
	return dbl ? f64(v) : f32(v);
}

/* Float min (max false) or max (max true) per the ISA. */
static u64 fminmax(u64 a, u64 b, bool dbl, bool max, bool nan_mode)
{
	bool na = isnan_bits(a, dbl), nb = isnan_bits(b, dbl);
	double x = value(a, dbl), y = value(b, dbl);
	u64 sign = dbl ? 1ull << 63 : 1ull << 31;

	if ((na && nb) || (nan_mode && (na || nb)))
		return dbl ? 0x7fffffffffffffffull : 0x7fffffff;
	if (na)
		return b;
	if (nb)
		return a;
	if (x == 0 && y == 0)
		return max ? (a & b & sign) : ((a | b) & sign);
	return (max ? x > y : x < y) ? a : b;
}

#define MINMAX_F(name, text, T, C, expr) CONF_OP(name, T, C, T, C, text, expr)

#endif
