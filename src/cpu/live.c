/*
 * live.c - which registers of a function are live after each of its
 * instructions.  Two translations ask.  The fast path (translate_fast.c)
 * runs a block's threads one at a time between barriers: at a barrier a
 * thread stores its registers into its slot and later loads them back.
 * Only the registers that are read again before being written need that
 * round trip; in a tiled kernel they are a handful out of a hundred.  And
 * lockstep (vector.c) keeps a register that lives only inside one run of
 * lane-local instructions out of the warp's frame (tr_live_run).
 *
 * The analysis is the textbook backward one over the function's
 * instructions, on PTX register names.  It may only err on the side of
 * more registers: every register an instruction mentions counts as read,
 * and only an unguarded instruction of a kind that surely writes its first
 * operand (plain arithmetic, moves, loads, shuffles; both registers of
 * setp p|q and shfl d|p) counts as writing it.  It gives
 * up (NULL: keep everything) on what it cannot follow: indexed branches,
 * and a register name declared twice in nested scopes, where one name
 * would stand for two variables.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

struct tr_live {
	const char **names;     /* sorted register names */
	uint32_t nnames, words;
	const struct ptx_insn **ins;    /* the instructions, in body order */
	uint32_t nins;
	uint64_t *out;          /* per instruction, the set live after it */
	uint32_t *bar;          /* the barriers' indices in ins */
	uint32_t nbar;
};

/* Frees the names of s, which owns them, and empties it (clear) or frees
 * its array too (free). */
void tr_names_clear(struct tr_names *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		free((char *)s->v[i]);
	s->n = 0;
}

void tr_names_free(struct tr_names *s)
{
	tr_names_clear(s);
	free(s->v);
	s->v = NULL;
	s->cap = 0;
}

void tr_names_add(struct tr_names *s, const char *name)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xrealloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = name;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void names_sort(struct tr_names *s, int unique)
{
	uint32_t i, n = 0;

	if (!s->n)
		return;
	qsort(s->v, s->n, sizeof(*s->v), cmp_name);
	for (i = 0; i < s->n; i++)
		if (!unique || !n || strcmp(s->v[n - 1], s->v[i]))
			s->v[n++] = s->v[i];
	s->n = n;
}

static void set_bit(uint64_t *set, int64_t i)
{
	set[(uint64_t)i / 64] |= 1ull << ((uint64_t)i % 64);
}

static int64_t names_find(const struct tr_live *lv, const char *name)
{
	const char **p = bsearch(&name, lv->names, lv->nnames, sizeof(*lv->names), cmp_name);

	return p ? p - lv->names : -1;
}

/* Every register an operand mentions. */
static void operand_regs(const struct ptx_operand *o, struct tr_names *s)
{
	uint32_t i;

	if ((o->kind == PTX_OP_REG || (o->kind == PTX_OP_ADDR && o->base_is_reg)) && o->name)
		tr_names_add(s, o->name);
	for (i = 0; i < o->nelems; i++)
		operand_regs(&o->elems[i], s);
	if (o->pair)
		operand_regs(o->pair, s);
}

void tr_insn_regs(const struct ptx_insn *in, struct tr_names *s)
{
	uint32_t i;

	if (in->guard)
		tr_names_add(s, in->guard);
	for (i = 0; i < in->nops; i++)
		operand_regs(&in->ops[i], s);
}

void tr_insn_reads(const struct ptx_insn *in, struct tr_names *s)
{
	uint32_t i;

	if (in->guard)
		tr_names_add(s, in->guard);
	for (i = 0; i < in->nops; i++)
		if (i || in->ops[0].kind == PTX_OP_ADDR)
			operand_regs(&in->ops[i], s);
}

/* The second register that setp p|q and shfl d|p write (each lane's
 * source found in its segment), or NULL.  shfl writes both in every lane
 * that runs it. */
static const char *pair_def(const struct ptx_insn *in)
{
	const struct ptx_operand *q = in->nops ? in->ops[0].pair : NULL;

	if (!q || q->kind != PTX_OP_REG || !q->name || q->component || q->pair ||
	    (strcmp(in->opcode, "setp") && strcmp(in->opcode, "shfl")))
		return NULL;
	return q->name;
}

/* The register the instruction surely writes when its guard holds (the
 * first of a pair), or NULL. */
static const char *guarded_def(const struct ptx_insn *in)
{
	static const char *const writes[] = {
		"mov", "ld", "ldu", "add", "sub", "mul", "mad", "mul24", "mad24", "fma",
		"div", "rem", "min", "max", "abs", "neg", "and", "or", "xor", "not", "cnot",
		"shl", "shr", "cvt", "cvta", "setp", "set", "selp", "slct", "rcp", "sqrt",
		"rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "popc", "clz", "brev", "bfe",
		"bfi", "bfind", "prmt", "shf", "lop3", "copysign", "testp", "addc", "subc",
		"madc", "sad", "dp4a", "dp2a", "bmsk", "isspacep", "atom", "shfl",
	};
	const struct ptx_operand *o = in->nops ? &in->ops[0] : NULL;
	size_t i;

	if (!o || o->kind != PTX_OP_REG || o->component || (o->pair && !pair_def(in)))
		return NULL;
	for (i = 0; i < sizeof(writes) / sizeof(writes[0]); i++)
		if (!strcmp(in->opcode, writes[i]))
			return o->name;
	return NULL;
}

