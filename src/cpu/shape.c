/*
 * shape.c - the shape of each register of a kernel across a row group:
 * sixteen neighbouring threads of one row of the block (the same
 * threadIdx.y and .z, consecutive threadIdx.x), which the group
 * translation (group.c) runs together as vector code.
 *
 * A register is uniform when every thread of the group holds the same
 * value in it: made from immediates, parameters, the launch's sizes, the
 * block's index, %tid.y and %tid.z, and loads from such addresses.  It is
 * linear when thread l of the group holds v + c * l, c a constant known
 * here: %tid.x, and what adding uniform values to it and multiplying or
 * shifting it by constants make.  Anything else varies.  The group code
 * keeps a uniform register in one C local, a linear one in one C local
 * (lane 0's value), a varying one in an array of a value per lane; a load
 * or store through a linear address is then a vector load or store the C
 * compiler sees.  This is the shape analysis of whole-function
 * vectorizers (Karrenberg and Hack's uniform, consecutive and varying),
 * on PTX: optimistic, every register written by several instructions
 * taking the join of what they write, run to a fixed point.
 *
 * Widening a linear 32-bit value (cvt.s64.s32, mul.wide) keeps it linear
 * only when no two lanes of the group lie on both sides of the wrap (2^31
 * signed, 2^32 unsigned).  The group code tests that where it widens, and
 * when it fails, runs the group's threads one at a time instead, each from
 * its start (with barriers, the whole block from its start): exact only
 * while nothing has been stored, so a widening that a store or atomic may
 * come before, on some path, varies instead (shared memory aside, in a
 * kernel with barriers).
 *
 * With warp, a call runs one warp: two row groups of a row whose width is
 * a multiple of 32, lanes 0-15 and 16-31 of the warp (a block of other
 * widths runs in lockstep).  Shapes are then across the call's 32 lanes,
 * shfl.sync runs (group.c and emit_warp.c permute the two groups' values),
 * and the analysis keeps how many low bits of the first lane's value are
 * zero (tz), so that the warp's index and the lane's, made from %tid.x by
 * a shift and a mask, are uniform and linear (warp_bits).
 *
 * A kernel has a group translation when its control flow is uniform: each
 * conditional branch is on a uniform predicate, or sends the lanes whose
 * predicate holds to a ret or exit (a bounds test), which leave the
 * group's mask; and when it does nothing but arithmetic, conversions,
 * loads, stores, atomics and bar.sync 0 (no calls, local memory,
 * carries).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* Constant multipliers past this are left varying: c * lane must stay far
 * from overflowing 64 bits. */
#define SHAPE_MAX_C (INT64_C(1) << 24)
/* How many row groups a call of a kernel with barriers runs (count_parts). */
#define SHAPE_LOOPED 8

struct val {
	uint8_t k;              /* TR_SHAPE_NONE (not known yet), U, L, V */
	int64_t c;              /* L: the step between lanes */
	uint8_t tz;             /* the call's first lane's value is a multiple
				 * of 2^tz (warp calls: warp_bits) */
};

struct shape_reg {
	const char *name;
	uint8_t k;
	uint8_t bits;           /* 32 or 64 for integers that may be linear */
	uint8_t row;            /* made from %tid.y or %tid.z */
	uint8_t apart;          /* may differ between two parts whose lanes
				 * have the same %tid.x (tr_shape_same) */
	int64_t c;
	uint8_t tz;
};

struct shape_widen {
	const struct ptx_insn *in;
	uint32_t op;            /* the linear 32-bit operand */
	int64_t c;
	int is_signed;
};

struct tr_shape {
	struct shape_reg *v;    /* every register written, sorted by name */
	uint32_t n;
	uint32_t parts;         /* row groups run together (tr_shape_parts) */
	int looped;             /* in a loop over them (tr_shape_looped) */
	int warp;               /* a call runs one warp (tr_shape_scan) */
	struct shape_widen *w;  /* the widenings that test the wrap */
	uint32_t nw;
	const struct tr_flow *f;        /* while fixed_point runs: the kernel, */
	uint32_t at;                    /* and the instruction it looks at */
};

static const struct val vary = { TR_SHAPE_V, 0, 0 };
static const struct val unknown = { TR_SHAPE_NONE, 0, 0 };

static struct val lin(int64_t c)
{
	if (c > SHAPE_MAX_C || c < -SHAPE_MAX_C)
		return vary;
	return (struct val){ c ? TR_SHAPE_L : TR_SHAPE_U, c, 0 };
}

/* v, its first lane's value known a multiple of 2^tz (at most 64). */
static struct val aligned(struct val v, unsigned tz)
{
	v.tz = (uint8_t)(tz < 64 ? tz : 64);
	return v;
}

static unsigned low_zeros(int64_t k)
{
	return k ? (unsigned)__builtin_ctzll((unsigned long long)k) : 64;
}

static int cmp_reg(const void *a, const void *b)
{
	return strcmp(((const struct shape_reg *)a)->name, ((const struct shape_reg *)b)->name);
}

static struct shape_reg *find(const struct tr_shape *s, const char *name)
{
	struct shape_reg key = { .name = name };

