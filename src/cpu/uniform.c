/*
 * uniform.c - which registers of a kernel hold the same value in every
 * lane that reads them (a divergence analysis).  A loop's counter, its
 * bound and the predicate that closes it usually do, and then the branch
 * back needs no count of the 32 lanes that take it: one lane tells
 * (translate_func.c), and a step made of such a register needs no test
 * that it is the same in each half warp (steady.c).
 *
 * The analysis is the usual one on PTX register names, optimistic and run
 * to a fixed point, where divergence only spreads:
 *
 * - A write is divergent when its instruction may give lanes different
 *   values from equal operands (anything but plain arithmetic, moves and
 *   loads of the kernel's parameters), reads a divergent register, a
 *   per-lane special register (%tid, %laneid, clocks) or the address of a
 *   per-thread variable (.local, a call's .param), or is guarded by a
 *   divergent predicate (the lanes it skips keep their old values).  A
 *   register with a divergent write is divergent everywhere.
 *
 * - Lanes split at a branch on a divergent predicate and may meet again
 *   at any instruction both of its targets reach.  A register written on
 *   the way from either target (in either lane group, a different number
 *   of times in a loop that lanes leave at different turns) and read at
 *   such an instruction may differ there between lanes of the two groups,
 *   so it is divergent.  Values written and read on one side only, like a
 *   loop's counter behind a bounds test that sends some lanes to the end,
 *   stay uniform: the lanes that read them went one way.
 *
 * Lanes that exit do not meet again.  The scan also finds the registers
 * a thread writes once at most (one instruction writes them, and it is on
 * no cycle): their values never change after, so vector.c finds the form
 * of an access through one once per block.  Only kernels are analysed: a device
 * function's parameters are each lane's own; a kernel with a name
 * declared twice in nested scopes or an indexed branch has no uniform
 * registers (NULL).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

struct tr_uniform {
	const char **names;     /* written registers, sorted */
	uint8_t *div;           /* per name: divergent */
	uint8_t *once;          /* per name: written by one instruction, on no
				 * loop */
	uint32_t n;
};

/* The kernel's instructions as a graph (flow.c), with the instructions
 * on every path from each to the end, and what the passes to the fixed
 * point look up again and again. */
struct flow {
	struct tr_flow g;
	uint64_t *pdom;         /* per instruction, the set of those on every
				 * path from it to the end (index n) */
	uint32_t words;
	uint32_t *first, *dest; /* instruction i writes names dest[first[i]]
				 * up to dest[first[i + 1]] */
	uint32_t **meet;        /* per divergent branch, once known: the names
				 * that may differ where its targets meet,
				 * ended by UINT32_MAX */
	struct var {
		const char *name;
		uint32_t order;         /* the first declaration wins */
		uint8_t own;            /* each thread has its own */
	} *vars;                /* sorted by name */
	uint32_t nvars;
};

/* Past this many instructions the post-dominator sets (n^2 bits) are not
 * worth their memory: a kernel that long has no uniform registers. */
#define MAX_INSNS 4096

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int64_t find(const struct tr_uniform *u, const char *name)
{
	const char **p = u->n ? bsearch(&name, u->names, u->n, sizeof(*u->names), cmp_str) : NULL;

	return p ? p - u->names : -1;
}

/* Which of u's names instruction i of f writes, for every i. */
static void index_dests(const struct tr_uniform *u, struct flow *f)
{
	const char *d[TR_MAX_DESTS];
	uint32_t i, k, nd, n = 0;

	f->first = xcalloc(f->g.n + 1, sizeof(*f->first));
	f->dest = xcalloc((size_t)f->g.n * TR_MAX_DESTS + 1, sizeof(*f->dest));
	for (i = 0; i < f->g.n; i++) {
		f->first[i] = n;
		/* tr_written found them all, so nd <= TR_MAX_DESTS */
		nd = tr_dests(f->g.ins[i], d, TR_MAX_DESTS);
		for (k = 0; k < nd; k++)
			f->dest[n++] = (uint32_t)find(u, d[k]);
	}
	f->first[f->g.n] = n;
}

static void flow_free(struct flow *f)
{
	uint32_t i;

	for (i = 0; f->meet && i < f->g.n; i++)
		free(f->meet[i]);
	free(f->meet);
	free(f->first);
	free(f->dest);
	free(f->vars);
	tr_flow_free(&f->g);
	free(f->pdom);
}

static uint64_t *pdom_of(const struct flow *f, uint32_t i)
{
	return f->pdom + (size_t)i * f->words;
}

static int has(const uint64_t *set, uint32_t i)
{
	return set[i / 64] >> (i % 64) & 1;
}

/* The textbook iteration: an instruction's post-dominators are itself
 * and those all its successors share; the end's are the end. */