/* The register the instruction surely writes, or NULL. */
static const char *insn_def(const struct ptx_insn *in)
{
	return in->guard ? NULL : guarded_def(in);
}

/* 1 when some register name is declared twice. */
int tr_redeclared(const struct ptx_func *fn)
{
	struct tr_names d = { 0 };
	uint32_t i, k;
	int dup = 0;

	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_var *v = &fn->body[i].u.decl;

		if (fn->body[i].kind != PTX_STMT_DECL || v->space != PTX_SPACE_REG)
			continue;
		if (!v->range) {
			tr_names_add(&d, xstrdup(v->name));
			continue;
		}
		for (k = 0; k < v->range; k++) {    /* %r<3>: %r0 %r1 %r2 */
			struct strbuf sb = STRBUF_INIT;

			sb_addf(&sb, "%s%u", v->name, k);
			tr_names_add(&d, sb.buf);
		}
	}
	names_sort(&d, 0);
	for (i = 1; i < d.n && !dup; i++)
		dup = !strcmp(d.v[i - 1], d.v[i]);
	for (i = 0; i < d.n; i++)
		free((char *)d.v[i]);
	free(d.v);
	return dup;
}

/* The function's instructions as a graph (flow.c), and one bit set per
 * instruction of what it reads (use), writes (def) and has live on entry
 * (in) and exit (out), words 64-bit words each. */
struct flow {
	struct tr_flow g;
	uint32_t words;
	uint64_t *use, *def, *in, *out;
};

static uint64_t *flow_set(const struct flow *f, uint64_t *sets, uint32_t i)
{
	return &sets[(size_t)i * f->words];
}

/* Whether a and b are both guarded by the same predicate, the same way. */
static int same_guard(const struct ptx_insn *a, const struct ptx_insn *b)
{
	return a->guard && b->guard && !strcmp(a->guard, b->guard) && a->guard_neg == b->guard_neg;
}

/* How far back covered() looks for the write. */
#define COVER_SCAN 32

/*
 * Whether instruction i, guarded by p, reads reg only as an earlier
 * instruction with the same guard wrote it: in the same straight run (no
 * way in between, entered[]), no barrier between (the fast path keeps
 * only what is live across one) and p unchanged since.  A thread that
 * reads reg there (p holds) wrote it there, so what reg held before is not
 * read.  nvcc's bounds checks, their branches made guards (ifconv.c),
 * load a value and store it so; counted as read, every such register of
 * a tiled transpose looked live across its barrier.
 */
static int covered(const struct tr_flow *g, const uint8_t *entered, uint32_t i, const char *reg)
{
	const struct ptx_insn *x = g->ins[i];
	uint32_t k;

	for (k = i; k-- > 0 && i - k <= COVER_SCAN && !entered[k + 1];) {
		const struct ptx_insn *w = g->ins[k];
		const char *d = guarded_def(w);

		if (tr_is_barrier(w) || tr_writes(w, x->guard))
			return 0;
		if (same_guard(w, x) && d && (!strcmp(d, reg) || (pair_def(w) &&
							   !strcmp(pair_def(w), reg))))
			return 1;
	}
	return 0;
}

/* Reads and writes of every instruction. */
static void flow_sets(const struct tr_live *lv, struct flow *f)
{
	uint8_t *entered = xcalloc(f->g.n + 1, 1);      /* a branch's target */

	for (uint32_t i = 0; i < f->g.n; i++)
		if (f->g.jump[i] != UINT32_MAX)
			entered[f->g.jump[i]] = 1;
	for (uint32_t i = 0; i < f->g.n; i++) {
		const struct ptx_insn *x = f->g.ins[i];
		const char *d = insn_def(x), *gd = guarded_def(x), *pd = gd ? pair_def(x) : NULL;
		uint32_t first = x->guard ? 1u : 0u;
		struct tr_names m = { 0 };

		/* m.v[0] is the guard, if any, then the written registers: a
		 * guarded write keeps the old value where its guard fails,
		 * but does not read it */
		tr_insn_regs(x, &m);
		for (uint32_t j = 0; j < m.n; j++) {
			if (gd && (j == first || (pd && j == first + 1)))
				continue;
			if (x->guard && strcmp(m.v[j], x->guard) && covered(&f->g, entered, i, m.v[j]))
				continue;
			set_bit(flow_set(f, f->use, i), names_find(lv, m.v[j]));
		}
		if (d)
			set_bit(flow_set(f, f->def, i), names_find(lv, d));
		if (d && pd)
			set_bit(flow_set(f, f->def, i), names_find(lv, pd));
		free(m.v);
	}
	free(entered);
}

/* live out = live in of the successors; live in = use | (out & ~def),
 * backwards until nothing changes. */
