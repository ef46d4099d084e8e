/*
 * emit_warp.c - what only exists because lanes run as a warp: shfl.sync,
 * vote.sync, match.sync, activemask, bar.warp.sync, nanosleep, and the
 * special registers (%tid, %laneid, %clock ...).  Lanes of a warp run each
 * instruction together, so a warp operation reads all lanes' sources
 * first, then writes each active lane's result.
 */
#include <inttypes.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

static void uses_warp(struct tr *t)
{
	t->fi[t->fidx].flags |= AG_KF_WARP;
}

/* Whether shfl.sync's predicate destination is read: nvcc writes one for
 * every __shfl_*_sync (a row of bytes written for nothing cost a warp
 * scan 5%). */
static int shfl_pred_read(const struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *p = in->ops[0].pair;

	return p && !(p->kind == PTX_OP_REG && p->name && !tr_read(t->fn, in, p->name));
}

/* A lane's results of shfl.sync: the value, and whether its source lane
 * lay in its segment when the instruction's predicate is read. */
static int shfl_dst(struct tr *t, const struct ptx_insn *in, const char *value, const char *ok)
{
	if (tr_dst(t, in, &in->ops[0], PTX_T_B32, value))
		return -1;
	if (!shfl_pred_read(t, in))
		return 0;
	sb_adds(&t->code, "\t\t\t");
	return tr_dst(t, in, in->ops[0].pair, PTX_T_PRED, ok);
}

/* shfl.sync for a whole warp whose lanes give one b and one c (the
 * common case: constants in registers) by ag_shfl_warp; the lanes' loop
 * that follows (emit_shfl) is the else branch.  0, or -1 with t->err. */
static int emit_shfl_warp(struct tr *t, const struct ptx_insn *in, int mode, const char *b,
			  const char *c)
{
	sb_addf(&t->code, "\t\tuint32_t b_, c_, u_ = 0;\n\t\tl = 0;\n\t\tb_ = %s;\n\t\tc_ = %s;\n"
		"\t\tfor (l = 0; l < 32; l++) u_ |= ((%s) ^ b_) | ((%s) ^ c_);\n"
		"\t\tif (ag_all(m) && !u_) {\n\t\tuint32_t d_[32];\n\t\tuint8_t k_[32];\n"
		"\t\tag_shfl_warp(%d, sv_, b_, c_, d_, %s);\n"
		"\t\tfor (l = 0; l < 32; l++) {\n\t\t\t", b, c, b, c, mode,
		shfl_pred_read(t, in) ? "k_" : "NULL");
	if (shfl_dst(t, in, "d_[l]", "k_[l]"))
		return -1;
	sb_adds(&t->code, "\t\t}\n\t\t} else\n");
	return 0;
}

/* Whether every lane of a group translation's call holds the same value
 * in operand o. */
static int same_in_call(const struct tr *t, const struct ptx_operand *o)
{
	return o->kind == PTX_OP_IMM ||
		(o->kind == PTX_OP_REG && !o->component && tr_lookup(t, o->name) &&
		 tr_shape_reg(t->shape, o->name, NULL) == TR_SHAPE_U);
}

/* Whether operand o is a varying 32-bit integer register of a group
 * translation, whose parts' rows ("r1_5p0", "r1_5p1") go to rows. */
static int group_rows(const struct tr *t, const struct ptx_operand *o, struct strbuf rows[2])
{
	const struct tr_sym *s;
	uint32_t h;

	if (o->kind != PTX_OP_REG || o->component || o->neg || !(s = tr_lookup(t, o->name)) ||
	    s->kind != TK_REG || !s->local || tr_shape_reg(t->shape, o->name, NULL) != TR_SHAPE_V ||
	    (s->type != PTX_T_B32 && s->type != PTX_T_U32 && s->type != PTX_T_S32))
		return 0;
	for (h = 0; h < 2; h++)
		tr_group_row(t, o->name, h, &rows[h]);
	return 1;
}

