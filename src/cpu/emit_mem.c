/*
 * emit_mem.c - memory instructions: ld, ldu, st (scalars and .v2/.v4 in
 * every state space), cvta between generic and space addresses, atom and
 * red with __atomic builtins, and membar/fence.  Addresses come from
 * tr_addr: shared ones are offsets into the block's shared memory, all
 * others host addresses (so cvta is the identity except for .shared).
 */
#include <string.h>

#include "cpu/translate_int.h"

/* Cache, eviction and ordering hints that change nothing on a CPU (the
 * block's threads are one OS thread; other blocks see plain stores). */
#define HINTS ".weak .volatile .relaxed .acquire .release .cta .gpu .sys .ca .cg .cs .lu " \
	".cv .wb .wt .nc .L1::no_allocate .L1::evict_normal .L1::evict_first " \
	".L1::evict_last .L1::evict_unchanged .L2::evict_normal .L2::evict_first " \
	".L2::evict_last .L2::64B .L2::128B .L2::256B"
/* .shared::cluster is the block's own shared memory: clusters of one. */
#define SPACES ".global .shared .shared::cta .shared::cluster .local .const .param"

enum ptx_space tr_space_of(const struct ptx_insn *in)
{
	if (tr_has(in, ".global"))
		return PTX_SPACE_GLOBAL;
	if (tr_has(in, ".shared") || tr_has(in, ".shared::cta") || tr_has(in, ".shared::cluster"))
		return PTX_SPACE_SHARED;
	if (tr_has(in, ".local"))
		return PTX_SPACE_LOCAL;
	if (tr_has(in, ".const"))
		return PTX_SPACE_CONST;
	if (tr_has(in, ".param"))
		return PTX_SPACE_PARAM;
	return PTX_SPACE_NONE;
}

static uint32_t vec_of(const struct ptx_insn *in)
{
	return tr_has(in, ".v4") ? 4 : tr_has(in, ".v2") ? 2 : 1;
}

/* The memory access of element k: a C lvalue of type ty at p_. */
static void access(struct strbuf *sb, const struct ptx_insn *in, enum ptx_type ty, uint32_t k)
{
	const char *q = tr_has(in, ".volatile") || tr_has(in, ".relaxed") ||
		tr_has(in, ".acquire") || tr_has(in, ".release") ? "volatile " : "";

	sb_addf(sb, "((%s%s *)p_)[%u]", q, tr_ctype(ty), k);
}

/* Element k of an ld: register from memory; of an st: memory from
 * register or immediate.  Parameters may sit unaligned in their rows. */
static int ldst_elem(struct tr *t, const struct ptx_insn *in, enum ptx_type ty, int store,
		     const struct ptx_operand *v, uint32_t k, struct strbuf *e)
{
	int param = tr_space_of(in) == PTX_SPACE_PARAM;

	sb_reset(e);
	sb_adds(&t->code, "\t\t\t");
	if (!store) {
		if (param)
			sb_addf(e, "ag_ld(%s, p_ + %u)", tr_ctype(ty), k * tr_size(ty));
		else
			access(e, in, ty, k);
		return tr_dst(t, in, v, ty, e->buf);
	}
	if (tr_src(t, in, v, ty, e))
		return -1;
	if (param) {
		sb_addf(&t->code, "ag_st(%s, p_ + %u, %s);\n", tr_ctype(ty), k * tr_size(ty), e->buf);
	} else {
		access(&t->code, in, ty, k);
		sb_addf(&t->code, " = %s;\n", e->buf);
	}
	return 0;
}

/* The register of an address operand (plus an offset), or NULL: lanes may
 * differ in it. */
static const struct tr_sym *addr_reg(const struct tr *t, const struct ptx_operand *o)
{
	const struct tr_sym *s = o->name ? tr_lookup(t, o->name) : NULL;

	return s && s->kind == TK_REG ? s : NULL;
}

/*
 * Whether a load of the fast path's thread loop runs in every thread, the
 * ones its guard turns away reading a buffer of their own (ag_gpad),
 * and writes its register in every thread: a guarded shared-memory load
 * through a register that strides across threadIdx.x (a transpose's column
 * of a tile) is a gather behind a mask, of which GCC 12 makes no vector
 * code, and the whole thread loop stays scalar.  Only where what the
 * register held before is dead (live.c: no thread whose guard is false
 * reads it; the reads under the same guard are covered by the load);
 * loads of whole vectors (stride = size) stay masked loads.
 */