	return s && name ? bsearch(&key, s->v, s->n, sizeof(*s->v), cmp_reg) : NULL;
}

/* The declared type of register name (%r17 of "%r<30>" included). */
static enum ptx_type decl_type(const struct ptx_func *fn, const char *name)
{
	uint32_t i;

	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_var *v = &fn->body[i].u.decl;
		size_t n;
		char *end;

		if (fn->body[i].kind != PTX_STMT_DECL || v->space != PTX_SPACE_REG)
			continue;
		n = strlen(v->name);
		if (!v->range && !strcmp(v->name, name))
			return v->type;
		if (v->range && !strncmp(v->name, name, n) && name[n] >= '0' && name[n] <= '9' &&
		    strtoul(name + n, &end, 10) < v->range && !*end)
			return v->type;
	}
	return PTX_T_NONE;
}

static uint8_t int_bits(enum ptx_type ty)
{
	if (!ty || tr_is_float(ty) || ty == PTX_T_PRED)
		return 0;
	return tr_size(ty) == 4 || tr_size(ty) == 8 ? (uint8_t)(8 * tr_size(ty)) : 0;
}

/* Special registers that hold the same in every thread of a block. */
static const char *const block_sregs[] = {
	"%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid",
	"%cluster_nctaid",
};

static int block_sreg(const char *name)
{
	return tr_in_list(block_sregs, sizeof(block_sregs) / sizeof(block_sregs[0]), name);
}

static struct val opnd(const struct tr_shape *s, const struct ptx_operand *o)
{
	const struct shape_reg *r;
	uint32_t i;

	switch (o->kind) {
	case PTX_OP_IMM:
		return aligned(lin(0), low_zeros(o->i));
	case PTX_OP_FIMM:
		return lin(0);
	case PTX_OP_SYM:
		return lin(0);
	case PTX_OP_ADDR:
		if (!o->name || !o->base_is_reg)
			return lin(0);
		r = find(s, o->name);
		return r ? (struct val){ r->k, r->c, 0 } : vary;
	case PTX_OP_REG:
		if (o->neg && (r = find(s, o->name)))
			return r->k == TR_SHAPE_U || r->k == TR_SHAPE_NONE ?
				(struct val){ r->k, 0, r->tz } : vary;
		if ((r = find(s, o->name)))
			return o->component ? vary : (struct val){ r->k, r->c, r->tz };
		/* a warp call's first lane is a multiple of 32 (tr_shape_scan) */
		if (!strcmp(o->name, "%tid") && o->component)
			return aligned(lin(!strcmp(o->component, "x")),
				       s->warp && !strcmp(o->component, "x") ? 5 : 0);
		if (s->warp && !strcmp(o->name, "%laneid") && !o->component)
			return aligned(lin(1), 64);
		/* warp calls run only blocks whose rows are whole warps, so a
		 * thread's rank in the block (cooperative groups' thread_rank(),
		 * (tid.z * ntid.y + tid.y) * ntid.x + tid.x) is aligned as
		 * tid.x is */
		if (s->warp && !strcmp(o->name, "%ntid") && o->component &&
		    !strcmp(o->component, "x"))
			return aligned(lin(0), 5);
		return block_sreg(o->name) ? lin(0) : vary;
	case PTX_OP_VEC:
		for (i = 0; i < o->nelems; i++)
			if (opnd(s, &o->elems[i]).k != TR_SHAPE_U)
				return opnd(s, &o->elems[i]).k == TR_SHAPE_NONE ? unknown : vary;
		return lin(0);
	default:
		return vary;
	}
}

/* Uniform when every source is; unknown while one is. */
static struct val all_same(const struct tr_shape *s, const struct ptx_insn *in, uint32_t from)
{
	struct val r = lin(0), v;
	uint32_t i;

	for (i = from; i < in->nops; i++) {
		v = opnd(s, &in->ops[i]);
		if (v.k == TR_SHAPE_NONE)
			return unknown;
		if (v.k != TR_SHAPE_U)
			r = vary;
	}
	return r;
}

/* The constant a source of the instruction at s->at holds: an
 * immediate, or a register whose one write is a move of one, or each of
 * whose writes that reach it moves the same (consts.c). */
static int constant(const struct tr_shape *s, const struct tr_consts *cs,
		    const struct ptx_operand *o, int64_t *k)
{
	const struct ptx_insn *def;
	enum ptx_type ty;

	if (o->kind == PTX_OP_IMM) {
		*k = o->i;
		return 1;
	}
	/* no constants in a kernel with a name declared twice (cs NULL) */
	if (o->kind != PTX_OP_REG || o->component || !cs)
		return 0;
	if ((def = tr_const_def(cs, o->name, &ty)) && def->ops[1].kind == PTX_OP_IMM) {
		*k = def->ops[1].i;
		return 1;
	}
	if (tr_one_def(cs, o->name) && !def)
		return 0;
	return s->f && tr_const_at(s->f, s->at, o->name, k);
}

