/*
 * consts.c - registers that only ever hold one constant.  nvcc puts the
 * constant operands of many instructions into registers: the offset, clamp
 * and member mask of every shfl.sync ("mov.u32 %r42, 1; shfl.sync.up.b32
 * %r44|%p5, %r15, %r42, %r41, %r43"), the zero a selp picks.  In lockstep
 * each such register is a row of 32 equal values that the C compiler
 * cannot see through, so a shuffle by a known distance is computed lane by
 * lane as if the distance were any; the shared array's address that a
 * shared-memory histogram adds to every bin's offset is a row the C
 * compiler loads again for every add.  A register whose one and only write
 * in its function is an unguarded mov of an immediate (or of a variable's
 * address) holds that value
 * wherever a read of it is defined (a read before the write is undefined
 * in PTX), so its reads can be the immediate itself (tr_src).
 *
 * Writes are the registers tr_dests finds (an instruction's first operand:
 * vectors, "%r|%p" pairs and a call's results included).  The table keeps
 * the one write of every register written once, which remat.c asks for
 * too (tr_one_def).  Where a register has several writes, tr_const_at
 * follows the flow graph to the writes that reach one read.  A function
 * with a register name declared twice in nested scopes has no constants:
 * one name would stand for two variables.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

struct tr_consts {
	struct tr_const {
		const char *name;
		const struct ptx_insn *def;     /* its one write; NULL: more */
	} *v;
	uint32_t n, cap;
};

static int cmp_const(const void *a, const void *b)
{
	return strcmp(((const struct tr_const *)a)->name, ((const struct tr_const *)b)->name);
}

static void note_write(struct tr_consts *c, const char *name, const struct ptx_insn *in)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 64;
		c->v = xrealloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n].name = name;
	c->v[c->n++].def = in;
}

/* The type of mov in, its one modifier, or PTX_T_NONE. */
static enum ptx_type mov_type(const struct ptx_insn *in)
{
	return in->nmods == 1 ? ptx_type_from_mod(in->mods[0]) : PTX_T_NONE;
}

/* Whether in sets one plain register to an immediate or a symbol's
 * address (which symbols' addresses are constants the reader decides:
 * translate_operand.c takes shared and global variables'), when its guard
 * lets it. */
static int moves_constant(const struct ptx_insn *in)
{
	const struct ptx_operand *d = &in->ops[0], *s = &in->ops[1];

	return !strcmp(in->opcode, "mov") && in->nops == 2 &&
		d->kind == PTX_OP_REG && !d->component && !d->pair &&
		(s->kind == PTX_OP_IMM || s->kind == PTX_OP_FIMM || s->kind == PTX_OP_SYM) &&
		mov_type(in) != PTX_T_NONE && mov_type(in) != PTX_T_PRED;
}

/* ... always. */
static int sets_constant(const struct ptx_insn *in)
{
	return !in->guard && moves_constant(in);
}

struct tr_consts *tr_consts_scan(const struct ptx_func *fn)
{
	return tr_consts_scan_to(fn, fn->nbody);
}

struct tr_consts *tr_consts_scan_to(const struct ptx_func *fn, uint32_t end)
{
	struct tr_consts *c;
	uint32_t i, j;

	if (tr_redeclared(fn))
		return NULL;
	c = xcalloc(1, sizeof(*c));
	for (i = 0; i < end && i < fn->nbody; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);
		const char *d[TR_MAX_DESTS];
		uint32_t k, nd = tr_dests(in, d, TR_MAX_DESTS);

		if (nd > TR_MAX_DESTS) {
			tr_consts_free(c);
			return NULL;
		}
		for (k = 0; k < nd; k++)
			note_write(c, d[k], in);
	}
	if (c->n)
		qsort(c->v, c->n, sizeof(*c->v), cmp_const);
	/* one entry per register: its write if it is the only one, else
	 * NULL */
	for (i = j = 0; i < c->n; i++) {
		if (j && !strcmp(c->v[j - 1].name, c->v[i].name)) {
			c->v[j - 1].def = NULL;
			continue;
		}
		c->v[j++] = c->v[i];
	}
	c->n = j;
	return c;
}

