/*
 * cvt.cu - conformance of cvt: integer to integer at every width with
 * sign or zero extension, truncation and .sat; float to integer with
 * .rni/.rzi/.rmi/.rpi, which the ISA saturates to the destination's range
 * with NaN giving 0; integer to float with .rn/.rz/.rm/.rp; f32 <-> f64
 * with rounding modes and .ftz; and float to integral float.  A narrow
 * integer type in a wider register is extended to the register by its
 * type's signedness, as the ISA says for destinations wider than the type.
 */
#include "conf.h"

#define RN FE_TONEAREST
#define RZ FE_TOWARDZERO
#define RM FE_DOWNWARD
#define RP FE_UPWARD

/* The low bits of a as type (bits, signed), extended to reg bits. */
static u64 narrow(u64 a, int bits, bool sgn, int reg)
{
	u64 v = sgn ? (u64)sx(a, bits) : a & width_mask(bits);
	return v & width_mask(reg);
}

/* Integer value of the source type, clamped to the destination type. */
static u64 sat_int(long double v, int bits, bool sgn, int reg)
{
	long double lo = sgn ? -ldexpl(1, bits - 1) : 0;
	long double hi = sgn ? ldexpl(1, bits - 1) - 1 : ldexpl(1, bits) - 1;

	if (v < lo)
		v = lo;
	if (v > hi)
		v = hi;
	return narrow(sgn ? (u64)(long long)v : (u64)v, bits, sgn, reg);
}

static long double int_value(u64 a, int bits, bool sgn)
{
	return sgn ? (long double)sx(a, bits) : (long double)(a & width_mask(bits));
}

/* Float to integer: rounded to an integer in the mode, clamped, NaN 0. */
static u64 f2i(double x, int mode, int bits, bool sgn, int reg)
{
	if (std::isnan(x))
		return 0;
	double r = mode == RN ? nearbyint(x) : mode == RZ ? trunc(x) : mode == RM ? floor(x) : ceil(x);
	return sat_int(r, bits, sgn, reg);
}

/* Integer to float in a rounding mode; the host's conversion is IEEE. */
static u64 i2f32(u64 a, int bits, bool sgn, int mode)
{
	return in_mode(mode, [&] {
		volatile long long s = sx(a, bits);
		volatile u64 u = a & width_mask(bits);
		return bits32(sgn ? (float)s : (float)u);
	});
}

static u64 i2f64(u64 a, int bits, bool sgn, int mode)
{
	return in_mode(mode, [&] {
		volatile long long s = sx(a, bits);
		volatile u64 u = a & width_mask(bits);
		return bits64(sgn ? (double)s : (double)u);
	});
}

static u64 d2f(u64 a, int mode, bool ftz)
{
	u64 r = in_mode(mode, [&] {
		volatile double x = f64(a);
		return bits32((float)x);
	});
	return ftz ? ftz32(r) : r;
}

static u64 f2d(u64 a, bool ftz)
{
	return bits64((double)f32(ftz ? ftz32(a) : a));
}

/* Float to an integral value of the same format: only the rounding. */
static u64 f2fi32(u64 a, int mode)
{
	return in_mode(mode, [&] {
		volatile float x = f32(a);
		return bits32(nearbyintf(x));
	});
}

static u64 f2fi64(u64 a, int mode)
{
	return in_mode(mode, [&] {
		volatile double x = f64(a);
		return bits64(nearbyint(x));
	});
}