static void post_dominators(struct flow *f)
{
	uint32_t i, k, next[3];
	int changed = 1;

	f->words = (f->g.n + 1 + 63) / 64;
	f->pdom = xcalloc((size_t)(f->g.n + 1) * f->words, sizeof(*f->pdom));
	for (i = 0; i < f->g.n; i++)
		memset(pdom_of(f, i), 0xff, f->words * sizeof(*f->pdom));
	pdom_of(f, f->g.n)[f->g.n / 64] = 1ull << (f->g.n % 64);
	while (changed) {
		changed = 0;
		for (i = f->g.n; i-- > 0;) {
			uint64_t *d = pdom_of(f, i), w;
			uint32_t j, ns = 0;

			if (f->g.next[i] != UINT32_MAX)
				next[ns++] = f->g.next[i];
			if (f->g.jump[i] != UINT32_MAX)
				next[ns++] = f->g.jump[i];
			if (f->g.ends[i])
				next[ns++] = f->g.n;
			for (j = 0; j < f->words; j++) {
				w = ~0ull;
				for (k = 0; k < ns; k++)
					w &= pdom_of(f, next[k])[j];
				if (j == i / 64)
					w |= 1ull << (i % 64);
				changed |= w != d[j];
				d[j] = w;
			}
		}
	}
}

/* The nearest instruction after i on every path from it to the end: where
 * lanes that a branch at i split meet again for sure (f->g.n: the end, or
 * none). */
static uint32_t join_of(const struct flow *f, uint32_t i)
{
	const uint64_t *d = pdom_of(f, i);
	uint32_t p, j, count = 0, cp;

	for (j = 0; j < f->words; j++)
		count += (uint32_t)__builtin_popcountll(d[j]);
	for (p = 0; p < f->g.n; p++) {
		if (p == i || !has(d, p))
			continue;
		for (j = cp = 0; j < f->words; j++)
			cp += (uint32_t)__builtin_popcountll(pdom_of(f, p)[j]);
		if (cp == count - 1)
			return p;
	}
	return f->g.n;
}

/* seen[i] = 1 for every instruction reachable from from (itself too)
 * on paths that do not pass stop; seen is cleared first unless keep. */
static void reach(const struct flow *f, uint32_t from, uint32_t stop, int keep, uint8_t *seen,
		  uint32_t *stack)
{
	uint32_t n = 0;

	if (!keep)
		memset(seen, 0, f->g.n + 1);
	if (from >= f->g.n || from == stop || seen[from])
		return;
	stack[n++] = from;
	seen[from] = 1;
	while (n) {
		uint32_t i = stack[--n], next[2], k;

		next[0] = f->g.next[i];
		next[1] = f->g.jump[i];
		for (k = 0; k < 2; k++)
			if (next[k] < f->g.n && next[k] != stop && !seen[next[k]]) {
				seen[next[k]] = 1;
				stack[n++] = next[k];
			}
	}
}

/* Special registers a block's threads all read alike. */
static int uniform_sreg(const char *name)
{
	static const char *const names[] = {
		"%ntid", "%ctaid", "%nctaid", "%clusterid", "%nclusterid", "%cluster_ctaid",
		"%cluster_nctaid", "%cluster_ctarank", "%cluster_nctarank",
		"%is_explicit_cluster", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
		"%dynamic_smem_size", "%total_smem_size", "WARP_SZ", "%envreg1", "%envreg2",
	};

	return tr_in_list(names, sizeof(names) / sizeof(names[0]), name);
}

static int cmp_var(const void *a, const void *b)
{
	const struct var *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->order > y->order) - (x->order < y->order);
}

/* The variables declared in fn's body and the module, the body's first:
 * whether each thread has its own of each (its address differs between
 * lanes), or it is a register that is never written (its value is each
 * lane's leftover). */
static void find_vars(struct flow *f, const struct ptx_module *m, const struct ptx_func *fn)
{
	uint32_t i, j, n = 0;

	f->vars = xcalloc(fn->nbody + m->nvars + 1, sizeof(*f->vars));
	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_var *v = &fn->body[i].u.decl;

		if (fn->body[i].kind == PTX_STMT_DECL && v->name)
			f->vars[n++] = (struct var){ v->name, i, v->space == PTX_SPACE_LOCAL ||
				v->space == PTX_SPACE_PARAM || v->space == PTX_SPACE_REG };
	}
	for (i = 0; i < m->nvars; i++)
		if (m->vars[i].name)
			f->vars[n++] = (struct var){ m->vars[i].name, fn->nbody + i,
				m->vars[i].space == PTX_SPACE_LOCAL };
	if (n)
		qsort(f->vars, n, sizeof(*f->vars), cmp_var);
	for (i = j = 0; i < n; i++)
		if (!j || strcmp(f->vars[j - 1].name, f->vars[i].name))
			f->vars[j++] = f->vars[i];
	f->nvars = j;
}

