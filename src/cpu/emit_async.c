/*
 * emit_async.c - the sm_80 asynchronous copies and the mbarrier objects
 * they report to: cp.async (ca/cg, with src-size zero fill or ignore-src),
 * its commit_group/wait_group/wait_all and mbarrier.arrive forms, and
 * mbarrier init/inval/arrive/arrive_drop/expect_tx/complete_tx/test_wait/
 * try_wait/pending_count (the objects are ag_mb_* in translate_rt.h).  A
 * copy completes when it is issued, which is one of the orders PTX allows,
 * so the group and wait instructions have nothing left to do.  A wait
 * that finds its phase incomplete lets the block's other warps run before
 * it answers (the kernel gets a stack per warp for that).  Also the sm_90
 * instructions of clusters, where every cluster is one block: the 1D bulk
 * copies (cp.async.bulk, synchronous like cp.async), st.async, and mapa
 * and getctarank, whose only cluster rank is 0.  Tensor-map bulk copies
 * (TMA) are refused.
 */
#include <string.h>

#include "cpu/translate_int.h"

/* The state spaces an mbarrier or a cp.async destination may name;
 * shared::cluster is the block's own shared memory (clusters of one). */
#define SHARED_SPACES ".shared .shared::cta .shared::cluster"

static enum ptx_space mb_space(const struct ptx_insn *in)
{
	return tr_has(in, ".shared") || tr_has(in, ".shared::cta") ||
		tr_has(in, ".shared::cluster") ? PTX_SPACE_SHARED : PTX_SPACE_NONE;
}

/* The last operand of cp.async after the sizes: a predicate is ignore-src,
 * anything else src-size. */
static int is_predicate(const struct tr *t, const struct ptx_operand *o)
{
	const struct tr_sym *s = o->kind == PTX_OP_REG ? tr_lookup(t, o->name) : NULL;

	return s && s->kind == TK_REG && s->type == PTX_T_PRED;
}

/* cp.async.{ca,cg}.shared.global [d], [s], size{, src-size | ignore-src}
 * {, cache-policy}: size bytes at d, the first src-size of them (none with
 * ignore-src) from s and the rest zero. */
static int emit_copy(struct tr *t, const struct ptx_insn *in)
{
	const int hint = tr_has(in, ".L2::cache_hint");
	struct strbuf d = STRBUF_INIT, s = STRBUF_INIT, n = STRBUF_INIT;
	uint32_t size;
	int rc = -1;

	if (tr_mods(t, in, ".async .ca .cg .global .L2::cache_hint .L2::64B .L2::128B .L2::256B "
		    SHARED_SPACES, NULL, 0, NULL) || tr_nops(t, in, 3 + hint, 4 + hint))
		return -1;
	if (in->ops[2].kind != PTX_OP_IMM || !tr_has(in, ".global") ||
	    mb_space(in) != PTX_SPACE_SHARED || tr_has(in, ".ca") == tr_has(in, ".cg"))
		return tr_unsupported(t, in, "form");
	size = (uint32_t)in->ops[2].i;
	if (!(size == 16 || (tr_has(in, ".ca") && (size == 4 || size == 8))))
		return tr_unsupported(t, in, "copy size");
	if (in->nops == 3 + (uint32_t)hint) {
		sb_addf(&n, "%uu", size);
	} else if (is_predicate(t, &in->ops[3])) {
		if (tr_src(t, in, &in->ops[3], PTX_T_PRED, &d))
			goto out;
		sb_addf(&n, "(%s) ? 0u : %uu", d.buf, size);
		sb_reset(&d);
	} else if (tr_src(t, in, &in->ops[3], PTX_T_U32, &n)) {
		goto out;
	}
	if (tr_addr(t, in, &in->ops[0], PTX_SPACE_SHARED, &d) ||
	    tr_addr(t, in, &in->ops[1], PTX_SPACE_GLOBAL, &s))
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "unsigned char *d_ = %s;\n\t\t\tuint32_t n_ = %s;\n"
		"\t\t\tif (n_ > %u) n_ = %u;\n\t\t\tmemcpy(d_, %s, n_);\n"
		"\t\t\tmemset(d_ + n_, 0, %u - n_);\n", d.buf, n.buf, size, size, s.buf, size);
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&d);
	sb_free(&s);
	sb_free(&n);
	return rc;
}