static void flow_solve(struct flow *f)
{
	int changed;

	do {
		changed = 0;
		for (uint32_t i = f->g.n; i-- > 0;) {
			uint64_t *o = flow_set(f, f->out, i), *li = flow_set(f, f->in, i);
			const uint64_t *u = flow_set(f, f->use, i), *d = flow_set(f, f->def, i);

			for (uint32_t k = 0; k < f->words; k++) {
				uint64_t v = 0, nv;

				if (f->g.next[i] != UINT32_MAX)
					v |= flow_set(f, f->in, f->g.next[i])[k];
				if (f->g.jump[i] != UINT32_MAX)
					v |= flow_set(f, f->in, f->g.jump[i])[k];
				o[k] = v;
				nv = u[k] | (v & ~d[k]);
				changed |= nv != li[k];
				li[k] = nv;
			}
		}
	} while (changed);
}

struct tr_live *tr_live_scan(const struct ptx_func *fn)
{
	struct tr_names regs = { 0 };
	struct tr_live *lv;
	struct flow f = { 0 };
	uint32_t i;
	size_t bytes;

	if (tr_redeclared(fn) || tr_flow_build(fn, &f.g))
		return NULL;
	for (i = 0; i < f.g.n; i++)
		tr_insn_regs(f.g.ins[i], &regs);
	names_sort(&regs, 1);
	lv = xcalloc(1, sizeof(*lv));
	lv->names = regs.v;
	lv->nnames = regs.n;
	lv->words = f.words = regs.n ? (regs.n + 63) / 64 : 1;
	bytes = (size_t)(f.g.n + 1) * f.words * 8;
	f.use = xcalloc(1, bytes);
	f.def = xcalloc(1, bytes);
	f.in = xcalloc(1, bytes);
	f.out = xcalloc(1, bytes);
	flow_sets(lv, &f);
	flow_solve(&f);
	lv->ins = f.g.ins;      /* lv owns them from here */
	lv->nins = f.g.n;
	lv->out = f.out;
	lv->bar = xcalloc(f.g.n + 1, sizeof(*lv->bar));
	for (i = 0; i < f.g.n; i++)
		if (tr_is_barrier(f.g.ins[i]))
			lv->bar[lv->nbar++] = i;
	f.g.ins = NULL;
	tr_flow_free(&f.g);
	free(f.use);
	free(f.def);
	free(f.in);
	return lv;
}

static int live_in(const struct tr_live *lv, uint32_t at, int64_t reg)
{
	return reg >= 0 && (lv->out[(size_t)at * lv->words + (uint64_t)reg / 64] >> (reg % 64) & 1);
}

int tr_live_after(const struct tr_live *lv, uint32_t k, const char *reg)
{
	if (!lv || k == 0 || k > lv->nbar)
		return 1;
	return live_in(lv, lv->bar[k - 1], names_find(lv, reg));
}

/* The index of instruction in, which the body's order keeps sorted by
 * address; -1 when it is not one of the function's. */
static int64_t insn_index(const struct tr_live *lv, const struct ptx_insn *in)
{
	uint32_t lo = 0, hi = lv->nins;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (lv->ins[mid] == in)
			return mid;
		if ((uintptr_t)lv->ins[mid] < (uintptr_t)in)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int tr_live_out(const struct tr_live *lv, const struct ptx_insn *in, const char *reg)
{
	int64_t i = lv ? insn_index(lv, in) : -1;

	return i < 0 || live_in(lv, (uint32_t)i, names_find(lv, reg));
}

/*
 * The registers whose every value the run of instructions run[0..n) both
 * makes and uses up: the first instruction of the run to mention one
 * surely writes it and does not read it, and it is dead after the run's
 * last instruction.  Their names go to *regs (the caller frees the array,
 * not the names); the count is returned.
 */
uint32_t tr_live_run(const struct tr_live *lv, const struct ptx_insn *const *run, uint32_t n,
		     const char ***regs)
{
	struct tr_names local = { 0 };
	int64_t last = lv && n ? insn_index(lv, run[n - 1]) : -1;
	uint64_t *seen;

	*regs = NULL;
	if (last < 0)
		return 0;
	seen = xcalloc(lv->words, sizeof(*seen));
	for (uint32_t i = 0; i < n; i++) {
		const char *d = insn_def(run[i]);
		struct tr_names m = { 0 };
		uint32_t uses = 0;
		int64_t di = d ? names_find(lv, d) : -1;
		int fresh = di >= 0 && !(seen[di / 64] >> (di % 64) & 1);

		tr_insn_regs(run[i], &m);
		for (uint32_t k = 0; k < m.n; k++) {
			int64_t x = names_find(lv, m.v[k]);

			uses += d && !strcmp(m.v[k], d);
			if (x >= 0)
				set_bit(seen, x);
		}
		free(m.v);
		if (fresh && uses == 1 && !live_in(lv, (uint32_t)last, di))
			tr_names_add(&local, d);
	}
	free(seen);
	*regs = local.v;
	return local.n;
}

void tr_live_free(struct tr_live *lv)
{
	if (!lv)
		return;
	free(lv->names);
	free(lv->ins);
	free(lv->out);
	free(lv->bar);
	free(lv);
}
