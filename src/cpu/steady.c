/*
 * steady.c - which accesses of a loop that is one basic block keep their
 * form from one turn to the next, so that its fused run (vector.c) finds
 * the form on the loop's first turn and not on every turn.
 *
 * A form (ag_coalesce) says how the 32 addresses of an access differ from
 * the first of their half warp: by (l - h) * size, or not at all.  When
 * every lane of a half warp moves its address by the same amount from one
 * turn to the next (mod 2^64), the differences stay, and so does the form.
 * An address moves so when it is made, by wrapping additions,
 * subtractions, shifts and multiplications by constants, from values the
 * loop does not change and from registers the loop steps by an amount the
 * same in each half warp: a register whose value at the end of a turn is
 * its value at the start plus something made from constants, the block's
 * sizes and registers the loop does not write, those tested once, on the
 * first turn, to be the same in each half warp (tr_steady_reg writes the
 * tests; a register uniform.c finds the same in all lanes needs none).
 *
 * A 32-bit index that the loop steps, widened into an address (a
 * grid-stride loop's i in a + 4 * (int64)i), moves the same in each half
 * warp at 32 bits, but its widened value keeps its differences only while
 * no lane's index is on the other side of the wrap at 2^32 (2^31 signed)
 * from its half's first: then each widened difference is the 32-bit one
 * read as signed.  That is tested on every turn (ag_wide_same on the
 * index's row, before the widening), and on the first: a turn that fails
 * finds the form anew and ends the keeping for the loop's run.  A
 * uniform index needs no test: no lane is apart from another.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* Blocks longer than this are not looked at (the walks are quadratic);
 * values made from more registers than STEADY_REGS count as unknown. */
#define STEADY_MAX 256
#define STEADY_REGS 8
#define STEADY_WIDE 4

/*
 * What is known of a value, in one of two senses.  As a step (the
 * register's value at the end of a turn against its start): made from
 * uniform values (UNIFORM: regs the invariant registers to test) or
 * base's start value plus such (OFFSET).  As a move from one turn to the
 * next: none (STILL), the same in each half warp (MOVES: regs the stepping
 * registers it is made from), or not known (ANY).
 */
enum { ANY, UNIFORM, OFFSET, STILL, MOVES };

struct val {
	int kind;
	const char *base;
	const char *regs[STEADY_REGS];
	uint32_t nregs;
	struct {
		const char *reg;        /* a stepped 32-bit index, widened */
		int sign;               /* by sign extension */
	} wide[STEADY_WIDE];
	uint32_t nwide;
};

struct binding {
	const char *reg;
	struct val v;
};

/* A stepping register: its step is uniform when regs are. */
struct step {
	const char *reg;
	int ok;
	struct val v;
};

struct tr_steady {
	struct tr *t;
	const struct ptx_insn **ins;
	uint32_t n;
	struct step *steps;     /* every register the block writes */
	uint32_t nsteps;
};

static const struct val unknown = { .kind = ANY };

/* Special registers whose value a thread keeps for the whole launch;
 * those of a half warp's lanes are the same but for the lane's own. */
static int fixed_sreg(const char *name, int *per_lane)
{
	static const char *const same[] = { "%ntid", "%ctaid", "%nctaid", "%gridid",
					    "%nsmid", "%nwarpid" };
	static const char *const own[] = { "%tid", "%laneid", "%warpid", "%smid" };

	*per_lane = tr_in_list(own, sizeof(own) / sizeof(own[0]), name);
	return *per_lane || tr_in_list(same, sizeof(same) / sizeof(same[0]), name);
}

static struct step *find_step(const struct tr_steady *s, const char *reg)
{
	uint32_t i;

	for (i = 0; i < s->nsteps; i++)
		if (!strcmp(s->steps[i].reg, reg))
			return &s->steps[i];
	return NULL;
}

static int add_reg(struct val *v, const char *reg)
{
	uint32_t i;

	for (i = 0; i < v->nregs; i++)
		if (!strcmp(v->regs[i], reg))
			return 1;
	if (v->nregs == STEADY_REGS)
		return 0;
	v->regs[v->nregs++] = reg;
	return 1;
}