/* a * b where one of them is a constant, or both uniform. */
static struct val product(const struct tr_shape *s, const struct tr_consts *cs,
			  const struct ptx_operand *a, const struct ptx_operand *b)
{
	struct val x = opnd(s, a), y = opnd(s, b);
	int64_t k;

	if (x.k == TR_SHAPE_NONE || y.k == TR_SHAPE_NONE)
		return unknown;
	if (x.k == TR_SHAPE_U && y.k == TR_SHAPE_U)
		return aligned(lin(0), x.tz + y.tz);
	if (x.k == TR_SHAPE_U)          /* the constant second */
		return product(s, cs, b, a);
	if (x.k == TR_SHAPE_L && y.k == TR_SHAPE_U && constant(s, cs, b, &k) &&
	    k < SHAPE_MAX_C && k > -SHAPE_MAX_C)
		return aligned(lin(x.c * k), x.tz + low_zeros(k));
	return vary;
}

static struct val sum(struct val a, struct val b, int sub)
{
	if (a.k == TR_SHAPE_NONE || b.k == TR_SHAPE_NONE)
		return unknown;
	if (a.k == TR_SHAPE_V || b.k == TR_SHAPE_V)
		return vary;
	return aligned(lin(sub ? a.c - b.c : a.c + b.c), a.tz < b.tz ? a.tz : b.tz);
}

/* The first type among in's modifiers, and the second (cvt's source). */
static enum ptx_type mod_type(const struct ptx_insn *in, int second)
{
	uint32_t i;
	enum ptx_type ty;

	for (i = 0; i < in->nmods; i++)
		if ((ty = ptx_type_from_mod(in->mods[i])) && !second--)
			return ty;
	return PTX_T_NONE;
}

static int is_int32(enum ptx_type ty)
{
	return ty == PTX_T_S32 || ty == PTX_T_U32 || ty == PTX_T_B32;
}

/* Notes a widening of the linear 32-bit operand op of in. */
static void note_widen(struct tr_shape *s, const struct ptx_insn *in, uint32_t op, int64_t c,
		       int is_signed)
{
	uint32_t i;

	for (i = 0; i < s->nw; i++)
		if (s->w[i].in == in)
			break;
	if (i == s->nw) {
		s->w = xrealloc(s->w, (s->nw + 1) * sizeof(*s->w));
		s->nw++;
	}
	s->w[i] = (struct shape_widen){ in, op, c, is_signed };
}

/* mul.wide.s32/u32 and cvt.s64/u64 of a 32-bit integer: linear when the
 * source is (tested at run time, note_widen), unless a store may have run
 * before (dirty): then each lane's own. */
static struct val widen(struct tr_shape *s, const struct ptx_insn *in, uint32_t op, int64_t k,
			int is_signed, int dirty)
{
	struct val v = opnd(s, &in->ops[op]);

	if (v.k != TR_SHAPE_L || dirty)
		return v.k == TR_SHAPE_U || v.k == TR_SHAPE_NONE ? v : vary;
	note_widen(s, in, op, v.c, is_signed);
	return aligned(lin(v.c * k), v.tz + low_zeros(k));
}

/*
 * shr or and (shift) of a linear value v by or with the constant k, in a
 * call that runs one warp.  Its 32 lanes hold v0 + c * i, i < 32: with c =
 * 2^j and v0 a multiple of 2^(5 + j), they differ only in the bits below
 * 5 + j, where v0 has none.  Shifted right by 5 + j or more, every lane
 * holds the same; masked, they stay linear when k keeps all those bits,
 * and all the same when it keeps none.  So the warp's index (tid.x >> 5)
 * is uniform across the call and the lane's (tid.x & 31) linear.
 */
static struct val warp_bits(struct val v, int shift, int64_t k, unsigned bits)
{
	unsigned w = 5 + low_zeros(v.c);
	uint64_t low;

	if (v.c <= 0 || (v.c & (v.c - 1)) || v.tz < w || w >= bits)
		return vary;
	low = (UINT64_C(1) << w) - 1;
	if (shift)
		return k >= (int64_t)w ? lin(0) : vary;
	if (((uint64_t)k & low) == 0)
		return aligned(lin(0), w);
	return ((uint64_t)k & low) == low ? aligned(v, w) : vary;
}

/*
 * setp of a linear value x against a constant k, in a call that runs one
 * warp.  As in warp_bits, the 32 lanes' values lie in one span of 2^w
 * (w = 5 + j for c = 2^j) that starts at a multiple of 2^w, inside the
 * range of either signedness; a test that splits the values at a multiple
 * of 2^w (x < k or x >= k for such a k, x <= k or x > k for k + 1) puts
 * them all on one side, so every lane gets the same answer: the branch of
 * `if (threadIdx.x < 32)` picks whole warps, and its warp may shuffle.
 */
