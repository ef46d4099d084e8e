/*
 * emit_arith.c - arithmetic, comparison, logic and bit instructions.
 * Each becomes one lane loop "d = expression"; the expression comes from a
 * template in which $1..$4 are the source operands, $T the C type of the
 * instruction type, $U the unsigned type integer arithmetic is done in (so
 * that overflow wraps, as PTX says, instead of being undefined), $W the
 * double-width type of .wide, $N the bit width, $F the C suffix of float
 * functions ("f" for .f32), $S "s" or "u" by signedness.
 */
#include <string.h>

#include "cpu/translate_int.h"

struct tmpl {
	enum ptx_type ty;       /* the instruction type */
	enum ptx_type dt;       /* the destination's */
	enum ptx_type st[4];    /* each source's */
	uint32_t nsrc;
	int ftz, sat;           /* flush sources and result; clamp result */
	int mode;               /* .rz 1, .rm 2, .rp 3; 0 for .rn or none */
	int half;               /* a half type: only emit_half handles it */
};

static const char *calc_type(enum ptx_type ty)
{
	return tr_size(ty) == 8 ? "uint64_t" : "uint32_t";
}

static enum ptx_type wide_type(enum ptx_type ty)
{
	uint32_t n = tr_size(ty) * 2;

	return tr_is_signed(ty) ? tr_sint(n) : tr_uint(n);
}

static void expand(struct strbuf *sb, const char *tmpl, const struct tmpl *k,
		   struct strbuf *src)
{
	const char *p;

	for (p = tmpl; *p; p++) {
		if (*p != '$' || !p[1]) {
			sb_add(sb, p, 1);
			continue;
		}
		switch (*++p) {
		case 'T': sb_adds(sb, tr_ctype(k->ty)); break;
		case 'U': sb_adds(sb, calc_type(k->ty)); break;
		case 'W': sb_adds(sb, tr_ctype(wide_type(k->ty))); break;
		case 'N': sb_addf(sb, "%u", tr_size(k->ty) * 8); break;
		case 'F': sb_adds(sb, k->ty == PTX_T_F32 ? "f" : ""); break;
		case 'S': sb_adds(sb, tr_is_signed(k->ty) ? "s" : "u"); break;
		case 'P': sb_adds(sb, k->ty == PTX_T_F32 ? "f32" : "f64"); break;
		case 'M': sb_addf(sb, "%d", k->mode); break;
		default:  sb_adds(sb, src[*p - '1'].buf); break;
		}
	}
}

