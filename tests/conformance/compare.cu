/*
 * compare.cu - conformance of comparisons and selection: min/max on
 * integers and floats (NaN operands, -0 against +0, .ftz, .NaN), setp
 * with every comparison including the unordered ones and NaN operands,
 * setp's .and/.or/.xor combination and its second (negated) destination,
 * selp, testp and copysign.  From the ISA: ordered float comparisons are
 * false when either operand is NaN and the unordered ones (equ ... geu)
 * true.  Float min/max are in compare_minmax.cu, their .NaN form in
 * compare_minmax_nan_pending.cu.
 */
#include "compare_ref.h"

/* A float comparison by name: ordered ones false on NaN, unordered true. */
static u64 fcmp(const char *cmp, u64 a, u64 b, bool dbl)
{
	bool un = isnan_bits(a, dbl) || isnan_bits(b, dbl);
	double x = value(a, dbl), y = value(b, dbl);
	bool ordered_result;

	if (!strcmp(cmp, "num"))
		return !un;
	if (!strcmp(cmp, "nan"))
		return un;
	if (!strncmp(cmp, "eq", 2))
		ordered_result = x == y;
	else if (!strncmp(cmp, "ne", 2))
		ordered_result = x != y;
	else if (!strncmp(cmp, "lt", 2))
		ordered_result = x < y;
	else if (!strncmp(cmp, "le", 2))
		ordered_result = x <= y;
	else if (!strncmp(cmp, "gt", 2))
		ordered_result = x > y;
	else
		ordered_result = x >= y;
	if (un)
		return cmp[2] == 'u';
	return ordered_result;
}

static u64 smin(u64 a, u64 b, int w, bool max)
{
	long long x = sx(a, w), y = sx(b, w);
	return (u64)((max ? x > y : x < y) ? x : y) & width_mask(w);
}

static u64 umin(u64 a, u64 b, int w, bool max)
{
	u64 x = a & width_mask(w), y = b & width_mask(w);
	return (max ? x > y : x < y) ? x : y;
}

/* testp classes. */
static u64 testp(const char *what, u64 v, bool dbl)
{
	double x = value(v, dbl);
	int c = std::fpclassify(x);

	if (!dbl)
		c = std::fpclassify(f32(v));
	if (!strcmp(what, "finite"))
		return c != FP_INFINITE && c != FP_NAN;
	if (!strcmp(what, "infinite"))
		return c == FP_INFINITE;
	if (!strcmp(what, "number"))
		return c != FP_NAN;
	if (!strcmp(what, "notanumber"))
		return c == FP_NAN;
	if (!strcmp(what, "normal"))
		return c == FP_NORMAL;
	return c == FP_SUBNORMAL;
}