/* integer <-> integer */
CONF_OP(cvt_s32_s8, u32, "r", u32, "r", "cvt.s32.s8 %0, %1;", narrow(a, 8, true, 32))
CONF_OP(cvt_u32_u8, u32, "r", u32, "r", "cvt.u32.u8 %0, %1;", narrow(a, 8, false, 32))
CONF_OP(cvt_s32_s16, u32, "r", u16, "h", "cvt.s32.s16 %0, %1;", narrow(a, 16, true, 32))
CONF_OP(cvt_u32_u16, u32, "r", u16, "h", "cvt.u32.u16 %0, %1;", narrow(a, 16, false, 32))
CONF_OP(cvt_s64_s32, u64, "l", u32, "r", "cvt.s64.s32 %0, %1;", narrow(a, 32, true, 64))
CONF_OP(cvt_u64_u32, u64, "l", u32, "r", "cvt.u64.u32 %0, %1;", narrow(a, 32, false, 64))
CONF_OP(cvt_s64_s16, u64, "l", u16, "h", "cvt.s64.s16 %0, %1;", narrow(a, 16, true, 64))
CONF_OP(cvt_u16_u32, u16, "h", u32, "r", "cvt.u16.u32 %0, %1;", narrow(a, 16, false, 16))
CONF_OP(cvt_s16_s64, u16, "h", u64, "l", "cvt.s16.s64 %0, %1;", narrow(a, 16, true, 16))
CONF_OP(cvt_u32_u64, u32, "r", u64, "l", "cvt.u32.u64 %0, %1;", narrow(a, 32, false, 32))
CONF_OP(cvt_s8_s32, u16, "h", u32, "r", "cvt.s8.s32 %0, %1;", narrow(a, 8, true, 16))
CONF_OP(cvt_u8_u32, u16, "h", u32, "r", "cvt.u8.u32 %0, %1;", narrow(a, 8, false, 16))
CONF_OP(cvt_s32_u32, u32, "r", u32, "r", "cvt.s32.u32 %0, %1;", a & 0xffffffff)
CONF_OP(cvt_sat_s32_s64, u32, "r", u64, "l", "cvt.sat.s32.s64 %0, %1;", sat_int(int_value(a, 64, true), 32, true, 32))
CONF_OP(cvt_sat_u32_s64, u32, "r", u64, "l", "cvt.sat.u32.s64 %0, %1;", sat_int(int_value(a, 64, true), 32, false, 32))
CONF_OP(cvt_sat_s32_u64, u32, "r", u64, "l", "cvt.sat.s32.u64 %0, %1;", sat_int(int_value(a, 64, false), 32, true, 32))
CONF_OP(cvt_sat_u32_s32, u32, "r", u32, "r", "cvt.sat.u32.s32 %0, %1;", sat_int(int_value(a, 32, true), 32, false, 32))
CONF_OP(cvt_sat_s32_u32, u32, "r", u32, "r", "cvt.sat.s32.u32 %0, %1;", sat_int(int_value(a, 32, false), 32, true, 32))
CONF_OP(cvt_sat_u16_s32, u16, "h", u32, "r", "cvt.sat.u16.s32 %0, %1;", sat_int(int_value(a, 32, true), 16, false, 16))
CONF_OP(cvt_sat_s16_s32, u16, "h", u32, "r", "cvt.sat.s16.s32 %0, %1;", sat_int(int_value(a, 32, true), 16, true, 16))
CONF_OP(cvt_sat_s8_s32, u16, "h", u32, "r", "cvt.sat.s8.s32 %0, %1;", sat_int(int_value(a, 32, true), 8, true, 16))
CONF_OP(cvt_sat_u8_s16, u16, "h", u16, "h", "cvt.sat.u8.s16 %0, %1;", sat_int(int_value(a, 16, true), 8, false, 16))
CONF_OP(cvt_sat_u64_s64, u64, "l", u64, "l", "cvt.sat.u64.s64 %0, %1;", sat_int(int_value(a, 64, true), 64, false, 64))