/* d = tmpl(sources) for each active lane. */
static int emit_tmpl(struct tr *t, const struct ptx_insn *in, const struct tmpl *k,
		     const char *tmpl)
{
	struct strbuf src[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct strbuf e = STRBUF_INIT;
	uint32_t i;
	int rc = -1;

	if (k->half)
		return tr_unsupported(t, in, "half precision");
	if (tr_nops(t, in, k->nsrc + 1, k->nsrc + 1))
		return -1;
	for (i = 0; i < k->nsrc; i++) {
		if (tr_src(t, in, &in->ops[i + 1], k->st[i], &src[i]))
			goto out;
		if (k->ftz && k->st[i] == PTX_T_F32)
			tr_wrap(&src[i], "ag_ftz");
	}
	expand(&e, tmpl, k, src);
	if (k->sat)
		tr_wrap(&e, k->dt == PTX_T_F64 ? "ag_sat_f64" : "ag_sat_f32");
	if (k->ftz && k->dt == PTX_T_F32)
		tr_wrap(&e, "ag_ftz");
	tr_lanes_begin(t, in);
	rc = tr_dst(t, in, &in->ops[0], k->dt, e.buf);
	tr_lanes_end(t);
out:
	for (i = 0; i < 4; i++)
		sb_free(&src[i]);
	sb_free(&e);
	return rc;
}

/* One instruction type, nsrc sources of that type. */
static int setup(struct tr *t, const struct ptx_insn *in, const char *allowed,
		 struct tmpl *k, uint32_t nsrc)
{
	uint32_t n, i;

	memset(k, 0, sizeof(*k));
	if (tr_mods(t, in, allowed, &k->ty, 1, &n))
		return -1;
	if (n != 1 || !tr_ctype(k->ty))
		return tr_unsupported(t, in, n != 1 ? "needs one type" : "type");
	k->half = k->ty == PTX_T_F16 || k->ty == PTX_T_BF16 || k->ty == PTX_T_F16X2 ||
		k->ty == PTX_T_BF16X2;
	k->dt = k->ty;
	k->nsrc = nsrc;
	for (i = 0; i < nsrc; i++)
		k->st[i] = k->ty;
	k->ftz = tr_has(in, ".ftz");
	k->sat = tr_has(in, ".sat") && tr_is_float(k->ty);
	k->mode = tr_has(in, ".rz") ? 1 : tr_has(in, ".rm") ? 2 : tr_has(in, ".rp") ? 3 : 0;
	if (!tr_is_float(k->ty) && !k->half && (k->mode || tr_has(in, ".rn") || k->ftz))
		return tr_unsupported(t, in, "rounding of an integer");
	return 0;
}

static int need_float(struct tr *t, const struct ptx_insn *in, const struct tmpl *k, int want)
{
	if (tr_is_float(k->ty) != want || (k->ty == PTX_T_PRED))
		return tr_unsupported(t, in, "type");
	return 0;
}

/* add, sub, mul, fma, min, max, neg, abs on .f16/.bf16 and their x2
 * pairs, rounded to nearest (see ag_hop). */
static int emit_half(struct tr *t, const struct ptx_insn *in, struct tmpl *k)
{
	static const char *const ops[] = { "add", "sub", "mul", "fma", "min", "max" };
	int two = tr_size(k->ty) == 4, bf = k->ty == PTX_T_BF16 || k->ty == PTX_T_BF16X2;
	struct strbuf e = STRBUF_INIT;
	uint32_t op;
	int rc;

	if (k->mode || (k->ftz && bf))
		return tr_unsupported(t, in, "rounding of half precision");
	k->half = 0;
	if (k->ftz && (!strcmp(in->opcode, "neg") || !strcmp(in->opcode, "abs")))
		return tr_unsupported(t, in, "modifier '.ftz'");
	if (!strcmp(in->opcode, "neg"))
		return emit_tmpl(t, in, k, two ? "($1 ^ 0x80008000u)" : "($T)($1 ^ 0x8000u)");
	if (!strcmp(in->opcode, "abs"))
		return emit_tmpl(t, in, k, two ? "($1 & 0x7fff7fffu)" : "($T)($1 & 0x7fffu)");
	for (op = 0; op < 6 && strcmp(in->opcode, ops[op]); op++)
		;
	if (op == 6)
		return tr_unsupported(t, in, "half precision");
	sb_addf(&e, "ag_hop%s(%u, $1, $2, %s, %d, %d, %d)", two ? "2" : "", op,
		op == 3 ? "$3" : "0", bf, tr_has(in, ".sat"), k->ftz);
	k->sat = k->ftz = 0;
	rc = emit_tmpl(t, in, k, e.buf);
	sb_free(&e);
	return rc;
}

static int emit_addsub(struct tr *t, const struct ptx_insn *in)
{
	int sub = in->opcode[0] == 's', carry_in = in->opcode[strlen(in->opcode) - 1] == 'c';
	int cc = tr_has(in, ".cc");
	struct tmpl k;
	struct strbuf e = STRBUF_INIT;
	int rc;

	if (setup(t, in, ".rn .rz .rm .rp .ftz .sat .cc", &k, 2))
		return -1;
	if (k.half && !cc && !carry_in)
		return emit_half(t, in, &k);
	if (tr_is_float(k.ty)) {
		if (cc || carry_in)
			return tr_unsupported(t, in, "carry on floats");
		if (k.mode)
			return emit_tmpl(t, in, &k, sub ? "ag_add_$Pr($1, -$2, $M)" :
					 "ag_add_$Pr($1, $2, $M)");
		return emit_tmpl(t, in, &k, sub ? "$1 - $2" : "$1 + $2");
	}
	if (k.ty == PTX_T_PRED)
		return tr_unsupported(t, in, "type");
	if (tr_has(in, ".sat")) {
		if (k.ty != PTX_T_S32 || cc || carry_in)
			return tr_unsupported(t, in, ".sat");
		return emit_tmpl(t, in, &k, sub ? "ag_sat_s32((int64_t)$1 - (int64_t)$2)" :
				 "ag_sat_s32((int64_t)$1 + (int64_t)$2)");
	}
	if (!cc && !carry_in)
		return emit_tmpl(t, in, &k, sub ? "($T)(($U)$1 - ($U)$2)" : "($T)(($U)$1 + ($U)$2)");
	if (tr_size(k.ty) < 4)
		return tr_unsupported(t, in, "carry on 8 or 16 bits");
	sb_addf(&e, "($T)ag_%sc$N(($U)$1, ($U)$2, %s, %s)", sub ? "sub" : "add",
		carry_in ? "W->ln.cc[l]" : "0", cc ? "&W->ln.cc[l]" : "NULL");
	rc = emit_tmpl(t, in, &k, e.buf);
	sb_free(&e);
	return rc;
}

/* mad.cc / madc: the product's low or high half plus c with the carry
 * flag, as multi-word multiplication uses them. */
static int emit_mad_carry(struct tr *t, const struct ptx_insn *in, struct tmpl *k, int carry_in)
{
	struct strbuf e = STRBUF_INIT;
	int rc;

	if (k->nsrc != 3 || tr_is_float(k->ty) || k->half || tr_size(k->ty) < 4 ||
	    tr_has(in, ".wide") || tr_has(in, ".sat"))
		return tr_unsupported(t, in, "carry");
	sb_addf(&e, "($T)ag_addc$N(%s, ($U)$3, %s, %s)",
		tr_has(in, ".hi") ? "($U)ag_mulh$S$N($1, $2)" : "($U)$1 * ($U)$2",
		carry_in ? "W->ln.cc[l]" : "0", tr_has(in, ".cc") ? "&W->ln.cc[l]" : "NULL");
	rc = emit_tmpl(t, in, k, e.buf);
	sb_free(&e);
	return rc;
}

static int emit_mul(struct tr *t, const struct ptx_insn *in)
{
	int mad = in->opcode[1] == 'a', carry_in = in->opcode[3] == 'c';
	struct tmpl k;

	if (setup(t, in, ".lo .hi .wide .rn .rz .rm .rp .ftz .sat .cc", &k, mad ? 3 : 2))
		return -1;
	if (carry_in || tr_has(in, ".cc"))
		return emit_mad_carry(t, in, &k, carry_in);
	if (k.half && !mad)
		return emit_half(t, in, &k);
	if (tr_is_float(k.ty) && k.mode)
		return emit_tmpl(t, in, &k, mad ? "ag_fma_$Pr($1, $2, $3, $M)" :
				 "ag_mul_$Pr($1, $2, $M)");
	if (tr_is_float(k.ty))
		return emit_tmpl(t, in, &k, mad ? "fma$F($1, $2, $3)" : "$1 * $2");
	if (tr_has(in, ".sat") && mad && tr_has(in, ".hi") && k.ty == PTX_T_S32)
		return emit_tmpl(t, in, &k, "ag_sat_s32((int64_t)ag_mulhs32($1, $2) + $3)");
	if (k.ty == PTX_T_PRED || tr_has(in, ".sat"))
		return tr_unsupported(t, in, "modifier");
	if (tr_has(in, ".hi"))
		return emit_tmpl(t, in, &k, mad ? "($T)(($U)ag_mulh$S$N($1, $2) + ($U)$3)" :
				 "ag_mulh$S$N($1, $2)");
	if (tr_has(in, ".wide")) {
		if (tr_size(k.ty) != 2 && tr_size(k.ty) != 4)
			return tr_unsupported(t, in, ".wide");
		k.dt = k.st[2] = wide_type(k.ty);
		return emit_tmpl(t, in, &k, mad ? "($W)((uint64_t)(($W)$1 * ($W)$2) + (uint64_t)$3)" :
				 "($W)$1 * ($W)$2");
	}
	return emit_tmpl(t, in, &k, mad ? "($T)(($U)$1 * ($U)$2 + ($U)$3)" :
			 "($T)(($U)$1 * ($U)$2)");
}

static int emit_divrem(struct tr *t, const struct ptx_insn *in)
{
	int rem = in->opcode[0] == 'r';
	struct tmpl k;

	if (setup(t, in, rem ? "" : ".rn .rz .rm .rp .full .approx .ftz", &k, 2))
		return -1;
	if (tr_is_float(k.ty)) {
		if (rem)
			return tr_unsupported(t, in, "type");
		return emit_tmpl(t, in, &k, k.mode ? "ag_div_$Pr($1, $2, $M)" : "$1 / $2");
	}
	if (k.ty == PTX_T_PRED || in->nmods != 1)
		return tr_unsupported(t, in, "modifier");
	return emit_tmpl(t, in, &k, rem ? "ag_rem$S$N($1, $2)" : "ag_div$S$N($1, $2)");
}

static int emit_minmax(struct tr *t, const struct ptx_insn *in)
{
	int max = in->opcode[1] == 'a';
	struct tmpl k;

	if (setup(t, in, ".ftz .NaN", &k, 2))
		return -1;
	if (tr_has(in, ".NaN") && (!tr_is_float(k.ty) || k.half))
		return tr_unsupported(t, in, "modifier '.NaN'");
	if (k.half)
		return emit_half(t, in, &k);
	if (tr_has(in, ".NaN"))
		return emit_tmpl(t, in, &k, max ? "ag_fmax_nan$F($1, $2)" : "ag_fmin_nan$F($1, $2)");
	if (tr_is_float(k.ty))
		return emit_tmpl(t, in, &k, max ? "ag_fmax$F($1, $2)" : "ag_fmin$F($1, $2)");
	if (k.ty == PTX_T_PRED || k.ftz)
		return tr_unsupported(t, in, "modifier");
	return emit_tmpl(t, in, &k, max ? "($1 > $2 ? $1 : $2)" : "($1 < $2 ? $1 : $2)");
}

static int emit_absneg(struct tr *t, const struct ptx_insn *in)
{
	int neg = in->opcode[0] == 'n';
	struct tmpl k;

	if (setup(t, in, ".ftz", &k, 1))
		return -1;
	if (k.half)
		return emit_half(t, in, &k);
	if (tr_is_float(k.ty))
		return emit_tmpl(t, in, &k, neg ? "-$1" : "fabs$F($1)");
	if (k.ty == PTX_T_PRED || k.ftz)
		return tr_unsupported(t, in, "modifier");
	return emit_tmpl(t, in, &k, neg ? "($T)(0 - ($U)$1)" : "($T)ag_absu$N($1)");
}

/* Float-only functions: fma, rcp, sqrt, rsqrt, the .approx family,
 * copysign.  The .approx ones use libm, more precise than the GPU's,
 * except ex2, whose own version vectorizes (translate_rt.h). */
static int emit_float_fn(struct tr *t, const struct ptx_insn *in)
{
	static const struct {
		const char *op, *allowed, *tmpl;
		uint32_t nsrc;
		int f32_only;
	} fns[] = {
		{ "fma", ".rn .ftz .sat", "fma$F($1, $2, $3)", 3, 0 },
		{ "rcp", ".rn .approx .ftz", "1.0$F / $1", 1, 0 },
		{ "sqrt", ".rn .approx .ftz", "sqrt$F($1)", 1, 0 },
		{ "fma", ".rz .rm .rp .ftz .sat", "ag_fma_$Pr($1, $2, $3, $M)", 3, 0 },
		{ "rcp", ".rz .rm .rp .ftz", "ag_div_$Pr(1.0$F, $1, $M)", 1, 0 },
		{ "sqrt", ".rz .rm .rp .ftz", "ag_sqrt_$Pr($1, $M)", 1, 0 },
		{ "rsqrt", ".approx .ftz", "1.0$F / sqrt$F($1)", 1, 0 },
		{ "ex2", ".approx .ftz", "ag_ex2f($1)", 1, 1 },
		{ "lg2", ".approx .ftz", "log2f($1)", 1, 1 },
		{ "sin", ".approx .ftz", "sinf($1)", 1, 1 },
		{ "cos", ".approx .ftz", "cosf($1)", 1, 1 },
		{ "tanh", ".approx", "tanhf($1)", 1, 1 },
		{ "copysign", "", "copysign$F($2, $1)", 2, 0 },
	};
	struct tmpl k;
	size_t i;

	int directed = tr_has(in, ".rz") || tr_has(in, ".rm") || tr_has(in, ".rp");

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		if (strcmp(in->opcode, fns[i].op) || directed != !!strstr(fns[i].allowed, ".rz"))
			continue;
		if (setup(t, in, fns[i].allowed, &k, fns[i].nsrc))
			return -1;
		if (k.half)
			return emit_half(t, in, &k);
		if (need_float(t, in, &k, 1))
			return -1;
		if (fns[i].f32_only && k.ty != PTX_T_F32)
			return tr_unsupported(t, in, "type");
		return emit_tmpl(t, in, &k, fns[i].tmpl);
	}
	return tr_unsupported(t, in, NULL);
}