static int add_wide(struct val *v, const char *reg, int sign)
{
	uint32_t i;

	for (i = 0; i < v->nwide; i++)
		if (!strcmp(v->wide[i].reg, reg))
			return v->wide[i].sign == sign;
	if (v->nwide == STEADY_WIDE)
		return 0;
	v->wide[v->nwide].reg = reg;
	v->wide[v->nwide++].sign = sign;
	return 1;
}

/* a's registers and b's together in a (kind kept), or unknown */
static struct val merge(struct val a, const struct val *b)
{
	uint32_t i;

	for (i = 0; i < b->nregs; i++)
		if (!add_reg(&a, b->regs[i]))
			return unknown;
	for (i = 0; i < b->nwide; i++)
		if (!add_wide(&a, b->wide[i].reg, b->wide[i].sign))
			return unknown;
	return a;
}

static const struct val *bound(const struct binding *env, uint32_t n, const char *reg)
{
	uint32_t i;

	for (i = n; i-- > 0;)
		if (!strcmp(env[i].reg, reg))
			return &env[i].v;
	return NULL;
}

/* An operand's value at this point of the turn, in the sense moves says
 * (0: as a step, 1: as a move), env holding what the turn wrote so far. */
static struct val operand(const struct tr_steady *s, const struct binding *env, uint32_t n,
			  const struct ptx_operand *o, int moves)
{
	struct val v = { .kind = moves ? STILL : UNIFORM };
	const struct val *b;
	const struct step *st;
	const struct tr_sym *sym;
	int per_lane;

	if (o->kind == PTX_OP_IMM || o->kind == PTX_OP_SYM)
		return v;
	if (o->kind != PTX_OP_REG || !o->name || o->neg)
		return unknown;
	if ((b = bound(env, n, o->name)))
		return *b;
	if ((st = find_step(s, o->name))) {
		/* its value at the start of the turn */
		if (!moves) {
			v.kind = OFFSET;
			v.base = st->reg;
			return v;
		}
		if (!st->ok)
			return unknown;
		v.kind = MOVES;
		return add_reg(&v, st->reg) ? v : unknown;
	}
	sym = tr_lookup(s->t, o->name);
	if (!sym && fixed_sreg(o->name, &per_lane))
		return moves || !per_lane ? v : unknown;
	if (!sym || sym->kind != TK_REG || o->component)
		return unknown;
	/* a register the loop does not write */
	if (!moves && !add_reg(&v, o->name))
		return unknown;
	return v;
}

/* Whether in is integer arithmetic at one width that wraps: one integer
 * type and nothing else but .lo (no .wide, .sat, .cc). */
static int wraps(const struct ptx_insn *in)
{
	static const char *const types[] = { ".u16", ".u32", ".u64", ".s16", ".s32", ".s64" };
	uint32_t i, typed = 0;

	for (i = 0; i < in->nmods; i++) {
		if (tr_in_list(types, sizeof(types) / sizeof(types[0]), in->mods[i]))
			typed++;
		else if (strcmp(in->mods[i], ".lo"))
			return 0;
	}
	return typed == 1;
}

/* A kernel's parameter, the same for all its threads and turns. */
static int kernel_param(const struct tr_steady *s, const struct ptx_insn *in)
{
	return s->t->fn->is_entry && tr_has(in, ".param") && in->nops == 2 &&
	       in->ops[1].kind == PTX_OP_ADDR && !in->ops[1].base_is_reg;
}

/* The larger of two kinds of moves, with both sets of registers. */
static struct val join_moves(struct val a, const struct val *b)
{
	if (a.kind == ANY || b->kind == ANY)
		return unknown;
	a = merge(a, b);
	if (a.kind != ANY && b->kind == MOVES)
		a.kind = MOVES;
	return a;
}

/* A step's start value plus a uniform one (add or sub of ops a, b). */
static struct val offset_sum(const struct ptx_insn *in, struct val a, struct val b)
{
	if (!strcmp(in->opcode, "add") && a.kind == UNIFORM && b.kind == OFFSET)
		return merge(b, &a);
	if (a.kind == ANY || b.kind != UNIFORM)
		return unknown;
	return merge(a, &b);
}

/*
 * A widening of a 32-bit register into 64 bits that keeps the differences
 * between lanes while they do not straddle the wrap (mul.wide by a
 * constant, cvt from 32 to 64 bits): 1 for sign extension, 0 for zero
 * extension, -1 for anything else.
 */