/* float -> integer */
CONF_OP(cvt_rni_s32_f32, u32, "r", float, "f", "cvt.rni.s32.f32 %0, %1;", f2i(f32(a), RN, 32, true, 32))
CONF_OP(cvt_rzi_s32_f32, u32, "r", float, "f", "cvt.rzi.s32.f32 %0, %1;", f2i(f32(a), RZ, 32, true, 32))
CONF_OP(cvt_rmi_s32_f32, u32, "r", float, "f", "cvt.rmi.s32.f32 %0, %1;", f2i(f32(a), RM, 32, true, 32))
CONF_OP(cvt_rpi_s32_f32, u32, "r", float, "f", "cvt.rpi.s32.f32 %0, %1;", f2i(f32(a), RP, 32, true, 32))
CONF_OP(cvt_rpi_ftz_s32_f32, u32, "r", float, "f", "cvt.rpi.ftz.s32.f32 %0, %1;", f2i(f32(ftz32(a)), RP, 32, true, 32))
CONF_OP(cvt_rni_u32_f32, u32, "r", float, "f", "cvt.rni.u32.f32 %0, %1;", f2i(f32(a), RN, 32, false, 32))
CONF_OP(cvt_rzi_u32_f32, u32, "r", float, "f", "cvt.rzi.u32.f32 %0, %1;", f2i(f32(a), RZ, 32, false, 32))
CONF_OP(cvt_rzi_s16_f32, u16, "h", float, "f", "cvt.rzi.s16.f32 %0, %1;", f2i(f32(a), RZ, 16, true, 16))
CONF_OP(cvt_rni_u16_f32, u16, "h", float, "f", "cvt.rni.u16.f32 %0, %1;", f2i(f32(a), RN, 16, false, 16))
CONF_OP(cvt_rni_s64_f32, u64, "l", float, "f", "cvt.rni.s64.f32 %0, %1;", f2i(f32(a), RN, 64, true, 64))
CONF_OP(cvt_rzi_u64_f32, u64, "l", float, "f", "cvt.rzi.u64.f32 %0, %1;", f2i(f32(a), RZ, 64, false, 64))
CONF_OP(cvt_rni_s32_f64, u32, "r", double, "d", "cvt.rni.s32.f64 %0, %1;", f2i(f64(a), RN, 32, true, 32))
CONF_OP(cvt_rzi_s32_f64, u32, "r", double, "d", "cvt.rzi.s32.f64 %0, %1;", f2i(f64(a), RZ, 32, true, 32))
CONF_OP(cvt_rmi_u32_f64, u32, "r", double, "d", "cvt.rmi.u32.f64 %0, %1;", f2i(f64(a), RM, 32, false, 32))
CONF_OP(cvt_rni_s64_f64, u64, "l", double, "d", "cvt.rni.s64.f64 %0, %1;", f2i(f64(a), RN, 64, true, 64))
CONF_OP(cvt_rzi_s64_f64, u64, "l", double, "d", "cvt.rzi.s64.f64 %0, %1;", f2i(f64(a), RZ, 64, true, 64))
CONF_OP(cvt_rpi_u64_f64, u64, "l", double, "d", "cvt.rpi.u64.f64 %0, %1;", f2i(f64(a), RP, 64, false, 64))

