/*
 * ends.c - guards that every lane of a call passes, known from two lanes.
 *
 * A group call (group.c) runs an instruction behind a varying guard per
 * lane, under its guard: the tiled SGEMM loads its tiles behind bounds
 * tests, `row < n && t + tx < n ? a[row * n + t + tx] : 0`, and GCC makes
 * of that a masked load and a blend where a plain one would be a vector
 * load.  Yet in nearly every call the test holds in every lane.  A
 * comparison that orders a linear value (lane l's is v + c * l, shape.c)
 * against a uniform one, or against another linear one, changes at most
 * once across the lanes while no linear value wraps: it holds in all of
 * them when it holds in the first and in the last.  An or, and, not or
 * mov of predicates holds as its operands do.  So where a guard is made
 * that way from values the block had when its loop over the parts began,
 * a test made once before that loop says whether it lets every lane of
 * every part run, and group.c writes the loop over the lanes twice, once
 * without the guard (tiled SGEMM, one thread: 8.6 -> 7.9 ms).
 */
#include <inttypes.h>
#include <string.h>

#include "cpu/translate_int.h"

/* How deep a guard's making is followed back. */
#define ENDS_DEPTH 6

struct ends {
	struct tr *t;
	uint32_t from;          /* the statement whose values the test reads */
};

/* The last instruction of statements [e->from, to) that writes reg, or
 * NULL; *at its statement. */
static const struct ptx_insn *last_write(const struct ends *e, uint32_t to, const char *reg,
					 uint32_t *at)
{
	uint32_t i;

	for (i = to; i-- > e->from;) {
		const struct ptx_insn *in = tr_insn_at(e->t->fn, i);

		if (in && tr_writes(in, reg)) {
			*at = i;
			return in;
		}
	}
	return NULL;
}

/* Whether operand o of the instruction at statement at reads what it
 * held at e->from, and is the same in every lane of a part or linear:
 * its shape (TR_SHAPE_U for an immediate), or 0. */
static int entry_shape(const struct ends *e, uint32_t at, const struct ptx_operand *o)
{
	const struct tr_sym *s;
	uint32_t w;
	int k;

	if (o->kind == PTX_OP_IMM)
		return TR_SHAPE_U;
	if (o->kind != PTX_OP_REG || o->component || !(s = tr_lookup(e->t, o->name)) ||
	    s->kind != TK_REG || last_write(e, at, o->name, &w))
		return 0;
	k = tr_shape_reg(e->t->shape, o->name, NULL);
	return k == TR_SHAPE_U || k == TR_SHAPE_L ? k : 0;
}

/* Appends to sb a test that the comparison of setp in (at statement at)
 * is v in every lane: at lane 0, and where an operand is linear, at the
 * last lane with no linear operand wrapping between. */
static int compared(const struct ends *e, const struct ptx_insn *in, uint32_t at, int v,
		    struct strbuf *sb)
{
	struct strbuf cmp = STRBUF_INIT, wrap = STRBUF_INIT;
	int order = tr_setp_order(e->t, in, &cmp), rc = -1;
	uint32_t i;

	for (i = 1; i < 3 && order >= 0 && cmp.len; i++) {
		int k = entry_shape(e, at, &in->ops[i]);
		int64_t c;

		if (!k || (k == TR_SHAPE_L && !order))
			goto out;
		if (k != TR_SHAPE_L)
			continue;
		tr_shape_reg(e->t->shape, in->ops[i].name, &c);
		sb_addf(&wrap, " & ag_%cx_ok(", order == 1 ? 's' : 'z');
		tr_reg_lvalue(e->t, in->ops[i].name, &wrap);
		sb_addf(&wrap, ", INT64_C(%" PRId64 "), AG_G)", c);
	}
	if (order < 0 || !cmp.len)
		goto out;
	if (!wrap.len)
		sb_addf(sb, "(!!%s == %d)", cmp.buf, v);
	else
		sb_addf(sb, "(AG_AT_LANE(0, %s) == %d & AG_AT_LANE(AG_G - 1, %s) == %d%s)",
			cmp.buf, v, cmp.buf, v, wrap.buf);
	rc = 0;
out:
	sb_free(&cmp);
	sb_free(&wrap);
	return rc;
}

static int holds(const struct ends *e, uint32_t to, const char *reg, int v, int depth,
		 struct strbuf *sb);

/* or and and of predicates: both operands must hold a value, or either
 * may (an or that must be 1, an and that must be 0). */
static int both_or_either(const struct ends *e, const struct ptx_insn *in, uint32_t at, int v,
			  int depth, struct strbuf *sb)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int either = (strcmp(in->opcode, "or") == 0) == v, ra, rb, rc = -1;

	if (in->nops != 3 || in->ops[1].kind != PTX_OP_REG || in->ops[2].kind != PTX_OP_REG)
		return -1;
	ra = holds(e, at, in->ops[1].name, v ^ in->ops[1].neg, depth, &a);
	rb = holds(e, at, in->ops[2].name, v ^ in->ops[2].neg, depth, &b);
	if (!ra && !rb) {
		sb_addf(sb, "(%s %s %s)", a.buf, either ? "|" : "&", b.buf);
		rc = 0;
	} else if (either && (!ra || !rb)) {
		sb_adds(sb, !ra ? a.buf : b.buf);
		rc = 0;
	}
	sb_free(&a);
	sb_free(&b);
	return rc;
}

/*
 * Appends to sb a test that predicate reg, as the instruction at
 * statement to reads it, is v in every lane of a part; -1 when there is
 * none to make.  A register that the statements from e->from on do not
 * write must be uniform; one they write must be written last, unguarded,
 * by a setp that compares, or an or, and, not or mov of predicates.
 */
static int holds(const struct ends *e, uint32_t to, const char *reg, int v, int depth,
		 struct strbuf *sb)
{
	const struct ptx_insn *in;
	uint32_t at;

	if (depth > ENDS_DEPTH)
		return -1;
	if (!(in = last_write(e, to, reg, &at))) {
		if (tr_shape_reg(e->t->shape, reg, NULL) != TR_SHAPE_U)
			return -1;
		sb_adds(sb, "(!!");
		tr_reg_lvalue(e->t, reg, sb);
		sb_addf(sb, " == %d)", v);
		return 0;
	}
	if (in->guard || in->nops < 2)
		return -1;
	if (!strcmp(in->opcode, "setp")) {
		if (in->ops[0].pair && !strcmp(in->ops[0].pair->name, reg))
			v = !v;
		return compared(e, in, at, v, sb);
	}
	if (!tr_has(in, ".pred") || in->ops[1].kind != PTX_OP_REG)
		return -1;
	if (!strcmp(in->opcode, "not") || !strcmp(in->opcode, "mov"))
		return holds(e, at, in->ops[1].name, v ^ (in->opcode[0] == 'n') ^ in->ops[1].neg,
			     depth + 1, sb);
	if (!strcmp(in->opcode, "or") || !strcmp(in->opcode, "and"))
		return both_or_either(e, in, at, v, depth + 1, sb);
	return -1;
}

int tr_ends_test(struct tr *t, const struct ptx_insn *in, uint32_t from, struct strbuf *test)
{
	const struct ends e = { t, from };

	return in->guard && !holds(&e, tr_stmt_of(t->fn, in), in->guard, !in->guard_neg, 0, test);
}