static int widening(const struct ptx_insn *in)
{
	int mul, cvt;

	if (in->nmods != 2 || in->nops < 2 || in->ops[1].kind != PTX_OP_REG)
		return -1;
	mul = !strcmp(in->opcode, "mul") && !strcmp(in->mods[0], ".wide") && in->nops == 3 &&
	      in->ops[2].kind == PTX_OP_IMM;
	cvt = !strcmp(in->opcode, "cvt") && in->nops == 2 &&
	      (!strcmp(in->mods[0], ".s64") || !strcmp(in->mods[0], ".u64"));
	if (!mul && !cvt)
		return -1;
	return !strcmp(in->mods[1], ".s32") ? 1 : !strcmp(in->mods[1], ".u32") ? 0 : -1;
}

/* What instruction in writes, in the sense moves says. */
static struct val eval(const struct tr_steady *s, const struct binding *env, uint32_t n,
		       const struct ptx_insn *in, int moves)
{
	const char *op = in->opcode;
	struct val a, r = { .kind = moves ? STILL : UNIFORM };
	uint32_t i;
	int sign;

	if (!strcmp(op, "ld"))
		return kernel_param(s, in) ? r : unknown;
	if (!tr_arith_emitter(op) && !tr_cvt_emitter(op))
		return unknown;
	a = in->nops >= 2 ? operand(s, env, n, &in->ops[1], moves) : unknown;
	if ((!strcmp(op, "mov") || !strcmp(op, "cvta")) && in->nops == 2)
		return a;
	if ((!strcmp(op, "add") || !strcmp(op, "sub")) && in->nops == 3 && wraps(in)) {
		struct val b = operand(s, env, n, &in->ops[2], moves);

		return moves ? join_moves(a, &b) : offset_sum(in, a, b);
	}
	/* a move times a constant, at the register's own width, moves the
	 * same in each half warp */
	if (moves && (!strcmp(op, "shl") || (!strcmp(op, "mul") && wraps(in))) &&
	    in->nops == 3 && in->ops[2].kind == PTX_OP_IMM && a.kind != ANY)
		return a;
	/* a stepped index itself, as it was at the start of the turn, widened:
	 * its row is tested where the access is (tr_steady_reg) */
	if (moves && (sign = widening(in)) >= 0 && a.kind == MOVES &&
	    !bound(env, n, in->ops[1].name) && a.nregs == 1 && a.nwide == 0 &&
	    !strcmp(a.regs[0], in->ops[1].name))
		return add_wide(&a, in->ops[1].name, sign) ? a : unknown;
	/* anything else: still (uniform) when made of still (uniform) values */
	for (i = 1; i < in->nops; i++) {
		a = operand(s, env, n, &in->ops[i], moves);
		if (a.kind != r.kind || (r = merge(r, &a)).kind == ANY)
			return unknown;
	}
	return r;
}

/*
 * Walks the first n instructions of the block, binding what each writes
 * in the sense moves says; returns how many bindings env holds.  A guarded
 * instruction, or one that writes several registers, makes them unknown.
 */
static uint32_t walk(const struct tr_steady *s, uint32_t n, int moves, struct binding *env)
{
	uint32_t i, j, k = 0;

	for (i = 0; i < n; i++) {
		const struct ptx_insn *in = s->ins[i];
		const char *d[TR_MAX_DESTS];
		uint32_t nd = tr_dests(in, d, TR_MAX_DESTS);
		struct val v = unknown;

		if (nd == 1 && !in->guard && !in->ops[0].component)
			v = eval(s, env, k, in, moves);
		for (j = 0; j < nd; j++) {
			env[k].reg = d[j];
			env[k++].v = v;
		}
	}
	return k;
}

/* The instructions of the block the branch closes, when it goes back to
 * the block's own start: a loop of one block. */