static struct val warp_compare(const struct tr_shape *s, const struct tr_consts *cs,
			       const struct ptx_insn *in, unsigned bits)
{
	static const char *const le[] = { ".le", ".gt", ".ls", ".hi" };
	static const char *const lt[] = { ".lt", ".ge", ".lo", ".hs" };
	struct val a = opnd(s, &in->ops[1]), b = opnd(s, &in->ops[2]);
	int first = a.k == TR_SHAPE_L, at_next = 0;
	struct val x = first ? a : b;
	uint32_t i;
	unsigned w;
	int64_t k;

	if (x.k != TR_SHAPE_L || (first ? b : a).k != TR_SHAPE_U ||
	    !constant(s, cs, &in->ops[first ? 2 : 1], &k))
		return all_same(s, in, 1);
	w = 5 + low_zeros(x.c);
	if (x.c <= 0 || (x.c & (x.c - 1)) || x.tz < w || w >= bits)
		return vary;
	for (i = 0; i < 4; i++) {
		if (tr_has(in, le[i]))
			at_next = first;	/* x <= k: x < k + 1; k <= x: x >= k */
		else if (tr_has(in, lt[i]))
			at_next = !first;	/* x < k; k < x: x >= k + 1 */
		else
			continue;
		return (((uint64_t)k + (uint64_t)at_next) & ((UINT64_C(1) << w) - 1)) ? vary : lin(0);
	}
	return vary;
}

static struct val eval(struct tr_shape *s, const struct tr_consts *cs, const struct ptx_insn *in,
		       int dirty)
{
	const char *op = in->opcode;
	enum ptx_type ty = mod_type(in, 0);
	int integer = int_bits(ty) != 0;
	int64_t k;

	if (!strcmp(op, "mov") && in->nops == 2 && in->ops[0].kind == PTX_OP_REG)
		return opnd(s, &in->ops[1]);
	if (!strcmp(op, "cvta") && in->nops == 2)
		return opnd(s, &in->ops[1]);
	if ((!strcmp(op, "add") || !strcmp(op, "sub")) && integer && in->nops == 3 &&
	    !tr_has(in, ".sat"))
		return sum(opnd(s, &in->ops[1]), opnd(s, &in->ops[2]), op[0] == 's');
	if (!strcmp(op, "mul") && integer && in->nops == 3 && tr_has(in, ".lo"))
		return product(s, cs, &in->ops[1], &in->ops[2]);
	if (!strcmp(op, "mad") && integer && in->nops == 4 && tr_has(in, ".lo"))
		return sum(product(s, cs, &in->ops[1], &in->ops[2]), opnd(s, &in->ops[3]), 0);
	if (!strcmp(op, "shl") && integer && in->nops == 3 && in->ops[2].kind == PTX_OP_IMM &&
	    in->ops[2].i >= 0 && in->ops[2].i < 24) {
		struct val v = opnd(s, &in->ops[1]);

		return aligned(v.k == TR_SHAPE_L ? lin(v.c * (INT64_C(1) << in->ops[2].i)) : v,
			       v.tz + (unsigned)in->ops[2].i);
	}
	if (!strcmp(op, "mul") && tr_has(in, ".wide") && is_int32(ty) && in->nops == 3) {
		if (opnd(s, &in->ops[2]).k == TR_SHAPE_U && constant(s, cs, &in->ops[2], &k) &&
		    k < SHAPE_MAX_C && k > -SHAPE_MAX_C)
			return widen(s, in, 1, k, ty == PTX_T_S32, dirty);
		return all_same(s, in, 1);
	}
	if (!strcmp(op, "cvt") && in->nmods == 2 && int_bits(ty) && int_bits(mod_type(in, 1))) {
		enum ptx_type from = mod_type(in, 1);

		if (int_bits(ty) == 64 && is_int32(from))
			return widen(s, in, 1, 1, from == PTX_T_S32, dirty);
		return opnd(s, &in->ops[1]);     /* same size, or truncation mod 2^32 */
	}
	if (tr_is_load(in)) {
		struct val a = opnd(s, &in->ops[1]);

		return a.k == TR_SHAPE_U || a.k == TR_SHAPE_NONE ? a : vary;
	}
	if (!strcmp(op, "atom") || !strcmp(op, "shfl"))
		return vary;
	if (s->warp && (!strcmp(op, "shr") || !strcmp(op, "and")) && integer && in->nops == 3 &&
	    opnd(s, &in->ops[1]).k == TR_SHAPE_L && constant(s, cs, &in->ops[2], &k))
		return warp_bits(opnd(s, &in->ops[1]), op[0] == 's', k, int_bits(ty));
	/* unsigned division by 2^j is a shift by j, the remainder a mask:
	 * threadIdx.x / warpSize and % warpSize */
	if (s->warp && (!strcmp(op, "div") || !strcmp(op, "rem")) && in->nops == 3 &&
	    (ty == PTX_T_U32 || ty == PTX_T_U64) && opnd(s, &in->ops[1]).k == TR_SHAPE_L &&
	    constant(s, cs, &in->ops[2], &k) && k > 0 && !(k & (k - 1)))
		return warp_bits(opnd(s, &in->ops[1]), op[0] == 'd',
				 op[0] == 'd' ? (int64_t)low_zeros(k) : k - 1, int_bits(ty));
	if (s->warp && !strcmp(op, "setp") && integer && in->nops == 3)
		return warp_compare(s, cs, in, int_bits(ty));
	return all_same(s, in, 1);
}