/* cp.async.mbarrier.arrive{.noinc}.shared.b64 [a]: an arrival once the
 * thread's copies are done, which they are.  Without .noinc the pending
 * count is raised by one first, so the two cancel. */
static int emit_copy_arrive(struct tr *t, const struct ptx_insn *in)
{
	struct strbuf a = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n;

	if (tr_mods(t, in, ".async .mbarrier .arrive .noinc " SHARED_SPACES, &ty, 1, &n) ||
	    tr_nops(t, in, 1, 1))
		return -1;
	if (n != 1 || ty != PTX_T_B64)
		return tr_unsupported(t, in, "type");
	if (!tr_has(in, ".noinc"))
		return 0;
	if (tr_addr(t, in, &in->ops[0], mb_space(in), &a)) {
		sb_free(&a);
		return -1;
	}
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "(void)ag_mb_update(w, %s, 1, 0, 0);\n", a.buf);
	tr_lanes_end(t);
	sb_free(&a);
	return 0;
}

/* The bulk copy forms: (shared::cluster or shared::cta) from global or
 * shared::cta with complete_tx on an mbarrier, or global from shared::cta
 * in a bulk group:
 * cp.async.bulk.dst.src{.mbarrier::complete_tx::bytes | .bulk_group}
 * {.L2::cache_hint} [d], [s], size{, [mbar]}{, cache-policy}.  The copy
 * is done when it is issued; the mbarrier gets its bytes at once. */
static int emit_bulk_copy(struct tr *t, const struct ptx_insn *in)
{
	const int mb = tr_has(in, ".mbarrier::complete_tx::bytes");
	const int hint = tr_has(in, ".L2::cache_hint");
	const enum ptx_space dst = tr_has(in, ".global") && !mb ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
	const enum ptx_space src = tr_has(in, ".global") && mb ? PTX_SPACE_GLOBAL : PTX_SPACE_SHARED;
	struct strbuf d = STRBUF_INIT, s = STRBUF_INIT, n = STRBUF_INIT, b = STRBUF_INIT;
	int rc = -1;

	if (tr_mods(t, in, ".async .bulk .global .mbarrier::complete_tx::bytes .bulk_group "
		    ".L2::cache_hint " SHARED_SPACES, NULL, 0, NULL) ||
	    tr_nops(t, in, 3 + mb + hint, 3 + mb + hint))
		return -1;
	if (mb == tr_has(in, ".bulk_group") || (!mb && !tr_has(in, ".global")))
		return tr_unsupported(t, in, "form");
	if (tr_addr(t, in, &in->ops[0], dst, &d) || tr_addr(t, in, &in->ops[1], src, &s) ||
	    tr_src(t, in, &in->ops[2], PTX_T_U32, &n) ||
	    (mb && tr_addr(t, in, &in->ops[3], PTX_SPACE_SHARED, &b)))
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "uint32_t n_ = %s;\n\t\t\tmemcpy(%s, %s, n_);\n", n.buf, d.buf, s.buf);
	if (mb)
		sb_addf(&t->code, "\t\t\t(void)ag_mb_update(w, %s, 0, 0, -(int64_t)n_);\n", b.buf);
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&d);
	sb_free(&s);
	sb_free(&n);
	sb_free(&b);
	return rc;
}

/* cp.async.bulk*: the 1D copies, their commit_group and wait_group{.read}
 * (nothing is left in flight) and prefetch.L2 (a hint).  The tensor
 * forms and multicast are refused. */