static int emit_testp(struct tr *t, const struct ptx_insn *in)
{
	static const char *const ops[][2] = {
		{ ".finite", "isfinite($1)" }, { ".infinite", "isinf($1)" },
		{ ".number", "!isnan($1)" }, { ".notanumber", "isnan($1)" },
		{ ".normal", "isnormal($1)" }, { ".subnormal", "(fpclassify($1) == FP_SUBNORMAL)" },
	};
	struct tmpl k;
	size_t i;

	if (setup(t, in, ".finite .infinite .number .notanumber .normal .subnormal", &k, 1) ||
	    need_float(t, in, &k, 1))
		return -1;
	k.dt = PTX_T_PRED;
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (tr_has(in, ops[i][0]))
			return emit_tmpl(t, in, &k, ops[i][1]);
	return tr_unsupported(t, in, "needs a test");
}

static const char *compare(const struct ptx_insn *in, int fp)
{
	static const char *const ints[][2] = {
		{ ".eq", "($1 == $2)" }, { ".ne", "($1 != $2)" }, { ".lt", "($1 < $2)" },
		{ ".le", "($1 <= $2)" }, { ".gt", "($1 > $2)" }, { ".ge", "($1 >= $2)" },
		{ ".lo", "(($U)$1 < ($U)$2)" }, { ".ls", "(($U)$1 <= ($U)$2)" },
		{ ".hi", "(($U)$1 > ($U)$2)" }, { ".hs", "(($U)$1 >= ($U)$2)" },
	};
	static const char *const floats[][2] = {
		{ ".eq", "($1 == $2)" }, { ".ne", "($1 < $2 || $1 > $2)" },
		{ ".lt", "($1 < $2)" }, { ".le", "($1 <= $2)" }, { ".gt", "($1 > $2)" },
		{ ".ge", "($1 >= $2)" }, { ".equ", "!($1 < $2 || $1 > $2)" },
		{ ".neu", "($1 != $2)" }, { ".ltu", "!($1 >= $2)" }, { ".leu", "!($1 > $2)" },
		{ ".gtu", "!($1 <= $2)" }, { ".geu", "!($1 < $2)" },
		{ ".num", "($1 == $1 && $2 == $2)" }, { ".nan", "($1 != $1 || $2 != $2)" },
	};
	size_t i;

	if (fp) {
		for (i = 0; i < sizeof(floats) / sizeof(floats[0]); i++)
			if (tr_has(in, floats[i][0]))
				return floats[i][1];
	} else {
		for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
			if (tr_has(in, ints[i][0]))
				return ints[i][1];
	}
	return NULL;
}