const struct ptx_insn *tr_one_def(const struct tr_consts *c, const char *reg)
{
	struct tr_const key = { reg, NULL };
	const struct tr_const *p = c && c->n && reg ?
		bsearch(&key, c->v, c->n, sizeof(*c->v), cmp_const) : NULL;

	return p ? p->def : NULL;
}

const struct ptx_insn *tr_const_def(const struct tr_consts *c, const char *reg,
				    enum ptx_type *ty)
{
	const struct ptx_insn *def = tr_one_def(c, reg);

	if (!def || !sets_constant(def))
		return NULL;
	*ty = mov_type(def);
	return def;
}

/* The integer that mov in sets when it runs: an immediate, or WARP_SZ
 * (32). */
static int mov_integer(const struct ptx_insn *in, int64_t *k)
{
	const struct ptx_operand *s = &in->ops[1];

	if (!moves_constant(in))
		return 0;
	if (s->kind == PTX_OP_SYM && !strcmp(s->name, "WARP_SZ"))
		*k = 32;
	else if (s->kind == PTX_OP_IMM)
		*k = s->i;
	else
		return 0;
	return 1;
}

/* Pushes the successors of x in f that are not yet seen. */
static void push_next(const struct tr_flow *f, uint32_t x, uint8_t *seen, uint32_t *stack,
		      uint32_t *top)
{
	uint32_t k, y;

	for (k = 0; k < 2; k++) {
		y = k ? f->jump[x] : f->next[x];
		if (y < f->n && !seen[y]) {
			seen[y] = 1;
			stack[(*top)++] = y;
		}
	}
}

/* Whether instruction i can be reached from the successors of from (the
 * body's start when from is f->n) on a path that no unguarded write of
 * reg cuts before i; seen and stack are scratch of f->n + 1 entries. */
static int reaches(const struct tr_flow *f, uint32_t from, uint32_t i, const char *reg,
		   uint8_t *seen, uint32_t *stack)
{
	uint32_t top = 0, x;

	memset(seen, 0, f->n + 1);
	if (from == f->n) {
		seen[0] = 1;
		stack[top++] = 0;
	} else {
		push_next(f, from, seen, stack, &top);
	}
	while (top) {
		x = stack[--top];
		if (x == i)
			return 1;
		if (f->ins[x]->guard || !tr_writes(f->ins[x], reg))
			push_next(f, x, seen, stack, &top);
	}
	return 0;
}

/*
 * The integer that reg holds where instruction i of f reads it, when
 * every write of reg that reaches i sets the same one: nvcc's `for (o =
 * warpSize / 2; o > 0; o /= 2)` starts from a register that a mov of
 * WARP_SZ writes, and the loop's halving writes it again, so it has no
 * one write (tr_const_def), yet where the loop has not begun it holds 32.
 * A guarded write counts, and so does the write before it, which it may
 * leave.  No answer when i may read it before any write.
 */
int tr_const_at(const struct tr_flow *f, uint32_t i, const char *reg, int64_t *k)
{
	uint8_t *seen = xcalloc(f->n + 1, 1);
	uint32_t *stack = xcalloc(f->n + 1, sizeof(*stack)), d;
	int found = 0, ok = !reaches(f, f->n, i, reg, seen, stack);
	int64_t v = 0;

	for (d = 0; d < f->n && ok; d++) {
		if (!tr_writes(f->ins[d], reg) || !reaches(f, d, i, reg, seen, stack))
			continue;
		ok = mov_integer(f->ins[d], &v) && (!found || v == *k);
		*k = v;
		found = 1;
	}
	free(seen);
	free(stack);
	return ok && found;
}

void tr_consts_free(struct tr_consts *c)
{
	if (c)
		free(c->v);
	free(c);
}
