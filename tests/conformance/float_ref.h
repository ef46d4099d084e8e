/*
 * float_ref.h - host references of f32/f64 add, sub, mul, div and fma in
 * a given IEEE rounding mode, with .ftz and .sat: the same IEEE operation
 * on the host under fesetround() (the programs are built with
 * -frounding-math, so the compiler keeps each operation where it is),
 * which is the ISA's definition: the exact result rounded in that mode.
 */
#ifndef AG_FLOAT_REF_H
#define AG_FLOAT_REF_H

#include "conf.h"

#define RN FE_TONEAREST
#define RZ FE_TOWARDZERO
#define RM FE_DOWNWARD
#define RP FE_UPWARD

enum op { ADD, SUB, MUL, DIV, FMA };

static float arith32(enum op op, float x, float y, float z)
{
	volatile float a = x, b = y, c = z;

	switch (op) {
	case ADD:
		return a + b;
	case SUB:
		return a - b;
	case MUL:
		return a * b;
	case DIV:
		return a / b;
	default:
		return fmaf(a, b, c);
	}
}

static double arith64(enum op op, double x, double y, double z)
{
	volatile double a = x, b = y, c = z;

	switch (op) {
	case ADD:
		return a + b;
	case SUB:
		return a - b;
	case MUL:
		return a * b;
	case DIV:
		return a / b;
	default:
		return fma(a, b, c);
	}
}

static u64 f32op(enum op op, int mode, u64 a, u64 b, u64 c)
{
	return in_mode(mode, [&] { return bits32(arith32(op, f32(a), f32(b), f32(c))); });
}

static u64 f32op_ftz(enum op op, int mode, u64 a, u64 b, u64 c)
{
	return ftz32(f32op(op, mode, ftz32(a), ftz32(b), ftz32(c)));
}

static u64 f64op(enum op op, int mode, u64 a, u64 b, u64 c)
{
	return in_mode(mode, [&] { return bits64(arith64(op, f64(a), f64(b), f64(c))); });
}

/* .sat: NaN and anything at or below zero (-0 included) become +0. */
static u64 sat32(u64 v)
{
	float f = f32(v);

	if (std::isnan(f) || f <= 0)
		return 0;
	return f > 1 ? 0x3f800000 : v;
}

#define F32(name, text, ref) CONF_OP(name, float, "f", float, "f", text, ref)
#define F64(name, text, ref) CONF_OP(name, double, "d", double, "d", text, ref)

/* f64 sqrt and reciprocal, IEEE-rounded in mode. */
static u64 sqrt64(u64 a, int mode)
{
	return in_mode(mode, [&] {
		volatile double x = f64(a);
		return bits64(sqrt(x));
	});
}

static u64 rcp64(u64 a, int mode)
{
	return in_mode(mode, [&] {
		volatile double x = f64(a);
		return bits64(1.0 / x);
	});
}

#endif