/* setp's comparison as lane l reads it into e, its type in k, and its
 * sources in src (the third: the boolean operator's predicate). */
static int setp_compare(struct tr *t, const struct ptx_insn *in, const char *bop, struct tmpl *k,
			struct strbuf *src, struct strbuf *e)
{
	const char *cmp;

	if (setup(t, in, ".eq .ne .lt .le .gt .ge .lo .ls .hi .hs .equ .neu .ltu .leu .gtu .geu "
		  ".num .nan .and .or .xor .ftz", k, 2))
		return -1;
	cmp = compare(in, tr_is_float(k->ty) || k->half);
	if (!cmp || k->ty == PTX_T_PRED || k->ty == PTX_T_F16X2 || k->ty == PTX_T_BF16X2)
		return tr_unsupported(t, in, "comparison");
	if (tr_nops(t, in, bop ? 4 : 3, bop ? 4 : 3))
		return -1;
	if (tr_src(t, in, &in->ops[1], k->ty, &src[0]) || tr_src(t, in, &in->ops[2], k->ty, &src[1]) ||
	    (bop && tr_src(t, in, &in->ops[3], PTX_T_PRED, &src[2])))
		return -1;
	if (k->half) {
		tr_wrap(&src[0], k->ty == PTX_T_BF16 ? "ag_h2d_bf" : "ag_h2d_f");
		tr_wrap(&src[1], k->ty == PTX_T_BF16 ? "ag_h2d_bf" : "ag_h2d_f");
	}
	if (k->ftz && k->ty == PTX_T_F32) {
		tr_wrap(&src[0], "ag_ftz");
		tr_wrap(&src[1], "ag_ftz");
	}
	expand(e, cmp, k, src);
	return 0;
}