static int every_thread_loads(struct tr *t, const struct ptx_insn *in, enum ptx_space sp,
			      const struct tr_sym *r, uint32_t bytes)
{
	int64_t c;

	if (!t->scalar || t->shape || !in->guard || in->opcode[0] == 's' ||
	    sp != PTX_SPACE_SHARED || !r || in->ops[0].kind != PTX_OP_REG ||
	    tr_has(in, ".volatile") || tr_has(in, ".relaxed") || tr_has(in, ".acquire"))
		return 0;
	c = tr_aff_stride(t, in->ops[1].name);
	return c && c != (int64_t)bytes && !tr_live_out(tr_liveness(t), in, in->ops[0].name);
}

/* The load of every_thread_loads at address addr. */
static int emit_every_thread_load(struct tr *t, const struct ptx_insn *in, enum ptx_type ty,
				  const char *addr)
{
	struct strbuf e = STRBUF_INIT;
	int rc;

	sb_adds(&t->code, "\t\tif (1) {\n\t\t\tunsigned char *p_ = ag_sel(");
	rc = tr_guard(t, in, &t->code);
	sb_addf(&t->code, ", %s, (unsigned char *)ag_gpad);\n", addr);
	rc = rc || ldst_elem(t, in, ty, 0, &in->ops[0], 0, &e);
	sb_adds(&t->code, "\t\t}\n");
	sb_free(&e);
	return rc ? -1 : 0;
}

/* A global load or store of a kernel's thread body in the fast path
 * tells the block function its address (ag_rec, ag_prefetch_block: the
 * next block's lines), in every thread, the ones its guard turns away
 * too, so that the store to ag_rec stays one the vector loop keeps (its
 * last thread's); the address is only a number there.  Only in a body
 * without branches (t->records): under one, the store is a masked store
 * to one address, and GCC makes no vector code of the loop at all.  Past
 * AG_REC_SITES of a kind, sites share a slot, as prefetch sites share
 * w->seen. */
static void record_address(struct tr *t, const struct ptx_insn *in, enum ptx_space sp,
			   const char *addr)
{
	int store = in->opcode[0] == 's';

	if (!t->records || (sp != PTX_SPACE_GLOBAL && sp != PTX_SPACE_NONE))
		return;
	sb_addf(&t->code, "\t\tif (ag_rec)\n\t\t\tag_rec[%s%u %% AG_REC_SITES] = (uintptr_t)%s;\n",
		store ? "AG_REC_SITES + " : "", t->nrec[store]++, addr);
}

/* ld d, [a] and st [a], v, scalar or .v2/.v4. */
static int emit_ldst(struct tr *t, const struct ptx_insn *in)
{
	int store = in->opcode[0] == 's', rc = -1;
	enum ptx_type ty;
	uint32_t n, nv = vec_of(in), k;
	struct strbuf a = STRBUF_INIT, e = STRBUF_INIT;
	const struct ptx_operand *v, *o;
	enum ptx_space sp = tr_space_of(in);
	const struct tr_sym *r;

	if (tr_has(in, ".async") && store)
		return tr_emit_st_async(t, in);
	if (tr_mods(t, in, HINTS " " SPACES " .v2 .v4", &ty, 1, &n) || tr_nops(t, in, 2, 2))
		return -1;
	v = &in->ops[store ? 1 : 0];
	o = &in->ops[store ? 0 : 1];
	r = addr_reg(t, o);
	if (n != 1 || !tr_ctype(ty) || ty == PTX_T_PRED)
		return tr_unsupported(t, in, "type");
	if ((nv > 1) != (v->kind == PTX_OP_VEC) || (nv > 1 && v->nelems != nv))
		return tr_unsupported(t, in, "vector shape");
	if (tr_addr(t, in, &in->ops[store ? 0 : 1], tr_space_of(in), &a))
		goto out;
	if (every_thread_loads(t, in, sp, r, tr_size(ty))) {
		rc = emit_every_thread_load(t, in, ty, a.buf);
		goto out;
	}
	record_address(t, in, sp, a.buf);
	tr_lanes_begin(t, in);
	if (r && sp != PTX_SPACE_PARAM && sp != PTX_SPACE_LOCAL) {
		/* shared memory is in the cache already; a 32-bit register plus
		 * an offset may wrap in some lanes only, but not in shared
		 * memory's range */
		const struct tr_access ac = {
			nv * tr_size(ty), store, sp != PTX_SPACE_SHARED,
			tr_size(r->type) == 8 || sp == PTX_SPACE_SHARED ? o->name : NULL, o->i,
		};

		tr_seg_access(t, a.buf, &ac);
	} else {
		if (tr_addr_shared_by_lanes(t, o))
			tr_seg_one_address(t);
		sb_addf(&t->code, "unsigned char *p_ = %s;\n", a.buf);
	}
	if (tr_has(in, ".release"))
		sb_adds(&t->code, "\t\t\t__atomic_thread_fence(__ATOMIC_RELEASE);\n");
	for (k = 0; k < nv; k++)
		if (ldst_elem(t, in, ty, store, nv > 1 ? &v->elems[k] : v, k, &e))
			goto out;
	if (tr_has(in, ".acquire"))
		sb_adds(&t->code, "\t\t\t__atomic_thread_fence(__ATOMIC_ACQUIRE);\n");
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&a);
	sb_free(&e);
	return rc;
}