static int emit_bulk(struct tr *t, const struct ptx_insn *in)
{
	const char *op = in->nmods > 2 ? in->mods[2] : "";

	if (tr_has(in, ".tensor") || strcmp(in->mods[0], ".async"))
		return tr_unsupported(t, in, "tensor-map bulk copies (TMA) and bulk reductions "
				      "are not supported on the cpu backend");
	if (!strcmp(op, ".commit_group"))
		return tr_mods(t, in, ".async .bulk .commit_group", NULL, 0, NULL) ||
			tr_nops(t, in, 0, 0);
	if (!strcmp(op, ".wait_group"))
		return tr_mods(t, in, ".async .bulk .wait_group .read", NULL, 0, NULL) ||
			tr_nops(t, in, 1, 1);
	if (!strcmp(op, ".prefetch"))
		return tr_mods(t, in, ".async .bulk .prefetch .L2 .global .L2::cache_hint",
			       NULL, 0, NULL) || tr_nops(t, in, 2, 3);
	return emit_bulk_copy(t, in);
}

int tr_emit_cp(struct tr *t, const struct ptx_insn *in)
{
	const char *op = in->nmods > 1 ? in->mods[1] : "";

	if (tr_has(in, ".bulk"))
		return emit_bulk(t, in);
	if (!tr_has(in, ".async") || strcmp(in->mods[0], ".async"))
		return tr_unsupported(t, in, NULL);
	if (!strcmp(op, ".commit_group") || !strcmp(op, ".wait_all"))
		return tr_mods(t, in, ".async .commit_group .wait_all", NULL, 0, NULL) ||
			tr_nops(t, in, 0, 0);
	if (!strcmp(op, ".wait_group"))
		return tr_mods(t, in, ".async .wait_group", NULL, 0, NULL) ||
			tr_nops(t, in, 1, 1);
	if (!strcmp(op, ".mbarrier"))
		return emit_copy_arrive(t, in);
	return emit_copy(t, in);
}

/* The destination of an mbarrier result, unless it is the sink '_'. */
static int mb_result(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		     enum ptx_type ty, const char *e)
{
	if (o->kind == PTX_OP_REG && !strcmp(o->name, "_"))
		return 0;
	return tr_dst(t, in, o, ty, e);
}

/* arrive{.noComplete}{.expect_tx} state, [a]{, count | tx},
 * arrive_drop{.noComplete}{.expect_tx} state, [a]{, count | tx},
 * expect_tx [a], tx and complete_tx [a], tx: one ag_mb_update per lane
 * (arrivals, arrivals dropped from the expected count, bytes added to the
 * pending ones).  .noComplete promises the arrival does not complete the
 * phase; it is not checked. */
static int emit_mb_update(struct tr *t, const struct ptx_insn *in, const char *op)
{
	const int arrive = op[1] == 'a', drop = !strcmp(op, ".arrive_drop");
	const int tx = tr_has(in, ".expect_tx") || !strcmp(op, ".complete_tx");
	struct strbuf a = STRBUF_INIT, c = STRBUF_INIT, e = STRBUF_INIT;
	const char *count;
	int rc = -1;

	if (tr_nops(t, in, 1 + arrive + tx, 2 + arrive) ||
	    tr_addr(t, in, &in->ops[arrive], mb_space(in), &a))
		goto out;
	if (in->nops == 1 + (uint32_t)arrive)
		sb_adds(&c, "1u");
	else if (tr_src(t, in, &in->ops[in->nops - 1], PTX_T_U32, &c))
		goto out;
	count = !arrive ? "0" : tx ? "1u" : c.buf;
	sb_addf(&e, "ag_mb_update(w, %s, %s, %s, %s%s)", a.buf, count, drop ? count : "0",
		!tx ? "" : op[1] == 'c' ? "-(int64_t)" : "(int64_t)", tx ? c.buf : "0");
	tr_lanes_begin(t, in);
	if (arrive)
		rc = mb_result(t, in, &in->ops[0], PTX_T_U64, e.buf);
	else
		sb_addf(&t->code, "(void)%s;\n", e.buf);
	rc = arrive ? rc : 0;
	tr_lanes_end(t);
out:
	sb_free(&a);
	sb_free(&c);
	sb_free(&e);
	return rc;
}