static const char *setp_bop(const struct ptx_insn *in)
{
	return tr_has(in, ".and") ? "&&" : tr_has(in, ".or") ? "||" : tr_has(in, ".xor") ? "!=" : NULL;
}

/* setp: p = cmp BOOL c, and the optional q = !cmp BOOL c. */
static int emit_setp(struct tr *t, const struct ptx_insn *in)
{
	struct strbuf src[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct strbuf e = STRBUF_INIT, r = STRBUF_INIT;
	const char *bop = setp_bop(in);
	struct tmpl k;
	int rc = -1;

	if (setp_compare(t, in, bop, &k, src, &e))
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "uint8_t c_ = %s;\n\t\t\t", e.buf);
	sb_addf(&r, bop ? "(c_ %s %s)" : "c_", bop, src[2].buf);
	if (tr_dst(t, in, &in->ops[0], PTX_T_PRED, r.buf))
		goto out;
	/* the block's branch counts its lanes (translate_func.c) */
	if (in == t->counter)
		sb_addf(&t->code, "\t\t\tag_cnt += %s;\n", r.buf);
	if (in->ops[0].pair) {
		sb_reset(&r);
		sb_addf(&r, bop ? "(!c_ %s %s)" : "!c_", bop, src[2].buf);
		sb_adds(&t->code, "\t\t\t");
		if (tr_dst(t, in, in->ops[0].pair, PTX_T_PRED, r.buf))
			goto out;
	}
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&src[0]);
	sb_free(&src[1]);
	sb_free(&src[2]);
	sb_free(&e);
	sb_free(&r);
	return rc;
}