/*
 * shfl.sync in a group translation's call that runs one warp (shape.c):
 * the two parts' values a are the warp's 32, each part's lanes take
 * theirs.  With one b and one c for the warp (the common case),
 * ag_shfl_halves' permute of the two halves, straight from and to the
 * registers' rows where they are rows of 32-bit integers; else each
 * lane's source (ag_shfl_src).  Every lane of the call runs it: shape.c
 * takes no guarded shfl, and a lane that has left reads what it left.
 */
static int emit_shfl_group(struct tr *t, const struct ptx_insn *in, int mode, const char *a,
			   const char *b, const char *c)
{
	int same = same_in_call(t, &in->ops[2]) && same_in_call(t, &in->ops[3]);
	int pred = shfl_pred_read(t, in), rc = -1;
	struct strbuf src[2] = { STRBUF_INIT, STRBUF_INIT }, dst[2] = { STRBUF_INIT, STRBUF_INIT };
	int from_rows = same && group_rows(t, &in->ops[1], src);
	int to_rows = same && !pred && group_rows(t, &in->ops[0], dst);
	size_t at;

	tr_group_close(t);
	sb_adds(&t->code, "\t\t{\n\t\tuint32_t sv_[32], d_[32];\n\t\tuint8_t k_[32];\n");
	at = t->code.len;
	if (!from_rows) {
		sb_addf(&t->code, NO_UNROLL "\t\tfor (size_t l = 0; l < AG_G; l++)\n"
			"\t\t\tsv_[AG_G * @H + l] = %s;\n", a);
		tr_group_parts(t, at, 2);
	}
	if (same) {
		at = t->code.len;
		sb_addf(&t->code, "\t\t{\n\t\tconst size_t l = 0;\n\t\t(void)l;\n"
			"\t\tconst uint32_t *const s_[2] = { %s, %s };\n"
			"\t\tuint32_t *const r_[2] = { %s, %s };\n"
			"\t\tag_shfl_halves(%d, s_, %s, %s, r_, %s);\n\t\t}\n",
			from_rows ? src[0].buf : "sv_", from_rows ? src[1].buf : "sv_ + AG_G",
			to_rows ? dst[0].buf : "d_", to_rows ? dst[1].buf : "d_ + AG_G",
			mode, b, c, pred ? "k_" : "NULL");
		tr_group_parts(t, at, 1);
	}
	if (!to_rows) {
		at = t->code.len;
		sb_adds(&t->code, NO_UNROLL "\t\tfor (size_t l = 0; l < AG_G; l++) {\n\t\t\t");
		if (!same)
			sb_addf(&t->code, "unsigned j_ = ag_shfl_src(%d, (int)(AG_G * @H + l), %s, %s, "
				"&k_[AG_G * @H + l]);\n\t\t\td_[AG_G * @H + l] = sv_[j_];\n\t\t\t",
				mode, b, c);
		if (shfl_dst(t, in, "d_[AG_G * @H + l]", "k_[AG_G * @H + l]"))
			goto out;
		sb_adds(&t->code, "\t\t}\n");
		tr_group_parts(t, at, 2);
	}
	sb_adds(&t->code, "\t\t}\n");
	rc = 0;
out:
	sb_free(&src[0]);
	sb_free(&src[1]);
	sb_free(&dst[0]);
	sb_free(&dst[1]);
	return rc;
}