static int cmp_var_name(const void *a, const void *b)
{
	return strcmp(((const struct var *)a)->name, ((const struct var *)b)->name);
}

static int own_variable(const struct flow *f, const char *name)
{
	struct var key = { name, 0, 0 };
	const struct var *v = f->nvars ?
		bsearch(&key, f->vars, f->nvars, sizeof(*f->vars), cmp_var_name) : NULL;

	return v && v->own;
}

/* Whether operand o may differ between lanes. */
static int divergent_operand(const struct tr_uniform *u, const struct flow *f,
			     const struct ptx_operand *o)
{
	uint32_t i;
	int64_t k;

	for (i = 0; i < o->nelems; i++)
		if (divergent_operand(u, f, &o->elems[i]))
			return 1;
	if (!o->name || (o->kind != PTX_OP_REG && o->kind != PTX_OP_SYM && o->kind != PTX_OP_ADDR))
		return 0;
	if ((k = find(u, o->name)) >= 0)
		return u->div[k];
	if (o->name[0] == '%')          /* never written, or per lane */
		return !uniform_sreg(o->name);
	return own_variable(f, o->name);
}

/* ld.param of one of the kernel's own parameters. */
static int loads_param(const struct ptx_func *fn, const struct ptx_insn *in)
{
	const struct ptx_operand *a = in->nops == 2 ? &in->ops[1] : NULL;
	uint32_t i;

	if (strcmp(in->opcode, "ld") || !tr_has(in, ".param") || !a || a->kind != PTX_OP_ADDR ||
	    a->base_is_reg || !a->name)
		return 0;
	for (i = 0; i < fn->nparams; i++)
		if (fn->params[i].name && !strcmp(fn->params[i].name, a->name))
			return 1;
	return 0;
}

/* Instructions whose lanes agree when their operands do. */
static int lane_pure(const struct ptx_func *fn, const struct ptx_insn *in)
{
	static const char *const ops[] = {
		"add", "sub", "mul", "mad", "mul24", "mad24", "shl", "shr", "and", "or", "xor",
		"not", "neg", "abs", "min", "max", "cvt", "cvta", "mov", "selp", "setp", "set",
		"slct", "div", "rem", "fma", "bfe", "bfi", "bmsk", "popc", "clz", "brev", "prmt", "sad",
		"copysign", "rcp", "sqrt", "rsqrt",
	};

	return tr_in_list(ops, sizeof(ops) / sizeof(ops[0]), in->opcode) || loads_param(fn, in);
}

/* Flags in set every written register operand o names. */
static void mark_names(const struct tr_uniform *u, const struct ptx_operand *o, uint8_t *set)
{
	uint32_t i;
	int64_t k;

	if (o->name && (k = find(u, o->name)) >= 0)
		set[k] = 1;
	for (i = 0; i < o->nelems; i++)
		mark_names(u, &o->elems[i], set);
	if (o->pair)
		mark_names(u, o->pair, set);
}

/* Flags in set every written register instruction in names. */
static void mark_reads(const struct tr_uniform *u, const struct ptx_insn *in, uint8_t *set)
{
	struct ptx_operand g = { .kind = PTX_OP_REG, .name = in->guard };
	uint32_t i;

	mark_names(u, &g, set);
	for (i = 0; i < in->nops; i++)
		mark_names(u, &in->ops[i], set);
}

/* One pass over the writes; whether it marked a register divergent. */
static int spread_writes(struct tr_uniform *u, const struct ptx_func *fn, const struct flow *f)
{
	uint32_t i, j, k;
	int changed = 0;

	for (i = 0; i < f->g.n; i++) {
		const struct ptx_insn *in = f->g.ins[i];
		struct ptx_operand g = { .kind = PTX_OP_REG, .name = in->guard };
		int div;

		if (f->first[i] == f->first[i + 1])
			continue;
		div = !lane_pure(fn, in);
		for (j = 1; !div && j < in->nops; j++)
			div = divergent_operand(u, f, &in->ops[j]);
		if (!div && in->guard)
			div = divergent_operand(u, f, &g);
		for (k = f->first[i]; div && k < f->first[i + 1]; k++)
			if (!u->div[f->dest[k]])
				changed = u->div[f->dest[k]] = 1;
	}
	return changed;
}

/* The names written on the way from either target of branch i to where
 * they meet for sure, and read anywhere both lead: what may differ
 * between the two lane groups when they meet. */