/*
 * The comparison of a setp with no boolean operator, as lane l reads it,
 * into e (group.c's guards decided by their end lanes, ends.c), when it
 * orders 32-bit integers: 1 signed, 2 unsigned.  0 for any other, with
 * nothing written; -1 on failure (setp was translated before: none).
 */
int tr_setp_order(struct tr *t, const struct ptx_insn *in, struct strbuf *e)
{
	static const char *const order[] = { ".lt", ".le", ".gt", ".ge", ".lo", ".ls", ".hi",
					     ".hs" };
	struct strbuf src[4] = { STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT };
	struct tmpl k;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(order) / sizeof(order[0]) && !tr_has(in, order[i]); i++)
		;
	if (i == sizeof(order) / sizeof(order[0]) || setp_bop(in))
		return 0;
	if (setp_compare(t, in, NULL, &k, src, e))
		rc = -1;
	else if (tr_is_float(k.ty) || k.half || tr_size(k.ty) != 4)
		sb_reset(e);
	else
		rc = tr_is_signed(k.ty) && i < 4 ? 1 : 2;
	for (i = 0; i < 3; i++)
		sb_free(&src[i]);
	return rc;
}

static int emit_selp(struct tr *t, const struct ptx_insn *in)
{
	struct tmpl k;

	if (setup(t, in, "", &k, 3))
		return -1;
	k.st[2] = PTX_T_PRED;
	return emit_tmpl(t, in, &k, "($3 ? $1 : $2)");
}

static int emit_logic(struct tr *t, const struct ptx_insn *in)
{
	static const char *const ops[][3] = {
		{ "and", "($T)($1 & $2)", "($1 && $2)" }, { "or", "($T)($1 | $2)", "($1 || $2)" },
		{ "xor", "($T)($1 ^ $2)", "($1 != $2)" }, { "not", "($T)~$1", "!$1" },
		{ "cnot", "($T)($1 == 0)", NULL },
	};
	struct tmpl k;
	size_t i;
	int unary = in->opcode[0] == 'n' || in->opcode[0] == 'c';

	if (setup(t, in, "", &k, unary ? 1 : 2))
		return -1;
	if (tr_is_float(k.ty) || tr_is_signed(k.ty))
		return tr_unsupported(t, in, "type");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(in->opcode, ops[i][0]) && (k.ty != PTX_T_PRED || ops[i][2]))
			return emit_tmpl(t, in, &k, ops[i][k.ty == PTX_T_PRED ? 2 : 1]);
	return tr_unsupported(t, in, "type");
}

static int emit_shift(struct tr *t, const struct ptx_insn *in)
{
	struct tmpl k;

	if (setup(t, in, "", &k, 2))
		return -1;
	if (tr_is_float(k.ty) || k.ty == PTX_T_PRED || tr_size(k.ty) < 2)
		return tr_unsupported(t, in, "type");
	k.st[1] = PTX_T_U32;
	if (in->opcode[2] == 'l')
		return emit_tmpl(t, in, &k, "($T)ag_shl$N($1, $2)");
	return emit_tmpl(t, in, &k, tr_is_signed(k.ty) ? "ag_shrs$N($1, $2)" :
			 "ag_shru$N($1, $2)");
}

static int emit_bits(struct tr *t, const struct ptx_insn *in)
{
	struct tmpl k;
	int sgn;

	if (setup(t, in, ".shiftamt", &k, 1))
		return -1;
	if (tr_is_float(k.ty) || k.ty == PTX_T_PRED || tr_size(k.ty) < 4)
		return tr_unsupported(t, in, "type");
	sgn = tr_is_signed(k.ty);
	if (!strcmp(in->opcode, "brev"))
		return emit_tmpl(t, in, &k, "ag_brev$N($1)");
	k.dt = PTX_T_U32;
	if (!strcmp(in->opcode, "popc"))
		return emit_tmpl(t, in, &k, "ag_popc$N($1)");
	if (!strcmp(in->opcode, "clz"))
		return emit_tmpl(t, in, &k, "ag_clz$N($1)");
	if (tr_has(in, ".shiftamt"))
		return emit_tmpl(t, in, &k, sgn ? "ag_bfind$N($1, 1, 1)" : "ag_bfind$N($1, 0, 1)");
	return emit_tmpl(t, in, &k, sgn ? "ag_bfind$N($1, 1, 0)" : "ag_bfind$N($1, 0, 0)");
}