/* shfl.sync.mode.b32 d[|p], a, b, c, membermask (legacy: no membermask). */
static int emit_shfl(struct tr *t, const struct ptx_insn *in)
{
	static const char *const modes[] = { ".up", ".down", ".bfly", ".idx" };
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, c = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n;
	int mode, rc = -1;

	if (tr_mods(t, in, ".sync .up .down .bfly .idx", &ty, 1, &n))
		return -1;
	for (mode = 0; mode < 4 && !tr_has(in, modes[mode]); mode++)
		;
	if (n != 1 || ty != PTX_T_B32 || mode == 4)
		return tr_unsupported(t, in, "mode or type");
	if (tr_nops(t, in, tr_has(in, ".sync") ? 5 : 4, tr_has(in, ".sync") ? 5 : 4) ||
	    tr_src(t, in, &in->ops[1], PTX_T_B32, &a) || tr_src(t, in, &in->ops[2], PTX_T_U32, &b) ||
	    tr_src(t, in, &in->ops[3], PTX_T_U32, &c))
		goto out;
	uses_warp(t);
	if (t->shape) {
		rc = emit_shfl_group(t, in, mode, a.buf, b.buf, c.buf);
		goto out;
	}
	sb_addf(&t->code, "\t\t{\n\t\tuint32_t sv_[32];\n"
		"\t\tfor (l = 0; l < 32; l++) sv_[l] = %s;\n", a.buf);
	if (!t->scalar && !in->guard && emit_shfl_warp(t, in, mode, b.buf, c.buf))
		goto out;
	tr_lanes_begin(t, in);
	/* ok_ per lane: one shared by the loop's turns keeps it scalar */
	sb_addf(&t->code, "uint8_t ok_;\n\t\t\tunsigned j_ = ag_shfl_src(%d, l, %s, %s, &ok_);\n"
		"\t\t\t", mode, b.buf, c.buf);
	if (shfl_dst(t, in, "sv_[j_]", "ok_"))
		goto out;
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\t}\n");
	rc = 0;
out:
	sb_free(&a);
	sb_free(&b);
	sb_free(&c);
	return rc;
}

/* The member mask operand, or all lanes for the legacy forms. */
static int member_mask(struct tr *t, const struct ptx_insn *in, uint32_t k, struct strbuf *sb)
{
	if (k < in->nops)
		return tr_src(t, in, &in->ops[k], PTX_T_U32, sb);
	sb_adds(sb, "0xffffffffu");
	return 0;
}

/* vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32. */
static int emit_vote(struct tr *t, const struct ptx_insn *in)
{
	static const char *const ops[][2] = {
		{ ".all", "(bal_ & mm_) == mm_" }, { ".any", "(bal_ & mm_) != 0" },
		{ ".uni", "((bal_ & mm_) == 0 || (bal_ & mm_) == mm_)" }, { ".ballot", "bal_ & mm_" },
	};
	struct strbuf p = STRBUF_INIT, mm = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n, i;
	int sync = tr_has(in, ".sync"), rc = -1;

	if (tr_mods(t, in, ".sync .all .any .uni .ballot", &ty, 1, &n))
		return -1;
	for (i = 0; i < 4 && !tr_has(in, ops[i][0]); i++)
		;
	if (n != 1 || i == 4 || ty != (i == 3 ? PTX_T_B32 : PTX_T_PRED))
		return tr_unsupported(t, in, "mode or type");
	if (tr_nops(t, in, sync ? 3 : 2, sync ? 3 : 2) ||
	    tr_src(t, in, &in->ops[1], PTX_T_PRED, &p) || member_mask(t, in, 2, &mm))
		goto out;
	uses_warp(t);
	sb_adds(&t->code, "\t\t{\n\t\tuint32_t bal_ = 0, act_ = 0;\n");
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "act_ |= 1u << l; if (%s) bal_ |= 1u << l;\n", p.buf);
	tr_lanes_end(t);
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "uint32_t mm_ = (%s) & act_;\n\t\t\t", mm.buf);
	if (tr_dst(t, in, &in->ops[0], i == 3 ? PTX_T_B32 : PTX_T_PRED, ops[i][1]))
		goto out;
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\t}\n");
	rc = 0;
out:
	sb_free(&p);
	sb_free(&mm);
	return rc;
}

/* The start of a warp-wide operation on operand 1 with the member mask
 * of operand 2: every lane's value into v_[32], then the lane loop with
 * mm_ = the members that are active.  warp_gather_end() closes both. */
static int warp_gather_begin(struct tr *t, const struct ptx_insn *in, enum ptx_type ty)
{
	struct strbuf a = STRBUF_INIT, mm = STRBUF_INIT;
	int rc = -1;

	if (tr_nops(t, in, 3, 3) || tr_src(t, in, &in->ops[1], ty, &a) ||
	    member_mask(t, in, 2, &mm))
		goto out;
	uses_warp(t);
	sb_addf(&t->code, "\t\t{\n\t\tuint64_t v_[32];\n\t\tuint32_t act_ = ag_mask_bits(m);\n"
		"\t\tfor (l = 0; l < 32; l++) v_[l] = %s;\n", a.buf);
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "uint32_t mm_ = (%s) & act_, k_;\n\t\t\t", mm.buf);
	rc = 0;