static uint32_t *meet_of(const struct tr_uniform *u, const struct flow *f, uint32_t i)
{
	uint8_t *a = xcalloc(f->g.n + 1, 1), *b = xcalloc(f->g.n + 1, 1), *in_region = xcalloc(f->g.n + 1, 1);
	uint8_t *wr = xcalloc(u->n + 1, 1), *rd = xcalloc(u->n + 1, 1);
	uint32_t *stack = xcalloc(f->g.n + 1, sizeof(*stack)), *r, j, k, n = 0;
	uint32_t join = join_of(f, i);

	reach(f, f->g.jump[i], UINT32_MAX, 0, a, stack);
	reach(f, i + 1, UINT32_MAX, 0, b, stack);
	reach(f, f->g.jump[i], join, 0, in_region, stack);
	reach(f, i + 1, join, 1, in_region, stack);
	for (j = 0; j < f->g.n; j++) {
		if (a[j] && b[j])
			mark_reads(u, f->g.ins[j], rd);
		for (k = f->first[j]; in_region[j] && k < f->first[j + 1]; k++)
			wr[f->dest[k]] = 1;
	}
	r = xcalloc(u->n + 1, sizeof(*r));
	for (k = 0; k < u->n; k++)
		if (wr[k] && rd[k])
			r[n++] = k;
	r[n] = UINT32_MAX;
	free(a);
	free(b);
	free(in_region);
	free(wr);
	free(rd);
	free(stack);
	return r;
}

/* One pass over the branches on divergent predicates; whether it marked
 * a register divergent. */
static int spread_branches(struct tr_uniform *u, struct flow *f)
{
	uint32_t i;
	const uint32_t *r;
	int changed = 0;

	for (i = 0; i < f->g.n; i++) {
		struct ptx_operand g = { .kind = PTX_OP_REG, .name = f->g.ins[i]->guard };

		if (f->g.jump[i] == UINT32_MAX || !g.name || !divergent_operand(u, f, &g))
			continue;
		if (!f->meet[i])
			f->meet[i] = meet_of(u, f, i);
		for (r = f->meet[i]; *r != UINT32_MAX; r++)
			if (!u->div[*r])
				changed = u->div[*r] = 1;
	}
	return changed;
}

/* Whether instruction i of f can run again: it is on a cycle. */
static int on_cycle(const struct flow *f, uint32_t i, uint8_t *seen, uint32_t *stack)
{
	reach(f, f->g.next[i], UINT32_MAX, 0, seen, stack);
	reach(f, f->g.jump[i], UINT32_MAX, 1, seen, stack);
	return seen[i];
}

/* The registers one instruction on no cycle writes: a thread writes them
 * once at most, and after that they keep their value to the end. */
static void find_once(struct tr_uniform *u, const struct flow *f)
{
	uint32_t *writes = xcalloc(u->n + 1, sizeof(*writes)), *def = xcalloc(u->n + 1, sizeof(*def));
	uint32_t *stack = xcalloc(f->g.n + 1, sizeof(*stack)), i, k;
	uint8_t *seen = xcalloc(f->g.n + 1, 1);

	for (i = 0; i < f->g.n; i++)
		for (k = f->first[i]; k < f->first[i + 1]; k++) {
			writes[f->dest[k]]++;
			def[f->dest[k]] = i;
		}
	u->once = xcalloc(u->n + 1, 1);
	for (k = 0; k < u->n; k++)
		u->once[k] = writes[k] == 1 && !on_cycle(f, def[k], seen, stack);
	free(writes);
	free(def);
	free(stack);
	free(seen);
}

struct tr_uniform *tr_uniform_scan(const struct ptx_module *m, const struct ptx_func *fn)
{
	struct tr_uniform *u;
	struct flow f;

	if (!fn->is_entry || tr_redeclared(fn))
		return NULL;
	memset(&f, 0, sizeof(f));
	if (tr_flow_build(fn, &f.g))
		return NULL;
	u = xcalloc(1, sizeof(*u));
	if (f.g.n > MAX_INSNS || tr_written(fn, &u->names, &u->n)) {
		flow_free(&f);
		tr_uniform_free(u);
		return NULL;
	}
	post_dominators(&f);
	index_dests(u, &f);
	find_vars(&f, m, fn);
	f.meet = xcalloc(f.g.n + 1, sizeof(*f.meet));
	u->div = xcalloc(u->n + 1, 1);
	find_once(u, &f);
	while (spread_writes(u, fn, &f) | spread_branches(u, &f))
		;
	flow_free(&f);
	return u;
}

int tr_uniform_reg(const struct tr_uniform *u, const char *reg)
{
	int64_t k = u && reg ? find(u, reg) : -1;

	return k >= 0 && !u->div[k];
}

int tr_uniform_once(const struct tr_uniform *u, const char *reg)
{
	int64_t k = u && reg ? find(u, reg) : -1;

	return k >= 0 && u->once[k];
}

void tr_uniform_free(struct tr_uniform *u)
{
	if (u) {
		free(u->names);
		free(u->div);
		free(u->once);
	}
	free(u);
}