static int emit_bitfield(struct tr *t, const struct ptx_insn *in)
{
	int bfi = in->opcode[2] == 'i';
	struct tmpl k;

	if (setup(t, in, "", &k, bfi ? 4 : 3))
		return -1;
	if (tr_is_float(k.ty) || k.ty == PTX_T_PRED || tr_size(k.ty) < 4)
		return tr_unsupported(t, in, "type");
	k.st[bfi ? 2 : 1] = k.st[bfi ? 3 : 2] = PTX_T_U32;
	if (bfi)
		return emit_tmpl(t, in, &k, "($T)ag_bfi$N($1, $2, $3, $4)");
	return emit_tmpl(t, in, &k, tr_is_signed(k.ty) ? "($T)ag_bfe$N($1, $2, $3, 1)" :
			 "($T)ag_bfe$N($1, $2, $3, 0)");
}

/* bmsk.{clamp,wrap}.b32 d, a, b: b bits set from bit a (CUB's bit-field
 * helpers, thus Thrust's sort). */
static int emit_bmsk(struct tr *t, const struct ptx_insn *in)
{
	int clamp = tr_has(in, ".clamp");
	struct tmpl k;

	if (setup(t, in, ".clamp .wrap", &k, 2))
		return -1;
	if (k.ty != PTX_T_B32 || clamp == tr_has(in, ".wrap"))
		return tr_unsupported(t, in, "type or mode");
	k.st[0] = k.st[1] = PTX_T_U32;
	return emit_tmpl(t, in, &k, clamp ? "ag_bmsk($1, $2, 1)" : "ag_bmsk($1, $2, 0)");
}

/* lop3.b32 d, a, b, c, lut: any function of three inputs, bitwise. */
static int emit_lop3(struct tr *t, const struct ptx_insn *in)
{
	struct tmpl k;

	if (setup(t, in, "", &k, 4))
		return -1;
	if (k.ty != PTX_T_B32)
		return tr_unsupported(t, in, "type");
	k.st[3] = PTX_T_U32;
	return emit_tmpl(t, in, &k, "ag_lop3($1, $2, $3, $4)");
}

/* sad d, a, b, c: c + |a - b|. */
static int emit_sad(struct tr *t, const struct ptx_insn *in)
{
	struct tmpl k;

	if (setup(t, in, "", &k, 3))
		return -1;
	if (tr_is_float(k.ty) || k.ty == PTX_T_PRED || tr_size(k.ty) < 2)
		return tr_unsupported(t, in, "type");
	return emit_tmpl(t, in, &k, "($T)(($U)$3 + ($1 > $2 ? ($U)$1 - ($U)$2 : ($U)$2 - ($U)$1))");
}

/* mul24/mad24.{lo,hi}.{u32,s32}: the 48-bit product of the operands' low
 * 24 bits (sign-extended for .s32); .lo keeps bits 31..0, .hi 47..16. */
static int emit_mul24(struct tr *t, const struct ptx_insn *in)
{
	int mad = in->opcode[1] == 'a', hi = tr_has(in, ".hi");
	struct strbuf e = STRBUF_INIT;
	struct tmpl k;
	int rc;

	if (setup(t, in, ".lo .hi", &k, mad ? 3 : 2))
		return -1;
	if ((k.ty != PTX_T_U32 && k.ty != PTX_T_S32) || hi == tr_has(in, ".lo"))
		return tr_unsupported(t, in, "type or mode");
	sb_addf(&e, "($T)(uint32_t)((ag_mul24$S((uint32_t)$1, (uint32_t)$2) >> %d)%s)",
		hi ? 16 : 0, mad ? " + (uint32_t)$3" : "");
	rc = emit_tmpl(t, in, &k, e.buf);
	sb_free(&e);
	return rc;
}

/* dp4a.atype.btype d, a, b, c: c plus the four byte products of a and b;
 * dp2a.{lo,hi}: the two 16-bit halves of a times bytes 0,1 or 2,3 of b.
 * d and c are .s32 when either operand type is signed, sums wrap. */