/* x joined with b: the shape both writes allow. */
static struct val join(const struct shape_reg *x, struct val b)
{
	if (b.k == TR_SHAPE_NONE || x->k == TR_SHAPE_V)
		return (struct val){ x->k, x->c, x->tz };
	if (x->k == TR_SHAPE_NONE)
		return b;
	if (x->k == b.k && x->c == b.c)
		return (struct val){ x->k, x->c, x->tz < b.tz ? x->tz : b.tz };
	return vary;
}

/* Whether an operand names a special register of the lane other than
 * %laneid (which a warp call knows: lane l of part h is 16 * h + l). */
static int lane_mask_sreg(const struct ptx_operand *o)
{
	uint32_t i;

	if (o->name && tr_lane_sreg(o->name) && strcmp(o->name, "%laneid"))
		return 1;
	for (i = 0; i < o->nelems; i++)
		if (lane_mask_sreg(&o->elems[i]))
			return 1;
	return o->pair && lane_mask_sreg(o->pair);
}

/* What a call that runs one warp can do besides: shfl.sync, unguarded;
 * no other warp operation, no barrier but bar.sync 0. */
static int warp_runnable(const struct ptx_insn *in)
{
	uint32_t i;

	for (i = 0; i < in->nops; i++)
		if (lane_mask_sreg(&in->ops[i]))
			return 0;
	if (tr_is_barrier(in))
		return tr_plain_barrier(in);
	if (!strcmp(in->opcode, "shfl"))
		return !in->guard;
	return !tr_warp_op(in->opcode);
}

/* What the group translation can run: lane-local instructions without
 * carries, local memory or calls, and bra, ret, exit and unguarded
 * barriers; in a warp call, shfl.sync too (warp_runnable). */
static int runnable(const struct tr_shape *s, const struct ptx_insn *in)
{
	static const char *const mem[] = {
		"ld", "ldu", "st", "cvta", "atom", "red", "membar", "fence", "prefetch", "prefetchu",
	};
	static const char *const flow[] = { "bra", "ret", "exit", "bar", "barrier" };
	static const char *const refused[] = {
		".cc", ".local", ".param::func", ".shared::cluster",
	};
	uint32_t i;

	for (i = 0; i < in->nmods; i++)
		if (tr_in_list(refused, sizeof(refused) / sizeof(refused[0]), in->mods[i]))
			return 0;
	if (!strcmp(in->opcode, "addc") || !strcmp(in->opcode, "subc") ||
	    !strcmp(in->opcode, "madc"))
		return 0;
	/* a group waits at a barrier whole */
	if (in->guard && tr_is_barrier(in))
		return 0;
	if (s->warp && !warp_runnable(in))
		return 0;
	if (s->warp && !strcmp(in->opcode, "shfl"))
		return 1;
	return tr_arith_emitter(in->opcode) || tr_cvt_emitter(in->opcode) ||
		tr_in_list(mem, sizeof(mem) / sizeof(mem[0]), in->opcode) ||
		tr_in_list(flow, sizeof(flow) / sizeof(flow[0]), in->opcode);
}

static int is_stop(const struct ptx_insn *in)
{
	return in && !in->guard && (!strcmp(in->opcode, "ret") || !strcmp(in->opcode, "exit"));
}

static int fixed_point(struct tr_shape *s, const struct tr_consts *cs, const struct tr_flow *f,
		       const uint8_t *dirty)
{
	const char *d[TR_MAX_DESTS];
	int changed = 1;
	uint32_t i, j, nd;

	while (changed) {
		changed = 0;
		for (i = 0; i < f->n; i++) {
			const struct ptx_insn *in = f->ins[i];
			struct val r;
			int any_vary = 0;

			if (!(nd = tr_dests(in, d, TR_MAX_DESTS)) || nd > TR_MAX_DESTS)
				continue;
			s->f = f;
			s->at = i;
			r = eval(s, cs, in, dirty[i]);
			s->f = NULL;
			if (in->guard && find(s, in->guard) && find(s, in->guard)->k == TR_SHAPE_V)
				r = vary;
			for (j = 0; j < nd; j++)
				any_vary |= find(s, d[j]) && find(s, d[j])->k == TR_SHAPE_V;
			if (any_vary)
				r = vary;
			for (j = 0; j < nd; j++) {
				struct shape_reg *x = find(s, d[j]);
				struct val v;

				if (!x)
					return -1;
				if (r.k == TR_SHAPE_L && !x->bits)
					r = vary;
				v = join(x, r);
				if (v.k == TR_SHAPE_L && x->bits == 32)
					v.c = (int32_t)(uint32_t)v.c;
				if (v.k != x->k || v.c != x->c || v.tz != x->tz) {
					x->k = v.k;
					x->c = v.c;
					x->tz = v.tz;
					changed = 1;
				}
			}
		}
	}
	for (i = 0; i < s->n; i++)
		if (s->v[i].k == TR_SHAPE_NONE)
			s->v[i].k = TR_SHAPE_U;
	/* widenings noted on the way whose source turned out not linear */
	for (i = j = 0; i < s->nw; i++) {
		struct val v = opnd(s, &s->w[i].in->ops[s->w[i].op]);

		if (v.k == TR_SHAPE_L) {
			s->w[j] = s->w[i];
			s->w[j++].c = v.c;
		}
	}
	s->nw = j;
	return 0;
}