/* integer -> float */
CONF_OP(cvt_rn_f32_s32, float, "f", u32, "r", "cvt.rn.f32.s32 %0, %1;", i2f32(a, 32, true, RN))
CONF_OP(cvt_rz_f32_s32, float, "f", u32, "r", "cvt.rz.f32.s32 %0, %1;", i2f32(a, 32, true, RZ))
CONF_OP(cvt_rm_f32_s32, float, "f", u32, "r", "cvt.rm.f32.s32 %0, %1;", i2f32(a, 32, true, RM))
CONF_OP(cvt_rp_f32_s32, float, "f", u32, "r", "cvt.rp.f32.s32 %0, %1;", i2f32(a, 32, true, RP))
CONF_OP(cvt_rn_f32_u32, float, "f", u32, "r", "cvt.rn.f32.u32 %0, %1;", i2f32(a, 32, false, RN))
CONF_OP(cvt_rz_f32_u32, float, "f", u32, "r", "cvt.rz.f32.u32 %0, %1;", i2f32(a, 32, false, RZ))
CONF_OP(cvt_rn_f32_s64, float, "f", u64, "l", "cvt.rn.f32.s64 %0, %1;", i2f32(a, 64, true, RN))
CONF_OP(cvt_rm_f32_s64, float, "f", u64, "l", "cvt.rm.f32.s64 %0, %1;", i2f32(a, 64, true, RM))
CONF_OP(cvt_rp_f32_u64, float, "f", u64, "l", "cvt.rp.f32.u64 %0, %1;", i2f32(a, 64, false, RP))
CONF_OP(cvt_rn_f32_s16, float, "f", u16, "h", "cvt.rn.f32.s16 %0, %1;", i2f32(a, 16, true, RN))
CONF_OP(cvt_rn_f64_s32, double, "d", u32, "r", "cvt.rn.f64.s32 %0, %1;", i2f64(a, 32, true, RN))
CONF_OP(cvt_rn_f64_u64, double, "d", u64, "l", "cvt.rn.f64.u64 %0, %1;", i2f64(a, 64, false, RN))
CONF_OP(cvt_rz_f64_s64, double, "d", u64, "l", "cvt.rz.f64.s64 %0, %1;", i2f64(a, 64, true, RZ))
CONF_OP(cvt_rm_f64_s64, double, "d", u64, "l", "cvt.rm.f64.s64 %0, %1;", i2f64(a, 64, true, RM))
CONF_OP(cvt_rp_f64_u64, double, "d", u64, "l", "cvt.rp.f64.u64 %0, %1;", i2f64(a, 64, false, RP))

/* f32 <-> f64, float -> integral float */
CONF_OP(cvt_f64_f32, double, "d", float, "f", "cvt.f64.f32 %0, %1;", f2d(a, false))
CONF_OP(cvt_ftz_f64_f32, double, "d", float, "f", "cvt.ftz.f64.f32 %0, %1;", f2d(a, true))
CONF_OP(cvt_rn_f32_f64, float, "f", double, "d", "cvt.rn.f32.f64 %0, %1;", d2f(a, RN, false))
CONF_OP(cvt_rz_f32_f64, float, "f", double, "d", "cvt.rz.f32.f64 %0, %1;", d2f(a, RZ, false))
CONF_OP(cvt_rm_f32_f64, float, "f", double, "d", "cvt.rm.f32.f64 %0, %1;", d2f(a, RM, false))
CONF_OP(cvt_rp_f32_f64, float, "f", double, "d", "cvt.rp.f32.f64 %0, %1;", d2f(a, RP, false))
CONF_OP(cvt_rn_ftz_f32_f64, float, "f", double, "d", "cvt.rn.ftz.f32.f64 %0, %1;", d2f(a, RN, true))
CONF_OP(cvt_rni_f32_f32, float, "f", float, "f", "cvt.rni.f32.f32 %0, %1;", f2fi32(a, RN))
CONF_OP(cvt_rzi_f32_f32, float, "f", float, "f", "cvt.rzi.f32.f32 %0, %1;", f2fi32(a, RZ))
CONF_OP(cvt_rmi_f32_f32, float, "f", float, "f", "cvt.rmi.f32.f32 %0, %1;", f2fi32(a, RM))
CONF_OP(cvt_rpi_f32_f32, float, "f", float, "f", "cvt.rpi.f32.f32 %0, %1;", f2fi32(a, RP))
CONF_OP(cvt_rni_f64_f64, double, "d", double, "d", "cvt.rni.f64.f64 %0, %1;", f2fi64(a, RN))
CONF_OP(cvt_rmi_f64_f64, double, "d", double, "d", "cvt.rmi.f64.f64 %0, %1;", f2fi64(a, RM))

