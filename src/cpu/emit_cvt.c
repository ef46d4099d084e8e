/*
 * emit_cvt.c - moves and conversions: mov (registers, immediates, symbol
 * addresses, special registers, vector pack and unpack) and cvt between
 * integer, float and half types with PTX's rounding modes, saturation and
 * its float-to-integer rule (NaN gives 0, out of range clamps), none of
 * which is C's undefined behaviour.
 */
#include <string.h>

#include "cpu/translate_int.h"

/* mov.b64 d, {a, b}: the low element first. */
static int emit_pack(struct tr *t, const struct ptx_insn *in, enum ptx_type ty)
{
	const struct ptx_operand *v = &in->ops[1];
	uint32_t esize = v->nelems ? tr_size(ty) / v->nelems : 0, i;
	struct strbuf e = STRBUF_INIT;
	int rc = 0;

	if (!esize || esize * v->nelems != tr_size(ty))
		return tr_unsupported(t, in, "vector size");
	sb_addf(&e, "(%s)(0", tr_ctype(tr_uint(tr_size(ty))));
	for (i = 0; i < v->nelems && !rc; i++) {
		sb_addf(&e, " | ((uint64_t)");
		rc = tr_src(t, in, &v->elems[i], tr_uint(esize), &e);
		sb_addf(&e, " << %u)", 8 * esize * i);
	}
	sb_adds(&e, ")");
	if (!rc) {
		tr_lanes_begin(t, in);
		rc = tr_dst(t, in, &in->ops[0], tr_uint(tr_size(ty)), e.buf);
		tr_lanes_end(t);
	}
	sb_free(&e);
	return rc;
}

/* mov.b64 {a, b}, d: every element from its bits of the source; the
 * source is read once, before any element is written. */
static int emit_unpack(struct tr *t, const struct ptx_insn *in, enum ptx_type ty)
{
	const struct ptx_operand *v = &in->ops[0];
	uint32_t esize = v->nelems ? tr_size(ty) / v->nelems : 0, i;
	enum ptx_type ut = tr_uint(tr_size(ty));
	struct strbuf e = STRBUF_INIT, x = STRBUF_INIT;
	int rc;

	if (!esize || esize * v->nelems != tr_size(ty))
		return tr_unsupported(t, in, "vector size");
	rc = tr_src(t, in, &in->ops[1], ut, &x);
	if (rc)
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "%s v_ = %s;\n", tr_ctype(ut), x.buf);
	for (i = 0; i < v->nelems && !rc; i++) {
		sb_reset(&e);
		sb_addf(&e, "(v_ >> %u)", 8 * esize * i);
		sb_adds(&t->code, "\t\t\t");
		rc = tr_dst(t, in, &v->elems[i], tr_uint(esize), e.buf);
	}
	tr_lanes_end(t);
out:
	sb_free(&e);
	sb_free(&x);
	return rc;
}

static int emit_mov(struct tr *t, const struct ptx_insn *in)
{
	enum ptx_type ty;
	uint32_t n;
	struct strbuf e = STRBUF_INIT;
	int rc;

	if (tr_mods(t, in, "", &ty, 1, &n) || tr_nops(t, in, 2, 2))
		return -1;
	if (n != 1 || !tr_ctype(ty))
		return tr_unsupported(t, in, "type");
	if (in->ops[1].kind == PTX_OP_VEC)
		return emit_pack(t, in, ty);
	if (in->ops[0].kind == PTX_OP_VEC)
		return emit_unpack(t, in, ty);
	rc = tr_src(t, in, &in->ops[1], ty, &e);
	if (!rc) {
		tr_lanes_begin(t, in);
		rc = tr_dst(t, in, &in->ops[0], ty, e.buf);
		tr_lanes_end(t);
	}
	sb_free(&e);
	return rc;
}

static int mode_of(const struct ptx_insn *in, const char *const *names)
{
	int i;

	for (i = 0; i < 4; i++)
		if (tr_has(in, names[i]))
			return i;
	return -1;
}

static int is_half(enum ptx_type ty)
{
	return ty == PTX_T_F16 || ty == PTX_T_BF16;
}

static int is_int(enum ptx_type ty)
{
	return !tr_is_float(ty) && !is_half(ty) && ty != PTX_T_PRED && tr_ctype(ty) &&
		ty != PTX_T_F16X2 && ty != PTX_T_BF16X2;
}