/* Whether in writes memory that a block run again from its start would
 * find written: shared memory aside in a kernel with barriers (the
 * block's shared memory starts undefined, and what it reads after a
 * barrier it writes again). */
static int writes_kept(const struct ptx_insn *in, int barriers)
{
	return tr_writes_memory(in) && !(barriers && tr_has(in, ".shared"));
}

/* Marks what the block's first round reaches (from the kernel's start,
 * up to the barriers), and returns whether any of it writes kept memory. */
static int first_round(const struct tr_flow *f, uint8_t *first)
{
	uint32_t i, k;
	int changed = 1, writes = 0;

	first[0] = f->n > 0;
	while (changed) {
		changed = 0;
		for (i = 0; i < f->n; i++) {
			uint32_t to[2] = { f->next[i], f->jump[i] };

			if (!first[i] || tr_is_barrier(f->ins[i]))
				continue;
			writes |= writes_kept(f->ins[i], 1);
			for (k = 0; k < 2; k++)
				if (to[k] < f->n && !first[to[k]])
					first[to[k]] = changed = 1;
		}
	}
	return writes;
}

/* ahead[i]: a write to kept memory may follow instruction i before the
 * next barrier. */
static void writes_ahead(const struct tr_flow *f, uint8_t *ahead)
{
	uint32_t i, k;
	int changed = 1;

	while (changed) {
		changed = 0;
		for (i = f->n; i-- > 0;) {
			uint32_t to[2] = { f->next[i], f->jump[i] };
			uint8_t v = (uint8_t)writes_kept(f->ins[i], 1);

			for (k = 0; k < 2 && !v && !tr_is_barrier(f->ins[i]); k++)
				v = to[k] < f->n && ahead[to[k]];
			if (v != ahead[i]) {
				ahead[i] = v;
				changed = 1;
			}
		}
	}
}

/* Whether a conditional branch of the kernel is on a predicate made from
 * %tid.y or %tid.z (mark), and, with uniform, one the shapes found
 * not to vary: rows of a block may take different paths there. */
static int row_branch(const struct tr_shape *s, const struct tr_flow *f, int uniform)
{
	uint32_t i;

	for (i = 0; i < f->n; i++) {
		const struct shape_reg *p = f->ins[i]->guard ? find(s, f->ins[i]->guard) : NULL;

		if (!strcmp(f->ins[i]->opcode, "bra") && p && p->row &&
		    (!uniform || p->k != TR_SHAPE_V))
			return 1;
	}
	return 0;
}

/*
 * dirty[i]: a group whose lanes cross the wrap at a widening at
 * instruction i could not run again from its start.  Without barriers its
 * threads run again one at a time: dirty when a store or atomic may have
 * run before i.  With barriers the whole block runs again, and the other
 * groups may have gone further: dirty also when such a write may follow i
 * before the next barrier (another group of the round went past i and
 * wrote); and when rows may take different paths, where a row's write
 * need not come before i in the other's, only a widening in the block's
 * first round is clean, if that round writes nothing.  Shared memory
 * aside (writes_kept).
 */
static uint8_t *find_dirty(const struct tr_shape *s, const struct tr_flow *f)
{
	uint8_t *dirty = xcalloc(f->n + 1, 1), *more;
	uint32_t i, k;
	int changed = 1, barriers = s->warp, writes;

	for (i = 0; i < f->n; i++)
		barriers |= tr_is_barrier(f->ins[i]);
	while (changed) {
		changed = 0;
		for (i = 0; i < f->n; i++) {
			uint8_t out = dirty[i] || writes_kept(f->ins[i], barriers);
			uint32_t to[2] = { f->next[i], f->jump[i] };

			for (k = 0; k < 2; k++)
				if (to[k] < f->n && out && !dirty[to[k]])
					dirty[to[k]] = changed = 1;
		}
	}
	if (!barriers)
		return dirty;
	more = xcalloc(f->n + 1, 1);
	if (row_branch(s, f, 0)) {
		writes = first_round(f, more);
		for (i = 0; i < f->n; i++)
			dirty[i] |= writes || !more[i];
	} else {
		writes_ahead(f, more);
		for (i = 0; i < f->n; i++)
			dirty[i] |= more[i];
	}
	free(more);
	return dirty;
}

/* Every instruction runnable, every conditional branch uniform or to a
 * ret or exit. */
static int qualifies(const struct tr_shape *s, const struct tr_flow *f)
{
	uint32_t i;
	int ok = 1;

	for (i = 0; i < f->n && ok; i++) {
		const struct ptx_insn *in = f->ins[i];

		ok = runnable(s, in);
		if (ok && !strcmp(in->opcode, "bra") && in->guard &&
		    tr_shape_reg(s, in->guard, NULL) != TR_SHAPE_U)
			ok = f->jump[i] < f->n && is_stop(f->ins[f->jump[i]]);
	}
	return ok;
}