out:
	sb_free(&a);
	sb_free(&mm);
	return rc;
}

static void warp_gather_end(struct tr *t)
{
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\t}\n");
}

/* match.any.sync.b32 d, a, membermask; match.all.sync.b32 d[|p], a, mm. */
static int emit_match(struct tr *t, const struct ptx_insn *in)
{
	enum ptx_type ty;
	uint32_t n;
	int all = tr_has(in, ".all");

	if (tr_mods(t, in, ".sync .any .all", &ty, 1, &n))
		return -1;
	if (n != 1 || (ty != PTX_T_B32 && ty != PTX_T_B64) || (!all && !tr_has(in, ".any")))
		return tr_unsupported(t, in, "mode or type");
	if (warp_gather_begin(t, in, PTX_T_U64))
		return -1;
	sb_adds(&t->code, "uint32_t r_ = 0;\n\t\t\tfor (k_ = 0; k_ < 32; k_++) "
		"if ((mm_ >> k_ & 1) && v_[k_] == v_[l]) r_ |= 1u << k_;\n\t\t\t");
	if (tr_dst(t, in, &in->ops[0], PTX_T_B32, all ? "(r_ == mm_ ? mm_ : 0)" : "r_"))
		return -1;
	if (all && in->ops[0].pair) {
		sb_adds(&t->code, "\t\t\t");
		if (tr_dst(t, in, in->ops[0].pair, PTX_T_PRED, "(r_ == mm_)"))
			return -1;
	}
	warp_gather_end(t);
	return 0;
}

/* redux.sync.op.type d, a, membermask: every member lane gets the
 * reduction of the members' values (add, min, max on .u32/.s32; and, or,
 * xor on .b32). */
static int emit_redux(struct tr *t, const struct ptx_insn *in)
{
	static const char *const ops[][4] = {
		{ ".add", "0", "0", "r_ += w_" },
		{ ".min", "0xffffffffu", "0x7fffffff", "r_ = w_ < r_ ? w_ : r_" },
		{ ".max", "0", "(-0x7fffffff - 1)", "r_ = w_ > r_ ? w_ : r_" },
		{ ".and", "0xffffffffu", NULL, "r_ &= w_" },
		{ ".or", "0", NULL, "r_ |= w_" },
		{ ".xor", "0", NULL, "r_ ^= w_" },
	};
	enum ptx_type ty;
	uint32_t n, i;
	const char *ct;
	int sgn;

	if (tr_mods(t, in, ".sync .add .min .max .and .or .xor", &ty, 1, &n))
		return -1;
	for (i = 0; i < 6 && !tr_has(in, ops[i][0]); i++)
		;
	sgn = ty == PTX_T_S32;
	ct = sgn ? "int32_t" : "uint32_t";
	if (n != 1 || i == 6 || !tr_has(in, ".sync") ||
	    ty != (i < 3 ? (sgn ? PTX_T_S32 : PTX_T_U32) : PTX_T_B32))
		return tr_unsupported(t, in, "operation or type");
	if (warp_gather_begin(t, in, PTX_T_U32))
		return -1;
	sb_addf(&t->code, "%s r_ = %s;\n\t\t\tfor (k_ = 0; k_ < 32; k_++) "
		"if (mm_ >> k_ & 1) { %s w_ = (%s)(uint32_t)v_[k_]; %s; }\n\t\t\t",
		ct, ops[i][sgn ? 2 : 1], ct, ct, ops[i][3]);
	if (tr_dst(t, in, &in->ops[0], PTX_T_U32, "(uint32_t)r_"))
		return -1;
	warp_gather_end(t);
	return 0;
}