struct tr_steady *tr_steady_scan(struct tr *t, const struct ptx_insn *const *ins,
				 uint32_t n)
{
	const struct ptx_insn *last = n ? ins[n - 1] : NULL;
	struct tr_steady *s;
	struct binding *env;
	uint32_t i, j, k;

	if (!last || n > STEADY_MAX || strcmp(last->opcode, "bra") || last->nops != 1 ||
	    last->ops[0].kind != PTX_OP_SYM || tr_label_bb(t, last->ops[0].name) != t->bb)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *d[TR_MAX_DESTS];

		if (tr_dests(ins[i], d, TR_MAX_DESTS) > TR_MAX_DESTS)
			return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->t = t;
	s->ins = xcalloc(n, sizeof(*s->ins));
	memcpy(s->ins, ins, n * sizeof(*ins));
	s->n = n;
	s->steps = xcalloc(n * TR_MAX_DESTS + 1, sizeof(*s->steps));
	for (i = 0; i < n; i++) {
		const char *d[TR_MAX_DESTS];
		uint32_t nd = tr_dests(ins[i], d, TR_MAX_DESTS);

		for (j = 0; j < nd; j++)
			if (!find_step(s, d[j]))
				s->steps[s->nsteps++].reg = d[j];
	}
	/* each register's value at the end of the turn, from its start */
	env = xcalloc(n * TR_MAX_DESTS + 1, sizeof(*env));
	k = walk(s, n, 0, env);
	for (i = 0; i < s->nsteps; i++) {
		const struct val *v = bound(env, k, s->steps[i].reg);

		s->steps[i].ok = v && v->kind == OFFSET && !strcmp(v->base, s->steps[i].reg);
		if (s->steps[i].ok)
			s->steps[i].v = *v;
	}
	free(env);
	return s;
}

/* The row of register reg's 32 lanes into row: "W->r3[5]" of "W->r3[5][l]". */
static int reg_row(const struct tr_steady *s, const char *reg, struct strbuf *row)
{
	sb_reset(row);
	if (tr_reg_lvalue(s->t, reg, row) || row->len <= 3 ||
	    strcmp(row->buf + row->len - 3, "[l]"))
		return 0;
	row->buf[row->len - 3] = 0;
	return 1;
}

/*
 * Whether register reg, as instruction at sees it, moves by the same
 * amount in each half warp from one turn to the next; then the C tests of
 * the registers that assumes to be the same in each half warp are added
 * to tests, and those of the widened indices, for every turn, to turn
 * (" && " before each).
 */
int tr_steady_reg(const struct tr_steady *s, const struct ptx_insn *at, const char *reg,
		  struct strbuf *tests, struct strbuf *turn)
{
	struct binding *env;
	struct ptx_operand o = { .kind = PTX_OP_REG, .name = reg };
	struct val v, need = { .kind = UNIFORM };
	struct strbuf row = STRBUF_INIT, own = STRBUF_INIT, wide = STRBUF_INIT;
	uint32_t i, j, n, k;
	int ok;

	for (n = 0; s && n < s->n && s->ins[n] != at; n++)
		;
	if (!s || n == s->n || !reg)
		return 0;
	env = xcalloc(n * TR_MAX_DESTS + 1, sizeof(*env));
	k = walk(s, n, 1, env);
	v = operand(s, env, k, &o, 1);
	ok = v.kind == STILL || v.kind == MOVES;
	/* a widened index is tested here: it must hold what was widened */
	for (i = 0; i < v.nwide && ok; i++) {
		ok = !bound(env, k, v.wide[i].reg) && reg_row(s, v.wide[i].reg, &row);
		if (ok && !tr_uniform_reg(s->t->uniform, v.wide[i].reg))
			sb_addf(&wide, " && ag_wide_same(%s, %d)", row.buf, v.wide[i].sign);
	}
	free(env);
	for (i = 0; ok && v.kind == MOVES && i < v.nregs; i++) {
		const struct step *st = find_step(s, v.regs[i]);

		for (j = 0; j < st->v.nregs && ok; j++)
			ok = add_reg(&need, st->v.regs[j]);
	}
	for (i = 0; ok && i < need.nregs; i++) {
		ok = reg_row(s, need.regs[i], &row);
		if (ok && !tr_uniform_reg(s->t->uniform, need.regs[i]))
			sb_addf(&own, " && ag_halves_same(%s, sizeof(%s[0]))", row.buf, row.buf);
	}
	if (ok && own.len)
		sb_add(tests, own.buf, own.len);
	if (ok && wide.len)
		sb_add(turn, wide.buf, wide.len);
	sb_free(&row);
	sb_free(&own);
	sb_free(&wide);
	return ok;
}

void tr_steady_free(struct tr_steady *s)
{
	if (!s)
		return;
	free(s->ins);
	free(s->steps);
	free(s);
}