static int row_operand(const struct tr_shape *s, const struct ptx_operand *o)
{
	const struct shape_reg *r;
	uint32_t i;

	if (o->kind == PTX_OP_REG && o->name && !strcmp(o->name, "%tid") && o->component &&
	    strcmp(o->component, "x"))
		return 1;
	if ((r = find(s, o->name)) && r->row &&
	    (o->kind == PTX_OP_REG || (o->kind == PTX_OP_ADDR && o->base_is_reg)))
		return 1;
	for (i = 0; i < o->nelems; i++)
		if (row_operand(s, &o->elems[i]))
			return 1;
	return o->pair && row_operand(s, o->pair);
}

/* Whether a loop of the kernel has no barrier in it (a branch back whose
 * way from its target holds none). */
static int loop_between_barriers(const struct tr_flow *f)
{
	uint32_t i, k;
	int barrier;

	for (i = 0; i < f->n; i++) {
		if (strcmp(f->ins[i]->opcode, "bra") || f->jump[i] > i)
			continue;
		for (k = f->jump[i], barrier = 0; k <= i && !barrier; k++)
			barrier = tr_is_barrier(f->ins[k]);
		if (!barrier)
			return 1;
	}
	return 0;
}

/*
 * How many row groups one call of the group function runs (group.c), and
 * whether in a loop over them.  One when a branch on a uniform predicate
 * might go one way in one row of the block and the other way in the next
 * (its predicate is made, through any instruction, from %tid.y or %tid.z):
 * the two would not take the same path.  (A branch on a varying one only
 * takes lanes out of the mask.)  Else two, a vector chain each, written
 * out side by side; with barriers SHAPE_LOOPED, in a loop over the parts
 * (group.c, open_parts).  Written out, two made tiled SGEMM 1.5 to 2 times
 * slower than one and n-body 3 times (one thread: 44-72 ms against 27-35,
 * 69-75 against 23-27): GCC made no vector code of the parts' loads of a
 * tile.  Looped over, eight made tiled SGEMM's 14.5 ms 10.5-11.5, and
 * n-body's 22 ms 24.7, whose sums, kept through its loop over a tile
 * between two barriers in registers by a call of one part, went to memory
 * and back at each turn of it: a kernel with such a loop runs one.
 */
static void count_parts(struct tr_shape *s, const struct tr_flow *f)
{
	uint32_t i;
	int barriers = 0;

	s->parts = 2;
	if (s->warp)
		return;
	for (i = 0; i < f->n; i++)
		barriers |= tr_is_barrier(f->ins[i]);
	if (row_branch(s, f, 1) || (barriers && loop_between_barriers(f))) {
		s->parts = 1;
	} else if (barriers) {
		s->parts = SHAPE_LOOPED;
		s->looped = 1;
	}
}

/* Whether in's results are made of its operands alone: arithmetic,
 * logic, comparisons, moves and conversions. */
static int pure(const struct ptx_insn *in)
{
	static const char *const ops[] = {
		"abs", "add", "and", "bfe", "bfi", "bfind", "bmsk", "brev", "clz", "cnot", "copysign",
		"cos", "cvt", "cvta", "div", "ex2", "fma", "lg2", "lop3", "mad", "mad24", "max",
		"min", "mov", "mul", "mul24", "neg", "not", "or", "popc", "prmt", "rcp", "rem",
		"rsqrt", "sad", "selp", "set", "setp", "shf", "shl", "shr", "sin", "slct", "sqrt",
		"sub", "tanh", "testp", "xor",
	};

	return tr_in_list(ops, sizeof(ops) / sizeof(ops[0]), in->opcode);
}

/* Whether operand o reads what two threads with the same %tid.x may
 * see differently: another index, a clock, memory (through an address
 * operand, or a register made so). */
static int apart_operand(const struct tr_shape *s, const struct ptx_operand *o)
{
	const struct shape_reg *r = o->name ? find(s, o->name) : NULL;
	uint32_t i;

	if (o->kind == PTX_OP_REG && o->name && !r) {
		if (!strcmp(o->name, "%tid"))
			return o->component && strcmp(o->component, "x");
		return !block_sreg(o->name);
	}
	if (r && r->apart && (o->kind == PTX_OP_REG || (o->kind == PTX_OP_ADDR && o->base_is_reg)))
		return 1;
	for (i = 0; i < o->nelems; i++)
		if (apart_operand(s, &o->elems[i]))
			return 1;
	return o->pair && apart_operand(s, o->pair);
}

/* The flag of register r that mark sets. */
static uint8_t *flag(struct shape_reg *r, int apart)
{
	return apart ? &r->apart : &r->row;
}

/*
 * Without apart, the registers made, through any instruction, from
 * %tid.y or %tid.z: rows of the block may hold different values in them.
 * With apart, those that may differ between two parts of a call whose
 * lanes have the same %tid.x (a block sixteen threads wide): made from
 * %tid.y, %tid.z, another special register than the block's and grid's
 * sizes and place, or memory (a load, an atomic: the parts run one after
 * the other, and a later part may see what an earlier stored).
 */