static const char *f2i_name(enum ptx_type ty)
{
	static const char *const s[] = { "s8", "s16", "s32", "s64" };
	static const char *const u[] = { "u8", "u16", "u32", "u64" };
	uint32_t k = tr_size(ty) == 1 ? 0 : tr_size(ty) == 2 ? 1 : tr_size(ty) == 4 ? 2 : 3;

	return tr_is_signed(ty) ? s[k] : u[k];
}

static int int_limits(enum ptx_type ty, struct strbuf *lo, struct strbuf *hi)
{
	uint32_t bits = tr_size(ty) * 8;

	if (tr_is_signed(ty)) {
		sb_addf(lo, "INT%u_MIN", bits);
		sb_addf(hi, "INT%u_MAX", bits);
	} else {
		sb_adds(lo, "0");
		sb_addf(hi, "UINT%u_MAX", bits);
	}
	return 0;
}

/* Integer to integer: the source's width and signedness extend it; .sat
 * clamps to the destination's range. */
static void cvt_int_int(struct strbuf *e, enum ptx_type dt, enum ptx_type at,
			const char *x, int sat)
{
	struct strbuf lo = STRBUF_INIT, hi = STRBUF_INIT;

	if (!sat) {
		sb_addf(e, "(%s)(%s)", tr_ctype(dt), x);
		return;
	}
	int_limits(dt, &lo, &hi);
	if (!tr_is_signed(at))
		sb_addf(e, "(%s)ag_clamp_u((uint64_t)(%s), %s)", tr_ctype(dt), x, hi.buf);
	else if (tr_is_signed(dt))
		sb_addf(e, "(%s)ag_clamp_s((int64_t)(%s), %s, %s)", tr_ctype(dt), x, lo.buf, hi.buf);
	else
		sb_addf(e, "(%s)ag_clamp_s((int64_t)(%s), 0, %s)", tr_ctype(dt), x,
			tr_size(dt) == 8 ? "INT64_MAX" : hi.buf);
	sb_free(&lo);
	sb_free(&hi);
}

/* A half source as a float expression. */
static void half_to_float(struct strbuf *e, enum ptx_type at, const char *x)
{
	if (at == PTX_T_F16)
		sb_addf(e, "ag_f16_f32(%s)", x);
	else
		sb_addf(e, "ag_bits_f32((uint32_t)(%s) << 16)", x);
}

static int float_to_half(struct tr *t, const struct ptx_insn *in, struct strbuf *e,
			 enum ptx_type dt, const char *x, int fr)
{
	if (dt == PTX_T_F16)
		sb_addf(e, "ag_to_f16(%s, %d)", x, fr < 0 ? 0 : fr);
	else if (fr <= 1)
		sb_addf(e, "ag_f32_bf16(%s, %d)", x, fr < 0 ? 0 : fr);
	else
		return tr_unsupported(t, in, "rounding of bf16");
	return 0;
}

/* The conversion of x (type at) to dt as a C expression in e. */
static int cvt_expr(struct tr *t, const struct ptx_insn *in, enum ptx_type dt, enum ptx_type at,
		    const char *x, struct strbuf *e)
{
	static const char *const frnd[] = { ".rn", ".rz", ".rm", ".rp" };
	static const char *const irnd[] = { ".rni", ".rzi", ".rmi", ".rpi" };
	int fr = mode_of(in, frnd), ir = mode_of(in, irnd), sat = tr_has(in, ".sat");
	struct strbuf f = STRBUF_INIT;
	int rc = 0;

	if (is_int(dt) && is_int(at)) {
		if (fr >= 0 || ir >= 0)
			return tr_unsupported(t, in, "rounding between integers");
		cvt_int_int(e, dt, at, x, sat);
	} else if (is_int(dt)) {
		if (ir < 0)
			return tr_unsupported(t, in, "float to integer needs .rni/.rzi/.rmi/.rpi");
		if (is_half(at))
			half_to_float(&f, at, x);
		sb_addf(e, "ag_f2i_%s((double)(%s), %d)", f2i_name(dt), f.len ? f.buf : x, ir);
	} else if (is_int(at)) {
		if (ir >= 0 || is_half(dt))
			return tr_unsupported(t, in, "integer to this float type");
		if (fr <= 0)
			sb_addf(e, "(%s)(%s)", tr_ctype(dt), x);
		else
			sb_addf(e, "ag_to_f%s((long double)(%s), %d)", dt == PTX_T_F32 ? "32" : "64",
				x, fr);
	} else if (dt == at) {
		if (ir >= 0 && tr_is_float(dt))
			sb_addf(e, "ag_rint%s(%s, %d)", dt == PTX_T_F32 ? "f" : "", x, ir);
		else
			sb_addf(e, "%s", x);
	} else if (ir >= 0) {
		rc = tr_unsupported(t, in, "integer rounding between float types");
	} else if (is_half(at)) {
		half_to_float(e, at, x);
		if (dt != PTX_T_F32 && dt != PTX_T_F64)
			rc = tr_unsupported(t, in, "half to half");
	} else if (is_half(dt)) {
		if (at != PTX_T_F32 && (dt == PTX_T_BF16 || at != PTX_T_F64))
			rc = tr_unsupported(t, in, "only f32 converts to bf16");
		else
			rc = float_to_half(t, in, e, dt, x, fr);
	} else if (dt == PTX_T_F64) {
		sb_addf(e, "(double)(%s)", x);
	} else {
		sb_addf(e, "ag_to_f32((long double)(%s), %d)", x, fr < 0 ? 0 : fr);
	}
	sb_free(&f);
	return rc;
}

/* cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower. */
static int emit_cvt_pack(struct tr *t, const struct ptx_insn *in, enum ptx_type dt,
			 enum ptx_type at)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, ha = STRBUF_INIT, hb = STRBUF_INIT;
	struct strbuf e = STRBUF_INIT;
	enum ptx_type ht = dt == PTX_T_F16X2 ? PTX_T_F16 : PTX_T_BF16;
	int rc = -1;

	if (at != PTX_T_F32 || tr_nops(t, in, 3, 3) || tr_has(in, ".sat") ||
	    tr_has(in, ".relu") || tr_has(in, ".ftz"))
		return in->nops == 3 ? tr_unsupported(t, in, "packing") : -1;
	if (tr_src(t, in, &in->ops[1], at, &a) || tr_src(t, in, &in->ops[2], at, &b) ||
	    cvt_expr(t, in, ht, at, a.buf, &ha) || cvt_expr(t, in, ht, at, b.buf, &hb))
		goto out;
	sb_addf(&e, "((uint32_t)%s << 16 | (uint32_t)%s)", ha.buf, hb.buf);
	tr_lanes_begin(t, in);
	rc = tr_dst(t, in, &in->ops[0], PTX_T_B32, e.buf);
	tr_lanes_end(t);
out:
	sb_free(&a);
	sb_free(&b);
	sb_free(&ha);
	sb_free(&hb);
	sb_free(&e);
	return rc;
}

static int emit_cvt(struct tr *t, const struct ptx_insn *in)
{
	enum ptx_type ty[2];
	struct strbuf x = STRBUF_INIT, e = STRBUF_INIT;
	uint32_t n;
	int rc = -1;

	if (tr_mods(t, in, ".rn .rz .rm .rp .rni .rzi .rmi .rpi .ftz .sat", ty, 2, &n))
		return -1;
	if (n != 2 || !tr_ctype(ty[0]) || !tr_ctype(ty[1]) || ty[0] == PTX_T_PRED ||
	    ty[1] == PTX_T_PRED)
		return tr_unsupported(t, in, "types");
	if (ty[0] == PTX_T_F16X2 || ty[0] == PTX_T_BF16X2)
		return emit_cvt_pack(t, in, ty[0], ty[1]);
	if (tr_nops(t, in, 2, 2) || tr_src(t, in, &in->ops[1], ty[1], &x))
		goto out;
	if (tr_has(in, ".ftz") && ty[1] == PTX_T_F32)
		tr_wrap(&x, "ag_ftz");
	if (cvt_expr(t, in, ty[0], ty[1], x.buf, &e))
		goto out;
	if (tr_has(in, ".sat") && tr_is_float(ty[0]))
		tr_wrap(&e, ty[0] == PTX_T_F32 ? "ag_sat_f32" : "ag_sat_f64");
	if (tr_has(in, ".ftz") && ty[0] == PTX_T_F32)
		tr_wrap(&e, "ag_ftz");
	tr_lanes_begin(t, in);
	rc = tr_dst(t, in, &in->ops[0], ty[0], e.buf);
	tr_lanes_end(t);
out:
	sb_free(&x);
	sb_free(&e);
	return rc;
}

tr_emit_fn tr_cvt_emitter(const char *opcode)
{
	if (!strcmp(opcode, "mov"))
		return emit_mov;
	if (!strcmp(opcode, "cvt"))
		return emit_cvt;
	return NULL;
}