/* test_wait/try_wait{.parity} p, [a], state | parity: whether the phase
 * completed.  When a lane finds it has not, the warp lets the others run
 * once and looks again: the callers loop until it has. */
static int emit_mb_wait(struct tr *t, const struct ptx_insn *in)
{
	struct strbuf a = STRBUF_INIT, x = STRBUF_INIT, e = STRBUF_INIT;
	const int parity = tr_has(in, ".parity");
	int rc = -1;

	if (tr_nops(t, in, 3, 4) || tr_addr(t, in, &in->ops[1], mb_space(in), &a) ||
	    tr_src(t, in, &in->ops[2], parity ? PTX_T_U32 : PTX_T_U64, &x))
		goto out;
	t->fi[t->fidx].spins = 1;
	sb_addf(&e, "ag_mb_done(%s, %s, %d)", a.buf, x.buf, parity);
	sb_adds(&t->code, "\t\t{\n\t\tuint8_t ok_[32];\n\t\tint miss_ = 0;\n\n");
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "ok_[l] = %s;\n\t\t\tmiss_ |= !ok_[l];\n", e.buf);
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\tif (miss_ && ag_yield(w)) {\n");
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "ok_[l] = %s;\n", e.buf);
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\t}\n");
	tr_lanes_begin(t, in);
	rc = tr_dst(t, in, &in->ops[0], PTX_T_PRED, "ok_[l]");
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\t}\n");
out:
	sb_free(&a);
	sb_free(&x);
	sb_free(&e);
	return rc;
}

int tr_emit_mbarrier(struct tr *t, const struct ptx_insn *in)
{
	const char *op = in->nmods ? in->mods[0] : "";
	const int init = !strcmp(op, ".init");
	struct strbuf a = STRBUF_INIT, c = STRBUF_INIT, e = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n;
	int rc = -1;

	if (tr_mods(t, in, ".init .inval .arrive .arrive_drop .expect_tx .complete_tx "
		    ".test_wait .try_wait .pending_count .noComplete .parity .release .acquire "
		    ".relaxed .cta .cluster " SHARED_SPACES, &ty, 1, &n))
		return -1;
	if (n != 1 || ty != PTX_T_B64)
		return tr_unsupported(t, in, "type");
	if (!strcmp(op, ".arrive") || !strcmp(op, ".arrive_drop") || !strcmp(op, ".expect_tx") ||
	    !strcmp(op, ".complete_tx"))
		return emit_mb_update(t, in, op);
	if (!strcmp(op, ".test_wait") || !strcmp(op, ".try_wait"))
		return emit_mb_wait(t, in);
	if (!strcmp(op, ".pending_count")) {
		if (tr_nops(t, in, 2, 2) || tr_src(t, in, &in->ops[1], PTX_T_U64, &c))
			goto out;
		sb_addf(&e, "(uint32_t)((%s) & AG_MB_MASK)", c.buf);
		tr_lanes_begin(t, in);
		rc = tr_dst(t, in, &in->ops[0], PTX_T_U32, e.buf);
		tr_lanes_end(t);
		goto out;
	}
	if (!init && strcmp(op, ".inval"))
		return tr_unsupported(t, in, NULL);
	if (tr_nops(t, in, 1 + init, 1 + init) || tr_addr(t, in, &in->ops[0], mb_space(in), &a) ||
	    (init && tr_src(t, in, &in->ops[1], PTX_T_U32, &c)))
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "ag_mb_init(%s, %s);\n", a.buf, init ? c.buf : "0");
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&a);
	sb_free(&c);
	sb_free(&e);
	return rc;
}

