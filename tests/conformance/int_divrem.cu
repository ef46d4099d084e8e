/*
 * int_divrem.cu - conformance of div and rem at 16, 32 and 64 bits,
 * signed and unsigned.  The ISA: the quotient is truncated toward zero
 * and the remainder takes the dividend's sign (a == q*b + r).  MININT / -1
 * overflows: two's complement wraps it to MININT with remainder 0, the
 * only pair that keeps a == q*b + r in n bits; it must not trap.
 * Division by zero "yields an unspecified, machine-specific value": those
 * inputs run in a separate pass that only requires the kernel to finish
 * (no trap, no signal); docs/testing-conformance.md records the values
 * the engine gives.
 */
#include "conf.h"

/* A zero divisor has no reference value (any_value judges it); 0 keeps
 * the host from trapping. */
static u64 udiv(u64 a, u64 b, int n)
{
	if (!(b & width_mask(n)))
		return 0;
	return (a & width_mask(n)) / (b & width_mask(n));
}

static u64 urem(u64 a, u64 b, int n)
{
	if (!(b & width_mask(n)))
		return 0;
	return (a & width_mask(n)) % (b & width_mask(n));
}

/* Signed division in 128 bits: MININT / -1 cannot overflow there. */
static u64 sdiv(u64 a, u64 b, int n)
{
	if (!(b & width_mask(n)))
		return 0;
	return (u64)((__int128)sx(a, n) / sx(b, n)) & width_mask(n);
}

static u64 srem(u64 a, u64 b, int n)
{
	if (!(b & width_mask(n)))
		return 0;
	return (u64)((__int128)sx(a, n) % sx(b, n)) & width_mask(n);
}

CONF_OP(div_u16, u16, "h", u16, "h", "div.u16 %0, %1, %2;", udiv(a, b, 16))
CONF_OP(div_s16, u16, "h", u16, "h", "div.s16 %0, %1, %2;", sdiv(a, b, 16))
CONF_OP(div_u32, u32, "r", u32, "r", "div.u32 %0, %1, %2;", udiv(a, b, 32))
CONF_OP(div_s32, u32, "r", u32, "r", "div.s32 %0, %1, %2;", sdiv(a, b, 32))
CONF_OP(div_u64, u64, "l", u64, "l", "div.u64 %0, %1, %2;", udiv(a, b, 64))
CONF_OP(div_s64, u64, "l", u64, "l", "div.s64 %0, %1, %2;", sdiv(a, b, 64))
CONF_OP(rem_u16, u16, "h", u16, "h", "rem.u16 %0, %1, %2;", urem(a, b, 16))
CONF_OP(rem_s16, u16, "h", u16, "h", "rem.s16 %0, %1, %2;", srem(a, b, 16))
CONF_OP(rem_u32, u32, "r", u32, "r", "rem.u32 %0, %1, %2;", urem(a, b, 32))
CONF_OP(rem_s32, u32, "r", u32, "r", "rem.s32 %0, %1, %2;", srem(a, b, 32))
CONF_OP(rem_u64, u64, "l", u64, "l", "rem.u64 %0, %1, %2;", urem(a, b, 64))
CONF_OP(rem_s64, u64, "l", u64, "l", "rem.s64 %0, %1, %2;", srem(a, b, 64))

/* The inputs of one width with a zero divisor replaced by 1 (keep) or only
 * the zero divisors (!keep). */
static inputs divisors(int bits, bool zero)
{
	inputs all = corner_inputs(int_corners, bits), in;
	u64 m = width_mask(bits);

	for (size_t i = 0; i < all.size(); i++)
		if (((all.b[i] & m) == 0) == zero)
			in.add(all.a[i], all.b[i], all.c[i]);
	return in;
}

static bool any_value(u64 got, u64 want)
{
	(void)got;
	(void)want;
	return true;
}

int main()
{
	inputs i16 = divisors(16, false), i32 = divisors(32, false), i64 = divisors(64, false);
	inputs z16 = divisors(16, true), z32 = divisors(32, true), z64 = divisors(64, true);

	RUN(div_u16, i16);
	RUN(div_s16, i16);
	RUN(div_u32, i32);
	RUN(div_s32, i32);
	RUN(div_u64, i64);
	RUN(div_s64, i64);
	RUN(rem_u16, i16);
	RUN(rem_s16, i16);
	RUN(rem_u32, i32);
	RUN(rem_s32, i32);
	RUN(rem_u64, i64);
	RUN(rem_s64, i64);
	/* Division by zero: defined only as "some value"; it must not trap. */
	RUN(div_u16, z16, any_value);
	RUN(div_s16, z16, any_value);
	RUN(div_u32, z32, any_value);
	RUN(div_s32, z32, any_value);
	RUN(div_u64, z64, any_value);
	RUN(div_s64, z64, any_value);
	RUN(rem_u16, z16, any_value);
	RUN(rem_s16, z16, any_value);
	RUN(rem_u32, z32, any_value);
	RUN(rem_s32, z32, any_value);
	RUN(rem_u64, z64, any_value);
	RUN(rem_s64, z64, any_value);
	return conf_verdict("int_divrem");
}