static int emit_dp(struct tr *t, const struct ptx_insn *in)
{
	int two = in->opcode[2] == '2', hi = tr_has(in, ".hi");
	enum ptx_type ty[2];
	struct strbuf e = STRBUF_INIT;
	struct tmpl k;
	uint32_t n;
	int rc;

	memset(&k, 0, sizeof(k));
	if (tr_mods(t, in, two ? ".lo .hi" : "", ty, 2, &n))
		return -1;
	if (n != 2 || (ty[0] != PTX_T_U32 && ty[0] != PTX_T_S32) ||
	    (ty[1] != PTX_T_U32 && ty[1] != PTX_T_S32) || (two && hi == tr_has(in, ".lo")))
		return tr_unsupported(t, in, "type or mode");
	k.ty = k.dt = k.st[2] = ty[0] == PTX_T_S32 || ty[1] == PTX_T_S32 ? PTX_T_S32 : PTX_T_U32;
	k.st[0] = k.st[1] = PTX_T_U32;
	k.nsrc = 3;
	sb_addf(&e, "($T)((uint32_t)$3 + ag_dp%da((uint32_t)$1, (uint32_t)$2, %d, %d, %d))",
		two ? 2 : 4, ty[0] == PTX_T_S32, ty[1] == PTX_T_S32, hi);
	rc = emit_tmpl(t, in, &k, e.buf);
	sb_free(&e);
	return rc;
}

/* shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of b:a. */
static int emit_shf(struct tr *t, const struct ptx_insn *in)
{
	struct tmpl k;
	int left = tr_has(in, ".l"), clamp = tr_has(in, ".clamp");

	if (setup(t, in, ".l .r .wrap .clamp", &k, 3))
		return -1;
	if (k.ty != PTX_T_B32 || left == tr_has(in, ".r") || clamp == tr_has(in, ".wrap"))
		return tr_unsupported(t, in, "type or mode");
	k.st[2] = PTX_T_U32;
	return emit_tmpl(t, in, &k, left ? (clamp ? "ag_shf($1, $2, $3, 1, 1)" :
					    "ag_shf($1, $2, $3, 1, 0)") :
			 (clamp ? "ag_shf($1, $2, $3, 0, 1)" : "ag_shf($1, $2, $3, 0, 0)"));
}

static int emit_prmt(struct tr *t, const struct ptx_insn *in)
{
	static const char *const modes[] = {
		"ag_prmt($1, $2, $3, 0)", ".f4e", "ag_prmt($1, $2, $3, 1)", ".b4e",
		"ag_prmt($1, $2, $3, 2)", ".rc8", "ag_prmt($1, $2, $3, 3)", ".ecl",
		"ag_prmt($1, $2, $3, 4)", ".ecr", "ag_prmt($1, $2, $3, 5)", ".rc16",
		"ag_prmt($1, $2, $3, 6)",
	};
	struct tmpl k;
	size_t i;

	if (setup(t, in, ".f4e .b4e .rc8 .ecl .ecr .rc16", &k, 3))
		return -1;
	if (k.ty != PTX_T_B32 || in->nmods > 2)
		return tr_unsupported(t, in, "type or mode");
	for (i = 1; i < sizeof(modes) / sizeof(modes[0]); i += 2)
		if (tr_has(in, modes[i]))
			return emit_tmpl(t, in, &k, modes[i + 1]);
	return emit_tmpl(t, in, &k, modes[0]);
}

tr_emit_fn tr_arith_emitter(const char *opcode)
{
	static const struct {
		const char *op;
		tr_emit_fn fn;
	} tab[] = {
		{ "add", emit_addsub }, { "sub", emit_addsub }, { "addc", emit_addsub },
		{ "subc", emit_addsub }, { "mul", emit_mul }, { "mad", emit_mul }, { "madc", emit_mul },
		{ "div", emit_divrem }, { "rem", emit_divrem }, { "min", emit_minmax },
		{ "max", emit_minmax }, { "abs", emit_absneg }, { "neg", emit_absneg },
		{ "fma", emit_float_fn }, { "rcp", emit_float_fn }, { "sqrt", emit_float_fn },
		{ "rsqrt", emit_float_fn }, { "ex2", emit_float_fn }, { "lg2", emit_float_fn },
		{ "sin", emit_float_fn }, { "cos", emit_float_fn }, { "tanh", emit_float_fn },
		{ "copysign", emit_float_fn }, { "testp", emit_testp }, { "setp", emit_setp },
		{ "selp", emit_selp }, { "and", emit_logic }, { "or", emit_logic },
		{ "xor", emit_logic }, { "not", emit_logic }, { "cnot", emit_logic },
		{ "shl", emit_shift }, { "shr", emit_shift }, { "popc", emit_bits },
		{ "clz", emit_bits }, { "brev", emit_bits }, { "bfind", emit_bits },
		{ "bfe", emit_bitfield }, { "bfi", emit_bitfield }, { "prmt", emit_prmt },
		{ "shf", emit_shf }, { "sad", emit_sad }, { "lop3", emit_lop3 },
		{ "mul24", emit_mul24 }, { "mad24", emit_mul24 }, { "dp4a", emit_dp },
		{ "dp2a", emit_dp }, { "bmsk", emit_bmsk },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(opcode, tab[i].op))
			return tab[i].fn;
	return NULL;
}