/* cvta.shared adds the block's shared base, cvta.to.shared subtracts it;
 * every other space shares the generic (host) addresses. */
static int emit_cvta(struct tr *t, const struct ptx_insn *in)
{
	enum ptx_type ty;
	uint32_t n;
	struct strbuf a = STRBUF_INIT, e = STRBUF_INIT;
	int to = tr_has(in, ".to"), rc = -1;

	if (tr_mods(t, in, ".to " SPACES, &ty, 1, &n) || tr_nops(t, in, 2, 2))
		return -1;
	if (n != 1 || (ty != PTX_T_U32 && ty != PTX_T_U64) || tr_space_of(in) == PTX_SPACE_NONE ||
	    (ty == PTX_T_U32 && !(to && tr_space_of(in) == PTX_SPACE_SHARED)))
		return tr_unsupported(t, in, "type");
	if (tr_src(t, in, &in->ops[1], PTX_T_U64, &a))
		goto out;
	if (tr_space_of(in) != PTX_SPACE_SHARED)
		sb_addf(&e, "%s", a.buf);
	else
		sb_addf(&e, "(%s %s (uint64_t)(uintptr_t)sh)", a.buf, to ? "-" : "+");
	tr_lanes_begin(t, in);
	rc = tr_dst(t, in, &in->ops[0], PTX_T_U64, e.buf);
	tr_lanes_end(t);
out:
	sb_free(&a);
	sb_free(&e);
	return rc;
}

/* Whether the generic address e_ lies in a .const variable of the module;
 * "0" when it has none. */
static void in_const(const struct tr *t, struct strbuf *sb)
{
	uint32_t i;

	sb_adds(sb, "(0");
	for (i = 0; i < t->nmsyms; i++)
		if (t->msyms[i].kind == TK_GVAR && t->msyms[i].var->space == PTX_SPACE_CONST)
			sb_addf(sb, " || ag_in(e_, ag_v%u, %lluu)", t->msyms[i].id,
				(unsigned long long)t->msyms[i].size);
	sb_adds(sb, ")");
}

/* The test of isspacep.space on the generic address e_: shared, local,
 * const and param as their storage says (see ag_is_local); global is
 * every address none of them holds. */
static void space_test(const struct tr *t, const struct ptx_insn *in, struct strbuf *e)
{
	struct strbuf c = STRBUF_INIT;

	in_const(t, &c);
	if (tr_has(in, ".shared") || tr_has(in, ".shared::cta") || tr_has(in, ".shared::cluster"))
		sb_adds(e, "ag_is_shared(w, e_)");
	else if (tr_has(in, ".local"))
		sb_adds(e, "ag_is_local(w, e_)");
	else if (tr_has(in, ".const"))
		sb_adds(e, c.buf);
	else if (tr_has(in, ".param"))
		sb_adds(e, "ag_in(e_, prm, w->psize)");
	else
		sb_addf(e, "!(ag_is_shared(w, e_) || ag_is_local(w, e_) || %s || "
			"ag_in(e_, prm, w->psize))", c.buf);
	sb_free(&c);
}

