/*
 * remat.c - the registers a barrier of the fast path recomputes instead of
 * keeping.
 *
 * At a barrier a thread of the fast path stores its live registers into
 * the block's columns and returns; the next round loads them back
 * (translate_fast.c).  Most of what nvcc keeps across a barrier is the
 * thread's coordinates: %tid.x, blockIdx.y * 32, a parameter converted to
 * a global address.  Loaded from a column they are, to the C compiler,
 * any value: the range test of an affine index (affine.c) that it would
 * take out of a row's loop becomes a test per thread, and the row is no
 * vector code.  Recomputed, they are what they were before the barrier,
 * functions of the loop's variable and of values every thread shares.
 *
 * A register qualifies when its one write in the kernel (consts.c) is
 * unguarded, of a kind that computes its result from its operands alone
 * (integer and float arithmetic, moves, conversions, comparisons, a load
 * of a kernel parameter), and every operand is an immediate, a symbol's
 * address, %tid, %ntid, %ctaid, %nctaid or a register that qualified
 * earlier in the text.  Such a register holds the same value wherever a
 * read of it is defined, so running the code of every such write again,
 * in text order, gives each its value back (a read before its write is
 * undefined in PTX).  The code is the write's own, copied as it was
 * emitted, a base of affine.c included.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

struct tr_remat {
	const char **v;         /* the registers, sorted */
	uint32_t n, cap;
	struct strbuf code;     /* their writes, in text order */
};

static const char *const pure_ops[] = {
	"mov", "add", "sub", "mul", "mad", "shl", "shr", "cvt", "cvta", "and", "or",
	"xor", "not", "neg", "min", "max", "setp", "selp",
};

static const char *const launch_sregs[] = { "%tid", "%ntid", "%ctaid", "%nctaid" };

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int tr_remat_has(const struct tr_remat *r, const char *reg)
{
	return r && r->n && reg && bsearch(&reg, r->v, r->n, sizeof(*r->v), cmp_name);
}

static int is_param(const struct ptx_func *fn, const char *name)
{
	uint32_t i;

	for (i = 0; i < fn->nparams; i++)
		if (!strcmp(fn->params[i].name, name))
			return 1;
	return 0;
}

/* The scan: the function, its one writes, and per statement of the body
 * whether it is one of the writes found so far. */
struct scan {
	const struct ptx_func *fn;
	const struct tr_consts *c;
	uint8_t *pure;
};

/* Whether source operand o is the same every time the thread reads it. */
static int pure_source(const struct scan *sc, const struct ptx_operand *o)
{
	const struct ptx_insn *def;

	switch (o->kind) {
	case PTX_OP_IMM:
	case PTX_OP_FIMM:
	case PTX_OP_SYM:
		return 1;
	case PTX_OP_ADDR:
		return o->name && is_param(sc->fn, o->name);
	case PTX_OP_REG:
		if (o->component)
			return tr_in_list(launch_sregs, sizeof(launch_sregs) / sizeof(launch_sregs[0]),
					  o->name);
		def = tr_one_def(sc->c, o->name);
		return def && sc->pure[tr_stmt_of(sc->fn, def)];
	default:
		return 0;
	}
}

static int qualifies(const struct scan *sc, const struct ptx_insn *in)
{
	const struct ptx_operand *d = in->nops ? &in->ops[0] : NULL;
	int load = !strcmp(in->opcode, "ld") && tr_has(in, ".param");
	uint32_t i;

	if (!d || in->guard || in->nops < 2 || d->kind != PTX_OP_REG || d->component || d->pair ||
	    tr_one_def(sc->c, d->name) != in)
		return 0;
	if (!load && !tr_in_list(pure_ops, sizeof(pure_ops) / sizeof(pure_ops[0]), in->opcode))
		return 0;
	for (i = 1; i < in->nops; i++)
		if (!pure_source(sc, &in->ops[i]))
			return 0;
	return 1;
}

struct tr_remat *tr_remat_scan(const struct ptx_func *fn, const struct tr_consts *c)
{
	struct scan sc = { fn, c, NULL };
	struct tr_remat *r;
	uint32_t i;

	if (!c || !fn->nbody)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	sc.pure = xcalloc(fn->nbody, 1);
	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);

		if (!in || !qualifies(&sc, in))
			continue;
		sc.pure[i] = 1;
		if (r->n == r->cap) {
			r->cap = r->cap ? 2 * r->cap : 32;
			r->v = xrealloc(r->v, r->cap * sizeof(*r->v));
		}
		r->v[r->n++] = in->ops[0].name;
	}
	free(sc.pure);
	if (!r->n) {
		tr_remat_free(r);
		return NULL;
	}
	qsort(r->v, r->n, sizeof(*r->v), cmp_name);
	return r;
}

void tr_remat_note(struct tr *t, const struct ptx_insn *in, size_t at)
{
	const struct ptx_operand *d = in->nops ? &in->ops[0] : NULL;

	if (!t->remat || !d || d->kind != PTX_OP_REG || d->component ||
	    !tr_remat_has(t->remat, d->name) || tr_one_def(t->consts, d->name) != in)
		return;
	sb_add(&t->remat->code, t->code.buf + at, t->code.len - at);
}

const char *tr_remat_code(const struct tr_remat *r)
{
	return r && r->code.buf ? r->code.buf : "";
}

void tr_remat_free(struct tr_remat *r)
{
	if (r) {
		free(r->v);
		sb_free(&r->code);
	}
	free(r);
}