int main()
{
	inputs i16 = corner_inputs(int_corners, 16), i32 = corner_inputs(int_corners, 32);
	inputs i64 = corner_inputs(int_corners, 64);
	inputs s = corner_inputs(f32_corners, 32, 20000), d = corner_inputs(f64_corners, 64, 20000);

	RUN(cvt_s32_s8, i32); RUN(cvt_u32_u8, i32); RUN(cvt_s32_s16, i16); RUN(cvt_u32_u16, i16);
	RUN(cvt_s64_s32, i32); RUN(cvt_u64_u32, i32); RUN(cvt_s64_s16, i16);
	RUN(cvt_u16_u32, i32); RUN(cvt_s16_s64, i64); RUN(cvt_u32_u64, i64);
	RUN(cvt_s8_s32, i32); RUN(cvt_u8_u32, i32); RUN(cvt_s32_u32, i32);
	RUN(cvt_sat_s32_s64, i64); RUN(cvt_sat_u32_s64, i64); RUN(cvt_sat_s32_u64, i64);
	RUN(cvt_sat_u32_s32, i32); RUN(cvt_sat_s32_u32, i32); RUN(cvt_sat_u16_s32, i32);
	RUN(cvt_sat_s16_s32, i32); RUN(cvt_sat_s8_s32, i32); RUN(cvt_sat_u8_s16, i16);
	RUN(cvt_sat_u64_s64, i64);
	RUN(cvt_rni_s32_f32, s); RUN(cvt_rzi_s32_f32, s); RUN(cvt_rmi_s32_f32, s);
	RUN(cvt_rpi_s32_f32, s); RUN(cvt_rpi_ftz_s32_f32, s); RUN(cvt_rni_u32_f32, s);
	RUN(cvt_rzi_u32_f32, s); RUN(cvt_rzi_s16_f32, s); RUN(cvt_rni_u16_f32, s);
	RUN(cvt_rni_s64_f32, s); RUN(cvt_rzi_u64_f32, s);
	RUN(cvt_rni_s32_f64, d); RUN(cvt_rzi_s32_f64, d); RUN(cvt_rmi_u32_f64, d);
	RUN(cvt_rni_s64_f64, d); RUN(cvt_rzi_s64_f64, d); RUN(cvt_rpi_u64_f64, d);
	RUN(cvt_rn_f32_s32, i32); RUN(cvt_rz_f32_s32, i32); RUN(cvt_rm_f32_s32, i32);
	RUN(cvt_rp_f32_s32, i32); RUN(cvt_rn_f32_u32, i32); RUN(cvt_rz_f32_u32, i32);
	RUN(cvt_rn_f32_s64, i64); RUN(cvt_rm_f32_s64, i64); RUN(cvt_rp_f32_u64, i64);
	RUN(cvt_rn_f32_s16, i16);
	RUN(cvt_rn_f64_s32, i32); RUN(cvt_rn_f64_u64, i64); RUN(cvt_rz_f64_s64, i64);
	RUN(cvt_rm_f64_s64, i64); RUN(cvt_rp_f64_u64, i64);
	RUN(cvt_f64_f32, s, same_f64); RUN(cvt_ftz_f64_f32, s, same_f64);
	RUN(cvt_rn_f32_f64, d, same_f32); RUN(cvt_rz_f32_f64, d, same_f32);
	RUN(cvt_rm_f32_f64, d, same_f32); RUN(cvt_rp_f32_f64, d, same_f32);
	RUN(cvt_rn_ftz_f32_f64, d, same_f32);
	RUN(cvt_rni_f32_f32, s, same_f32); RUN(cvt_rzi_f32_f32, s, same_f32);
	RUN(cvt_rmi_f32_f32, s, same_f32); RUN(cvt_rpi_f32_f32, s, same_f32);
	RUN(cvt_rni_f64_f64, d, same_f64); RUN(cvt_rmi_f64_f64, d, same_f64);
	return conf_verdict("cvt");
}