/* isspacep.space p, a. */
static int emit_isspacep(struct tr *t, const struct ptx_insn *in)
{
	struct strbuf a = STRBUF_INIT, e = STRBUF_INIT;
	int rc = -1;

	if (tr_mods(t, in, ".global .shared .shared::cta .shared::cluster .local .const .param",
		    NULL, 0, NULL) || tr_nops(t, in, 2, 2) ||
	    tr_src(t, in, &in->ops[1], PTX_T_U64, &a))
		goto out;
	space_test(t, in, &e);
	if (in->nmods != 1) {
		rc = tr_unsupported(t, in, "state space");
		goto out;
	}
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "const uint64_t e_ = %s;\n", a.buf);
	rc = tr_dst(t, in, &in->ops[0], PTX_T_PRED, e.buf);
	tr_lanes_end(t);
out:
	sb_free(&a);
	sb_free(&e);
	return rc;
}

/* The C expression of an atomic operation on p_ with value v_ (and c_
 * for cas), or NULL when the combination is not supported.  On explicit
 * shared addresses add, and, or, xor and exch are plain read-modify-writes
 * (translate_rt.h says why); the rest, and generic addresses, which may
 * be global, use the atomic builtins. */
static const char *atomic_expr(const struct ptx_insn *in, enum ptx_type ty, struct strbuf *sb)
{
	uint32_t bits = tr_size(ty) * 8;
	const char *ut = tr_ctype(tr_uint(tr_size(ty)));
	const char *sgn = tr_is_signed(ty) ? "s" : "u";
	const int sh = tr_space_of(in) == PTX_SPACE_SHARED;
	static const char *const fetch[][2] = {
		{ ".and", "and" }, { ".or", "or" }, { ".xor", "xor" },
	};
	size_t i;

	if (bits != 32 && bits != 64)
		return NULL;
	if (tr_has(in, ".add")) {
		if (sh)
			sb_addf(sb, "ag_sh_add_%c%u(p_, v_)", tr_is_float(ty) ? 'f' : 'u', bits);
		else if (tr_is_float(ty))
			sb_addf(sb, "ag_atom_add_f%u(p_, v_)", bits);
		else
			sb_addf(sb, "__atomic_fetch_add((%s *)p_, (%s)v_, __ATOMIC_SEQ_CST)", ut, ut);
		return sb->buf;
	}
	if (tr_is_float(ty) && !tr_has(in, ".exch"))
		return NULL;
	for (i = 0; i < sizeof(fetch) / sizeof(fetch[0]); i++)
		if (tr_has(in, fetch[i][0])) {
			if (sh)
				sb_addf(sb, "ag_sh_%s_u%u(p_, (%s)v_)", fetch[i][1], bits, ut);
			else
				sb_addf(sb, "__atomic_fetch_%s((%s *)p_, (%s)v_, __ATOMIC_SEQ_CST)",
					fetch[i][1], ut, ut);
			return sb->buf;
		}
	if (tr_has(in, ".exch")) {
		const char *v = !tr_is_float(ty) ? "v_" : bits == 32 ? "ag_f32_bits(v_)" :
				"ag_f64_bits(v_)";

		if (sh)
			sb_addf(sb, "ag_sh_exch_u%u(p_, %s)", bits, v);
		else
			sb_addf(sb, "__atomic_exchange_n((%s *)p_, %s, __ATOMIC_SEQ_CST)", ut, v);
	} else if (tr_has(in, ".cas"))
		sb_addf(sb, "ag_atom_cas%u(p_, (%s)c_, (%s)v_)", bits, ut, ut);
	else if (tr_has(in, ".min") || tr_has(in, ".max"))
		sb_addf(sb, "ag_atom_%s_%s%u(p_, v_)", tr_has(in, ".min") ? "min" : "max", sgn, bits);
	else if ((tr_has(in, ".inc") || tr_has(in, ".dec")) && ty == PTX_T_U32)
		sb_addf(sb, "ag_atom_%s_u32(p_, v_)", tr_has(in, ".inc") ? "inc" : "dec");
	else
		return NULL;
	return sb->buf;
}

/* atom d, [a], b (, c for cas), red [a], b and
 * red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes
 * [a], b, [mbar], whose bytes then complete on the mbarrier. */