static int store_async_type(enum ptx_type ty)
{
	switch (ty) {
	case PTX_T_B32: case PTX_T_B64: case PTX_T_U32: case PTX_T_U64:
	case PTX_T_S32: case PTX_T_S64: case PTX_T_F32: case PTX_T_F64:
		return 1;
	default:
		return 0;
	}
}

/* st.async{.weak}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2 .v4}
 * .type [a], b, [mbar]: the store, then its bytes complete on the
 * mbarrier (both in the block's own shared memory: clusters of one). */
int tr_emit_st_async(struct tr *t, const struct ptx_insn *in)
{
	const uint32_t nv = tr_has(in, ".v4") ? 4 : tr_has(in, ".v2") ? 2 : 1;
	const struct ptx_operand *v = in->nops > 1 ? &in->ops[1] : NULL;
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, e = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n, k;
	int rc = -1;

	if (tr_mods(t, in, ".async .weak .mbarrier::complete_tx::bytes .v2 .v4 "
		    SHARED_SPACES, &ty, 1, &n) || tr_nops(t, in, 3, 3))
		return -1;
	if (n != 1 || !store_async_type(ty) || (nv == 4 && tr_size(ty) == 8))
		return tr_unsupported(t, in, "type");
	if (!tr_has(in, ".mbarrier::complete_tx::bytes") ||
	    (nv > 1) != (v->kind == PTX_OP_VEC) || (nv > 1 && v->nelems != nv))
		return tr_unsupported(t, in, "form");
	if (tr_addr(t, in, &in->ops[0], PTX_SPACE_SHARED, &a) ||
	    tr_addr(t, in, &in->ops[2], PTX_SPACE_SHARED, &b))
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "unsigned char *p_ = %s;\n", a.buf);
	for (k = 0; k < nv; k++) {
		sb_reset(&e);
		if (tr_src(t, in, nv > 1 ? &v->elems[k] : v, ty, &e))
			goto out;
		sb_addf(&t->code, "\t\t\tag_st(%s, p_ + %u, %s);\n", tr_ctype(ty),
			k * tr_size(ty), e.buf);
	}
	sb_addf(&t->code, "\t\t\t(void)ag_mb_update(w, %s, 0, 0, -%u);\n", b.buf,
		nv * tr_size(ty));
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&a);
	sb_free(&b);
	sb_free(&e);
	return rc;
}

/* mapa{.shared::cluster}.{u32,u64} d, a, rank: a's counterpart in the
 * block of that rank, which can only be the block itself (another rank
 * fails the launch, as an invalid access would), and
 * getctarank{.shared::cluster}.{u32,u64} d, a: the rank of the block whose
 * shared memory holds a, always the block itself. */
int tr_emit_cluster_addr(struct tr *t, const struct ptx_insn *in)
{
	const int mapa = !strcmp(in->opcode, "mapa");
	struct strbuf a = STRBUF_INIT, r = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t n;
	int rc = -1;

	if (tr_mods(t, in, ".shared::cluster", &ty, 1, &n) || tr_nops(t, in, 2 + mapa, 2 + mapa))
		return -1;
	if (n != 1 || (ty != PTX_T_U32 && ty != PTX_T_U64))
		return tr_unsupported(t, in, "type");
	if (tr_src(t, in, &in->ops[1], ty, &a) ||
	    (mapa && tr_src(t, in, &in->ops[2], PTX_T_U32, &r)))
		goto out;
	tr_lanes_begin(t, in);
	if (mapa)
		sb_addf(&t->code, "if (%s) {\n\t\t\t\tag_fault(w, l, 719, \"mapa to another block "
			"of the cluster: the cpu backend runs clusters of one block\");\n"
			"\t\t\t\treturn;\n\t\t\t}\n\t\t\t", r.buf);
	rc = mapa ? tr_dst(t, in, &in->ops[0], ty, a.buf) :
		tr_dst(t, in, &in->ops[0], PTX_T_U32, "0u");
	tr_lanes_end(t);
out:
	sb_free(&a);
	sb_free(&r);
	return rc;
}