static int emit_activemask(struct tr *t, const struct ptx_insn *in)
{
	enum ptx_type ty;
	uint32_t n;

	if (tr_mods(t, in, "", &ty, 1, &n) || tr_nops(t, in, 1, 1))
		return -1;
	if (n != 1 || ty != PTX_T_B32)
		return tr_unsupported(t, in, "type");
	uses_warp(t);
	tr_lanes_begin(t, in);
	if (tr_dst(t, in, &in->ops[0], PTX_T_B32, "ag_mask_bits(m)"))
		return -1;
	tr_lanes_end(t);
	return 0;
}

/* bar.warp.sync: the lanes already run in lockstep. */
static int emit_warp_sync(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, ".warp .sync", NULL, 0, NULL) || tr_nops(t, in, 1, 1))
		return -1;
	if (!tr_has(in, ".warp"))
		return tr_unsupported(t, in, NULL);
	uses_warp(t);
	return 0;
}

/* nanosleep t: PTX allows any sleep from 0 to 2t; one yield of the OS
 * thread for the warp lets other blocks (a spinning waiter's producer)
 * run. */
static int emit_nanosleep(struct tr *t, const struct ptx_insn *in)
{
	struct strbuf d = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n;

	if (tr_mods(t, in, "", &ty, 1, &n) || tr_nops(t, in, 1, 1))
		return -1;
	if (n != 1 || ty != PTX_T_U32)
		return tr_unsupported(t, in, "type");
	if (tr_src(t, in, &in->ops[0], PTX_T_U32, &d)) {
		sb_free(&d);
		return -1;
	}
	sb_adds(&t->code, "\t\t{\n\t\tint sleep_ = 0;\n");
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "sleep_ |= (%s) > 0;\n", d.buf);
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\tif (sleep_)\n\t\t\tsched_yield();\n\t\t}\n");
	sb_free(&d);
	return 0;
}

tr_emit_fn tr_warp_emitter(const char *opcode)
{
	static const struct {
		const char *op;
		tr_emit_fn fn;
	} tab[] = {
		{ "shfl", emit_shfl }, { "vote", emit_vote }, { "match", emit_match },
		{ "activemask", emit_activemask }, { "bar", emit_warp_sync },
		{ "redux", emit_redux }, { "nanosleep", emit_nanosleep },
		{ "mbarrier", tr_emit_mbarrier },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(opcode, tab[i].op))
			return tab[i].fn;
	return NULL;
}

/* What the sweep carried for lane l of a group call (stride.c): the
 * register in's destination, at offset o->i of the lane's thread's slot.
 * The slot is addressed from the part's first thread plus l slots, not
 * from lane l's %tid.x: that index is a 32-bit sum GCC cannot prove free
 * of wrapping, so it loaded the lanes one at a time (the suite's
 * reduction on 2^18 floats, all block ends, one thread: 0.415 -> 0.332
 * ms, bench/probes/reduce_sizes.cu). */
static int carried(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		   struct strbuf *sb, enum ptx_type *ty)
{
	const struct tr_sym *d = tr_lookup(t, in->ops[0].name);

	if (!d)
		return tr_unsupported(t, in, "a carried register");
	sb_addf(sb, "ag_ld(%s, ag_carried_at(b, ", tr_ctype(d->type));
	tr_group_part(t, "ag_tid0p", NULL, 0, sb);
	sb_addf(sb, ", %u) + (size_t)l * %u + %" PRId64 ")", t->stride->slot, t->stride->slot, o->i);
	*ty = d->type;
	return 0;
}