static int emit_atom(struct tr *t, const struct ptx_insn *in)
{
	int red = in->opcode[0] == 'r', cas = tr_has(in, ".cas"), rc = -1;
	const int async = red && tr_has(in, ".async");
	uint32_t n, first = red ? 0 : 1;
	enum ptx_type ty;
	struct strbuf a = STRBUF_INIT, v = STRBUF_INIT, c = STRBUF_INIT, e = STRBUF_INIT;
	struct strbuf x = STRBUF_INIT;

	if (tr_mods(t, in, ".relaxed .acquire .release .acq_rel .cta .gpu .sys .global .shared "
		    ".and .or .xor .cas .exch .add .inc .dec .min .max .async .cluster "
		    ".shared::cta .shared::cluster .mbarrier::complete_tx::bytes", &ty, 1, &n))
		return -1;
	if (n != 1 || !tr_ctype(ty) || !atomic_expr(in, ty, &x) || (red && cas)) {
		rc = tr_unsupported(t, in, "operation or type");
		goto out;
	}
	if (async != tr_has(in, ".mbarrier::complete_tx::bytes")) {
		rc = tr_unsupported(t, in, "form");
		goto out;
	}
	if (tr_nops(t, in, first + 2 + cas + async, first + 2 + cas + async) ||
	    (async && tr_addr(t, in, &in->ops[2], PTX_SPACE_SHARED, &c)) ||
	    tr_addr(t, in, &in->ops[first], tr_space_of(in), &a) ||
	    tr_src(t, in, &in->ops[first + 1 + cas], ty, &v) ||
	    (cas && tr_src(t, in, &in->ops[first + 1], ty, &c)))
		goto out;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "unsigned char *p_ = %s;\n\t\t\t%s v_ = %s;\n", a.buf, tr_ctype(ty), v.buf);
	if (cas)
		sb_addf(&t->code, "\t\t\t%s c_ = %s;\n", tr_ctype(ty), c.buf);
	sb_adds(&t->code, "\t\t\t");
	if (red) {
		sb_addf(&t->code, "(void)%s;\n", x.buf);
		if (async)
			sb_addf(&t->code, "\t\t\t(void)ag_mb_update(w, %s, 0, 0, -%u);\n", c.buf,
				tr_size(ty));
	} else {
		if (tr_is_float(ty) && tr_has(in, ".exch"))
			sb_addf(&e, "ag_bits_f%u(%s)", tr_size(ty) * 8, x.buf);
		else
			sb_adds(&e, x.buf);
		if (tr_dst(t, in, &in->ops[0], tr_is_float(ty) ? ty : tr_uint(tr_size(ty)), e.buf))
			goto out;
	}
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&a);
	sb_free(&v);
	sb_free(&c);
	sb_free(&e);
	sb_free(&x);
	return rc;
}

/* membar and fence, also fence.proxy.async (generic and async proxy
 * accesses: the async copies are plain C stores, done when issued) and
 * fence.mbarrier_init (an mbarrier.init is a plain store): one C11 fence
 * orders them all. */
static int emit_fence(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, ".cta .cluster .gl .sys .gpu .sc .acq_rel .proxy .async .alias "
		    ".mbarrier_init .release .global " SPACES, NULL, 0, NULL) ||
	    tr_nops(t, in, 0, 0))
		return -1;
	if (tr_has(in, ".proxy") != (tr_has(in, ".async") || tr_has(in, ".alias")))
		return tr_unsupported(t, in, "proxy");
	sb_adds(&t->code, "\t\t__atomic_thread_fence(__ATOMIC_SEQ_CST);\n");
	return 0;
}

/* Prefetches only hint the cache. */
static int emit_prefetch(struct tr *t, const struct ptx_insn *in)
{
	return tr_mods(t, in, ".global .local .L1 .L2 .L2::evict_last .L2::evict_normal",
		       NULL, 0, NULL) || tr_nops(t, in, 1, 1);
}

tr_emit_fn tr_mem_emitter(const char *opcode)
{
	static const struct {
		const char *op;
		tr_emit_fn fn;
	} tab[] = {
		{ "ld", emit_ldst }, { "ldu", emit_ldst }, { "st", emit_ldst }, { "cvta", emit_cvta },
		{ "atom", emit_atom }, { "red", emit_atom }, { "membar", emit_fence },
		{ "fence", emit_fence }, { "prefetch", emit_prefetch }, { "prefetchu", emit_prefetch },
		{ "isspacep", emit_isspacep }, { "cp", tr_emit_cp }, { "mapa", tr_emit_cluster_addr },
		{ "getctarank", tr_emit_cluster_addr },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(opcode, tab[i].op))
			return tab[i].fn;
	return NULL;
}