static void mark(struct tr_shape *s, const struct tr_flow *f, int apart)
{
	const char *d[TR_MAX_DESTS];
	uint32_t i, j, k, nd;
	int changed = 1;

	while (changed) {
		changed = 0;
		for (i = 0; i < f->n; i++) {
			const struct ptx_insn *in = f->ins[i];
			struct shape_reg *g = in->guard ? find(s, in->guard) : NULL;
			int hit = (apart && !pure(in)) || (g && *flag(g, apart));

			for (j = 0; j < in->nops && !hit; j++)
				hit = apart ? apart_operand(s, &in->ops[j]) : row_operand(s, &in->ops[j]);
			nd = hit ? tr_dests(in, d, TR_MAX_DESTS) : 0;
			for (k = 0; k < nd && k < TR_MAX_DESTS; k++)
				if (find(s, d[k]) && !*flag(find(s, d[k]), apart))
					*flag(find(s, d[k]), apart) = changed = 1;
		}
	}
}

/* Whether instruction in of fn is the guard of the swept loop past or
 * lies between it and END. */
static int cut_out(const struct ptx_func *fn, const struct tr_stride *past,
		   const struct ptx_insn *in)
{
	uint32_t k = tr_stmt_of(fn, in);

	return k >= past->guard_at && k < past->end;
}

/* The flow of a swept kernel as the group calls after its sweep run it
 * (stride.c, past): the guard and the loop gone, what went to the guard
 * going to END, where the guard sends every lane. */
static void cut_loop(const struct ptx_func *fn, const struct tr_stride *past, struct tr_flow *f)
{
	uint32_t *to = xmalloc((f->n + 1) * sizeof(*to)), i, n = 0, end;

	for (end = 0; end < f->n && tr_stmt_of(fn, f->ins[end]) < past->end; end++)
		;
	for (i = 0; i < f->n; i++)
		to[i] = cut_out(fn, past, f->ins[i]) ? UINT32_MAX : n++;
	to[f->n] = n;
	for (i = 0; i < f->n; i++)
		if (to[i] == UINT32_MAX)
			to[i] = to[end];
	for (i = 0; i < f->n; i++) {
		if (cut_out(fn, past, f->ins[i]))
			continue;
		f->ins[to[i]] = f->ins[i];
		f->next[to[i]] = f->next[i] <= f->n ? to[f->next[i]] : f->next[i];
		f->jump[to[i]] = f->jump[i] <= f->n ? to[f->jump[i]] : f->jump[i];
		f->ends[to[i]] = f->ends[i];
	}
	f->n = n;
	free(to);
}

struct tr_shape *tr_shape_scan(const struct ptx_func *fn, const struct tr_consts *cs, int warp,
			       const struct tr_stride *past)
{
	struct tr_shape *s;
	struct tr_flow f;
	const char **names;
	uint8_t *dirty;
	uint32_t i, n;

	if (tr_redeclared(fn) || tr_written(fn, &names, &n))
		return NULL;
	if (tr_flow_build(fn, &f)) {
		free(names);
		return NULL;
	}
	if (past)
		cut_loop(fn, past, &f);
	s = xcalloc(1, sizeof(*s));
	s->v = xcalloc(n + 1, sizeof(*s->v));
	s->n = n;
	s->warp = warp;
	for (i = 0; i < n; i++)
		s->v[i] = (struct shape_reg){ .name = names[i],
					      .bits = int_bits(decl_type(fn, names[i])) };
	free(names);
	/* each lane takes up what its thread carried */
	for (i = 0; past && i < past->ncarried; i++)
		if (find(s, past->carried[i]))
			find(s, past->carried[i])->k = TR_SHAPE_V;
	mark(s, &f, 0);
	mark(s, &f, 1);
	dirty = find_dirty(s, &f);
	if (fixed_point(s, cs, &f, dirty) || !qualifies(s, &f)) {
		tr_shape_free(s);
		s = NULL;
	} else {
		count_parts(s, &f);
	}
	free(dirty);
	tr_flow_free(&f);
	return s;
}

int tr_shape_reg(const struct tr_shape *s, const char *reg, int64_t *c)
{
	const struct shape_reg *r = find(s, reg);

	if (c)
		*c = r ? r->c : 0;
	return r ? r->k : TR_SHAPE_V;
}

int tr_shape_widen(const struct tr_shape *s, const struct ptx_insn *in, uint32_t *op, int64_t *c,
		   int *is_signed)
{
	uint32_t i;

	for (i = 0; s && i < s->nw; i++)
		if (s->w[i].in == in) {
			*op = s->w[i].op;
			*c = s->w[i].c;
			*is_signed = s->w[i].is_signed;
			return 1;
		}
	return 0;
}

int tr_shape_same(const struct tr_shape *s, const char *reg)
{
	const struct shape_reg *r = s ? find(s, reg) : NULL;

	return r && !r->apart && r->k != TR_SHAPE_V;
}

uint32_t tr_shape_parts(const struct tr_shape *s)
{
	return s ? s->parts : 1;
}

int tr_shape_looped(const struct tr_shape *s)
{
	return s && s->looped;
}

int tr_shape_warp(const struct tr_shape *s)
{
	return s && s->warp;
}

void tr_shape_free(struct tr_shape *s)
{
	if (s) {
		free(s->v);
		free(s->w);
	}
	free(s);
}