/* A special register of lane l as a C expression. */
int tr_sreg(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	    struct strbuf *sb, enum ptx_type *ty)
{
	static const struct {
		const char *name, *expr;
		int wide;
	} plain[] = {
		{ "%laneid", "(uint32_t)l", 0 }, { "%warpid", "w->id", 0 },
		{ "%nwarpid", "w->nw", 0 }, { "%smid", "(b->worker % ag_nsm)", 0 },
		{ "%nsmid", "ag_nsm", 0 }, { "%gridid", "(uint64_t)(uintptr_t)b->env", 1 },
		{ "%clock", "(uint32_t)ag_clock()", 0 }, { "%clock_hi", "(uint32_t)(ag_clock() >> 32)", 0 },
		{ "%clock64", "ag_clock()", 1 }, { "%globaltimer", "ag_globaltimer()", 1 },
		{ "%globaltimer_lo", "(uint32_t)ag_globaltimer()", 0 },
		{ "%globaltimer_hi", "(uint32_t)(ag_globaltimer() >> 32)", 0 },
		{ "%lanemask_eq", "(1u << l)", 0 }, { "%lanemask_lt", "((1u << l) - 1)", 0 },
		{ "%lanemask_le", "(uint32_t)((2ull << l) - 1)", 0 },
		{ "%lanemask_gt", "~(uint32_t)((2ull << l) - 1)", 0 },
		{ "%lanemask_ge", "~((1u << l) - 1)", 0 },
		{ "%dynamic_smem_size", "b->env->dyn_shared", 0 },
		{ "%total_smem_size", "(w->dyn + b->env->dyn_shared)", 0 },
		{ "WARP_SZ", "32u", 0 },
		{ "%envreg1", "(uint32_t)(b->env->grid_ws >> 32)", 0 },
		{ "%envreg2", "(uint32_t)b->env->grid_ws", 0 },
		/* every block is a cluster of its own (launches asking for
		 * bigger clusters are refused) */
		{ "%cluster_ctarank", "0u", 0 }, { "%cluster_nctarank", "1u", 0 },
		{ "%is_explicit_cluster", "0u", 0 },
	};
	/* the scalar version keeps them in locals (translate_fast.c) */
	static const struct {
		const char *name, *fmt, *local;
	} dims[] = {
		{ "%tid", "w->tid[%d][l]", "ag_tid%d" }, { "%ntid", "b->env->ntid[%d]", "ag_ntid%d" },
		{ "%ctaid", "b->ctaid[%d]", "ag_ctaid%d" },
		{ "%nctaid", "b->env->nctaid[%d]", "ag_nctaid%d" },
		{ "%clusterid", "b->ctaid[%d]", "ag_ctaid%d" },
		{ "%nclusterid", "b->env->nctaid[%d]", "ag_nctaid%d" },
		{ "%cluster_ctaid", "0u", "0u" }, { "%cluster_nctaid", "1u", "1u" },
	};
	const char *c = o->component;
	size_t i;

	if (t->shape && t->stride && !strcmp(o->name, TR_CARRIED) && !c)
		return carried(t, in, o, sb, ty);
	if (t->shape && !strcmp(o->name, "%laneid") && !c) {
		/* a call that runs a warp: part h holds its lanes 16h.. */
		sb_adds(sb, "(uint32_t)(AG_G * @H + l)");
		*ty = PTX_T_U32;
		return 0;
	}
	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (!strcmp(o->name, plain[i].name) && !c) {
			sb_adds(sb, plain[i].expr);
			*ty = plain[i].wide ? PTX_T_U64 : PTX_T_U32;
			return 0;
		}
	for (i = 0; i < sizeof(dims) / sizeof(dims[0]); i++)
		if (!strcmp(o->name, dims[i].name) && c && c[0] >= 'x' && c[0] <= 'z' && !c[1]) {
			if (t->shape && !i) {   /* group.c: lane l's x */
				struct strbuf part = STRBUF_INIT;

				sb_addf(&part, "ag_tid%dp", c[0] - 'x');
				sb_adds(sb, c[0] == 'x' ? "(" : "");
				tr_group_part(t, part.buf, NULL, 0, sb);
				sb_adds(sb, c[0] == 'x' ? " + (uint32_t)l)" : "");
				sb_free(&part);
			} else
				sb_addf(sb, t->scalar ? dims[i].local : dims[i].fmt, c[0] - 'x');
			*ty = PTX_T_U32;
			return 0;
		}
	if (o->kind == PTX_OP_SYM)
		return tr_fail(t, in->line, "unknown symbol '%s' at line %d", o->name, in->line);
	return tr_fail(t, in->line, "unknown or unsupported register '%s%s%s' at line %d",
		       o->name, c ? "." : "", c ? c : "", in->line);
}