#define PRED(setp) "{ .reg .pred p; " setp " selp.u32 %0, 1, 0, p; }"
#define SETP32(cmp) CONF_OP(setp_##cmp##_f32, u32, "r", float, "f", \
	PRED("setp." #cmp ".f32 p, %1, %2;"), fcmp(#cmp, a, b, false))
#define SETP64(cmp) CONF_OPX(setp_##cmp##_f64, u32, "r", double, "d", double, "d", double, "d", \
	PRED("setp." #cmp ".f64 p, %1, %2;"), fcmp(#cmp, a, b, true))
#define SETPI(cmp, ty, T, C, w, expr) CONF_OPX(setp_##cmp##_##ty, u32, "r", T, C, T, C, T, C, \
	PRED("setp." #cmp "." #ty " p, %1, %2;"), (u64)(expr))
#define TESTP(what, ty, T, C, dbl) CONF_OPX(testp_##what##_##ty, u32, "r", T, C, T, C, T, C, \
	PRED("testp." #what "." #ty " p, %1;"), testp(#what, a, dbl))

SETP32(eq) SETP32(ne) SETP32(lt) SETP32(le) SETP32(gt) SETP32(ge)
SETP32(equ) SETP32(neu) SETP32(ltu) SETP32(leu) SETP32(gtu) SETP32(geu)
SETP32(num) SETP32(nan)
SETP64(eq) SETP64(ne) SETP64(lt) SETP64(le) SETP64(gt) SETP64(ge)
SETP64(equ) SETP64(neu) SETP64(ltu) SETP64(leu) SETP64(gtu) SETP64(geu)
SETP64(num) SETP64(nan)
CONF_OP(setp_lt_ftz_f32, u32, "r", float, "f", PRED("setp.lt.ftz.f32 p, %1, %2;"),
	fcmp("lt", ftz32(a), ftz32(b), false))
CONF_OP(setp_eq_ftz_f32, u32, "r", float, "f", PRED("setp.eq.ftz.f32 p, %1, %2;"),
	fcmp("eq", ftz32(a), ftz32(b), false))
SETPI(eq, s32, u32, "r", 32, (u32)a == (u32)b)
SETPI(ne, b32, u32, "r", 32, (u32)a != (u32)b)
SETPI(lt, s32, u32, "r", 32, sx(a, 32) < sx(b, 32))
SETPI(le, s32, u32, "r", 32, sx(a, 32) <= sx(b, 32))
SETPI(gt, s32, u32, "r", 32, sx(a, 32) > sx(b, 32))
SETPI(ge, s32, u32, "r", 32, sx(a, 32) >= sx(b, 32))
SETPI(lt, u32, u32, "r", 32, (u32)a < (u32)b)
SETPI(lo, u32, u32, "r", 32, (u32)a < (u32)b)
SETPI(ls, u32, u32, "r", 32, (u32)a <= (u32)b)
SETPI(hi, u32, u32, "r", 32, (u32)a > (u32)b)
SETPI(hs, u32, u32, "r", 32, (u32)a >= (u32)b)
SETPI(lt, s16, u16, "h", 16, sx(a, 16) < sx(b, 16))
SETPI(hi, u16, u16, "h", 16, (u16)a > (u16)b)
SETPI(lt, s64, u64, "l", 64, (long long)a < (long long)b)
SETPI(ge, u64, u64, "l", 64, a >= b)
SETPI(hs, u64, u64, "l", 64, a >= b)

/* setp with a combining predicate (the low bit of c) and both outputs:
 * p = cmp OP c, q = !cmp OP c; the result is p*2 + q. */
#define SETP_BOOL(op, expr)                                                     \
	CONF_OPX(setp_lt_##op, u32, "r", u32, "r", u32, "r", u32, "r",          \
		 "{ .reg .pred p, q, c; .reg .u32 t; and.b32 t, %3, 1;"         \
		 " setp.ne.u32 c, t, 0; setp.lt." #op ".s32 p|q, %1, %2, c;"  \
		 " selp.u32 %0, 2, 0, p; selp.u32 t, 1, 0, q; add.u32 %0, %0, t; }", \
		 (u64)(expr))
SETP_BOOL(and, ((sx(a, 32) < sx(b, 32)) & c & 1) * 2 + (!(sx(a, 32) < sx(b, 32)) & c & 1))
SETP_BOOL(or, ((sx(a, 32) < sx(b, 32)) | (c & 1)) * 2 + (!(sx(a, 32) < sx(b, 32)) | (c & 1)))
SETP_BOOL(xor, ((sx(a, 32) < sx(b, 32)) ^ (c & 1)) * 2 + (!(sx(a, 32) < sx(b, 32)) ^ (c & 1)))

/* selp picks a when the predicate (c != 0) holds, else b. */
#define SELP(ty, T, C) CONF_OPX(selp_##ty, T, C, T, C, T, C, u32, "r",                   \
	"{ .reg .pred p; setp.ne.u32 p, %3, 0; selp." #ty " %0, %1, %2, p; }", \
	(c & 0xffffffff) ? a : b)
SELP(b16, u16, "h")
SELP(b32, u32, "r")
SELP(u64, u64, "l")
SELP(f32, float, "f")
SELP(f64, double, "d")

CONF_OP(min_s32, u32, "r", u32, "r", "min.s32 %0, %1, %2;", smin(a, b, 32, false))
CONF_OP(max_s32, u32, "r", u32, "r", "max.s32 %0, %1, %2;", smin(a, b, 32, true))
CONF_OP(min_u32, u32, "r", u32, "r", "min.u32 %0, %1, %2;", umin(a, b, 32, false))
CONF_OP(max_u32, u32, "r", u32, "r", "max.u32 %0, %1, %2;", umin(a, b, 32, true))
CONF_OP(min_s16, u16, "h", u16, "h", "min.s16 %0, %1, %2;", smin(a, b, 16, false))
CONF_OP(max_u16, u16, "h", u16, "h", "max.u16 %0, %1, %2;", umin(a, b, 16, true))
CONF_OP(min_s64, u64, "l", u64, "l", "min.s64 %0, %1, %2;", smin(a, b, 64, false))
CONF_OP(max_s64, u64, "l", u64, "l", "max.s64 %0, %1, %2;", smin(a, b, 64, true))
CONF_OP(min_u64, u64, "l", u64, "l", "min.u64 %0, %1, %2;", umin(a, b, 64, false))
CONF_OP(max_u64, u64, "l", u64, "l", "max.u64 %0, %1, %2;", umin(a, b, 64, true))

TESTP(finite, f32, float, "f", false)
TESTP(infinite, f32, float, "f", false)
TESTP(number, f32, float, "f", false)
TESTP(notanumber, f32, float, "f", false)
TESTP(normal, f32, float, "f", false)
TESTP(subnormal, f32, float, "f", false)
TESTP(finite, f64, double, "d", true)
TESTP(infinite, f64, double, "d", true)
TESTP(normal, f64, double, "d", true)
TESTP(subnormal, f64, double, "d", true)

/* copysign d, a, b: b's magnitude with a's sign. */
CONF_OP(copysign_f32, float, "f", float, "f", "copysign.f32 %0, %1, %2;",
	(b & 0x7fffffff) | (a & 0x80000000))
CONF_OP(copysign_f64, double, "d", double, "d", "copysign.f64 %0, %1, %2;",
	(b & ~(1ull << 63)) | (a & (1ull << 63)))

int main()
{
	inputs s = corner_inputs(f32_corners, 32), d = corner_inputs(f64_corners, 64);
	inputs i16 = corner_inputs(int_corners, 16), i32 = corner_inputs(int_corners, 32);
	inputs i64 = corner_inputs(int_corners, 64);

	RUN(setp_eq_f32, s); RUN(setp_ne_f32, s); RUN(setp_lt_f32, s); RUN(setp_le_f32, s);
	RUN(setp_gt_f32, s); RUN(setp_ge_f32, s); RUN(setp_equ_f32, s); RUN(setp_neu_f32, s);
	RUN(setp_ltu_f32, s); RUN(setp_leu_f32, s); RUN(setp_gtu_f32, s); RUN(setp_geu_f32, s);
	RUN(setp_num_f32, s); RUN(setp_nan_f32, s);
	RUN(setp_eq_f64, d); RUN(setp_ne_f64, d); RUN(setp_lt_f64, d); RUN(setp_le_f64, d);
	RUN(setp_gt_f64, d); RUN(setp_ge_f64, d); RUN(setp_equ_f64, d); RUN(setp_neu_f64, d);
	RUN(setp_ltu_f64, d); RUN(setp_leu_f64, d); RUN(setp_gtu_f64, d); RUN(setp_geu_f64, d);
	RUN(setp_num_f64, d); RUN(setp_nan_f64, d);
	RUN(setp_lt_ftz_f32, s); RUN(setp_eq_ftz_f32, s);
	RUN(setp_eq_s32, i32); RUN(setp_ne_b32, i32); RUN(setp_lt_s32, i32); RUN(setp_le_s32, i32);
	RUN(setp_gt_s32, i32); RUN(setp_ge_s32, i32); RUN(setp_lt_u32, i32); RUN(setp_lo_u32, i32);
	RUN(setp_ls_u32, i32); RUN(setp_hi_u32, i32); RUN(setp_hs_u32, i32);
	RUN(setp_lt_s16, i16); RUN(setp_hi_u16, i16);
	RUN(setp_lt_s64, i64); RUN(setp_ge_u64, i64); RUN(setp_hs_u64, i64);
	RUN(setp_lt_and, i32); RUN(setp_lt_or, i32); RUN(setp_lt_xor, i32);
	RUN(selp_b16, i16); RUN(selp_b32, i32); RUN(selp_u64, i64);
	RUN(selp_f32, s); RUN(selp_f64, d);
	RUN(min_s32, i32); RUN(max_s32, i32); RUN(min_u32, i32); RUN(max_u32, i32);
	RUN(min_s16, i16); RUN(max_u16, i16);
	RUN(min_s64, i64); RUN(max_s64, i64); RUN(min_u64, i64); RUN(max_u64, i64);
	RUN(testp_finite_f32, s); RUN(testp_infinite_f32, s); RUN(testp_number_f32, s);
	RUN(testp_notanumber_f32, s); RUN(testp_normal_f32, s); RUN(testp_subnormal_f32, s);
	RUN(testp_finite_f64, d); RUN(testp_infinite_f64, d); RUN(testp_normal_f64, d);
	RUN(testp_subnormal_f64, d);
	RUN(copysign_f32, s, same_f32); RUN(copysign_f64, d, same_f64);
	return conf_verdict("compare");
}
