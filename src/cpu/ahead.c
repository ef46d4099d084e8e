/*
 * ahead.c - the phases a group call runs ahead of its barrier.
 *
 * A block function of group calls (group.c) runs its calls in rounds, each
 * call up to its next barrier.  In a block scan, after the first barrier
 * only warp 0 scans the warps' totals; the other seven branch straight to
 * the second barrier, yet each is called, takes its mask and registers
 * back from its slot, tests its warp index and puts them back: a call of
 * the round in three that does nothing.  Where the code after barrier k up
 * to barrier k + 1 is, on some path, nothing but arithmetic on registers
 * (no memory, no shuffle: nothing another call could see or change), a
 * call arriving at barrier k can tell at once whether it takes that path.
 * It runs the path's instructions there and arrives at barrier k + 1
 * instead, flagged AG_AT_AHEAD; the block function passes it over in the
 * next round, as if it had been called and gone straight to the barrier.
 * The rounds stay in step, so every other call sees what it would have
 * (the bench scan, two threads: 9.62 -> 9.04 ms, medians of eight
 * processes in turn).
 *
 * The path is the code after the barrier, arithmetic up to a branch on a
 * uniform predicate (the prefix), then the arithmetic at the branch's
 * target up to the next barrier (the tail); or arithmetic alone up to the
 * next barrier (a tail without prefix).  A path may also end the thread
 * (ret or exit) where it would reach the next barrier: the call then ends
 * at barrier k, as the warps of a block reduction that only warp 0
 * finishes do (2^22 floats in blocks of 256, two threads: 2.84-2.96 ->
 * 2.57-2.74 ms).  Run at barrier k, the prefix must
 * leave the registers that barrier keeps as they were, for a call that
 * does not go ahead runs it again after the barrier: none of its
 * instructions may write a register live after barrier k.  The code is the
 * instructions' own, copied as group.c wrote it (as remat.c copies): marks
 * in the code say where the prefix begins and ends and where barrier k + 1
 * keeps its registers, and tr_ahead_splice puts the copy at barrier k.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

struct path {
	int ok;                         /* barrier k has one */
	int ends;                       /* it ends the call instead (ret, exit) */
	const struct ptx_insn *bra;     /* the prefix's branch; NULL: no prefix */
	uint32_t tail;                  /* the block it goes to */
	char *branch;                   /* it as C that sets ag_go (group.c) */
};

struct tr_ahead {
	uint32_t n;             /* barriers */
	struct path *p;         /* p[k]: after barrier k, 1 <= k <= n */
};

/* Whether in computes its registers from registers alone. */
static int pure(const struct ptx_insn *in)
{
	return tr_arith_emitter(in->opcode) || tr_cvt_emitter(in->opcode);
}

/* Whether in writes a register live after barrier k. */
static int writes_kept(struct tr *t, const struct ptx_insn *in, uint32_t k)
{
	const char *d[TR_MAX_DESTS];
	uint32_t j, nd = tr_dests(in, d, TR_MAX_DESTS);

	if (!tr_liveness(t) || nd > TR_MAX_DESTS)
		return 1;
	for (j = 0; j < nd; j++)
		if (tr_live_after(tr_liveness(t), k, d[j]))
			return 1;
	return 0;
}

/* The first statement from i on that is neither a label nor a pure
 * instruction (with k, nor one that writes a register live after barrier
 * k): an instruction, or NULL for anything else and for the end. */
static const struct ptx_insn *walk(struct tr *t, uint32_t i, uint32_t k, uint32_t *at)
{
	const struct ptx_func *fn = t->fn;

	for (; i < fn->nbody; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);

		if (fn->body[i].kind == PTX_STMT_LABEL)
			continue;
		if (!in || !pure(in) || (k && writes_kept(t, in, k)))
			break;
	}
	*at = i;
	return i < fn->nbody ? tr_insn_at(fn, i) : NULL;
}

/* The statement of label name, or UINT32_MAX. */
static uint32_t label_at(const struct ptx_func *fn, const char *name)
{
	uint32_t i;

	for (i = 0; i < fn->nbody; i++)
		if (fn->body[i].kind == PTX_STMT_LABEL && !strcmp(fn->body[i].u.label, name))
			return i;
	return UINT32_MAX;
}

/* Whether a statement in [from, to) is a barrier. */
static int barrier_in(const struct ptx_func *fn, uint32_t from, uint32_t to)
{
	for (; from < to; from++) {
		const struct ptx_insn *in = tr_insn_at(fn, from);

		if (in && tr_is_barrier(in))
			return 1;
	}
	return 0;
}

/* Whether in, unguarded, is where a path ends: the next barrier, or
 * (*ends) the thread's end. */
static int path_end(const struct ptx_insn *in, int *ends)
{
	if (!in || in->guard)
		return 0;
	*ends = !strcmp(in->opcode, "ret") || !strcmp(in->opcode, "exit");
	return *ends || tr_is_barrier(in);
}

/* The path after barrier k, at statement bar, if it has one. */
static void find_path(struct tr *t, uint32_t k, uint32_t bar, struct path *p)
{
	const struct ptx_func *fn = t->fn;
	const struct ptx_insn *in;
	uint32_t j, s, e;

	if (path_end(walk(t, bar + 1, 0, &j), &p->ends)) {
		p->ok = 1;      /* arithmetic alone up to barrier k + 1 or the end */
		return;
	}
	in = walk(t, bar + 1, k, &j);
	if (!in || strcmp(in->opcode, "bra") || !in->guard || in->nops != 1 ||
	    in->ops[0].kind != PTX_OP_SYM)
		return;
	s = label_at(fn, in->ops[0].name);
	if (s == UINT32_MAX || s < j || barrier_in(fn, j, s))
		return;
	if (!path_end(walk(t, s + 1, 0, &e), &p->ends))
		return;
	p->tail = tr_label_bb(t, in->ops[0].name);
	p->bra = in;
	p->ok = p->tail != UINT32_MAX;
}

struct tr_ahead *tr_ahead_scan(struct tr *t)
{
	struct tr_ahead *a = xcalloc(1, sizeof(*a));
	const struct ptx_insn *in;
	uint32_t i, k = 0;

	for (i = 0; i < t->fn->nbody; i++)
		a->n += (in = tr_insn_at(t->fn, i)) && tr_is_barrier(in);
	a->p = xcalloc(a->n + 1, sizeof(*a->p));
	for (i = 0; i < t->fn->nbody; i++)
		if ((in = tr_insn_at(t->fn, i)) && tr_is_barrier(in)) {
			k++;
			find_path(t, k, i, &a->p[k]);
		}
	return a;
}

void tr_ahead_free(struct tr_ahead *a)
{
	uint32_t k;

	if (!a)
		return;
	for (k = 0; k <= a->n; k++)
		free(a->p[k].branch);
	free(a->p);
	free(a);
}

/* The marks in the code (save, resumed and branch: of barrier k;
 * arrive: after barrier k's *at). */
static void mark_save(uint32_t k, struct strbuf *sb)
{
	sb_addf(sb, "\t\t/* ahead of barrier %u */\n", k);
}

static void mark_resumed(uint32_t k, struct strbuf *sb)
{
	sb_addf(sb, "\t\t/* resumed after barrier %u */\n", k);
}

static void mark_branch(uint32_t k, struct strbuf *sb)
{
	sb_addf(sb, "\t\t/* the branch ahead of barrier %u */\n", k);
}

static void mark_arrive(uint32_t k, struct strbuf *sb)
{
	sb_addf(sb, "ag_A%u:;\n", k);
}

void tr_ahead_save(const struct tr_ahead *a, uint32_t k, struct strbuf *code)
{
	if (k <= a->n && a->p[k].ok)
		mark_save(k, code);
}

void tr_ahead_arrive(const struct tr_ahead *a, uint32_t k, struct strbuf *code)
{
	if (k >= 2 && k - 1 <= a->n && a->p[k - 1].ok && !a->p[k - 1].ends)
		mark_arrive(k, code);
}

void tr_ahead_resumed(const struct tr_ahead *a, uint32_t k, struct strbuf *code)
{
	if (k <= a->n && a->p[k].ok)
		mark_resumed(k, code);
}

uint32_t tr_ahead_of(const struct tr_ahead *a, const struct ptx_insn *bra)
{
	uint32_t k;

	for (k = 1; k <= a->n; k++)
		if (a->p[k].ok && a->p[k].bra == bra)
			return k;
	return 0;
}

void tr_ahead_branch(struct tr_ahead *a, uint32_t k, const char *branch, struct strbuf *code)
{
	free(a->p[k].branch);
	a->p[k].branch = xstrdup(branch);
	mark_branch(k, code);
}

/* The lines of text between mark from (found at or after at) and mark to
 * after it, labels left out, appended to out; the place of mark to, or
 * NULL when a mark is missing or the text leaves its place (returns,
 * jumps, or says where the call waits). */
static const char *span(const char *at, const char *from, const char *to, struct strbuf *out)
{
	const char *a = strstr(at, from), *b = a ? strstr(a + strlen(from), to) : NULL;
	const char *line, *end;
	size_t len = out->len;

	if (!b)
		return NULL;
	for (line = a + strlen(from); line < b; line = end) {
		end = memchr(line, '\n', (size_t)(b - line));
		end = end ? end + 1 : b;
		if (strncmp(line, "ag_L", 4))
			sb_add(out, line, (size_t)(end - line));
	}
	if (out->len > len && (strstr(out->buf + len, "return") || strstr(out->buf + len, "goto") ||
			       strstr(out->buf + len, "*at")))
		return NULL;
	return b;
}

/* The code that runs barrier k's path at the barrier, into with; 0 when
 * the marks or the path's code do not allow it. */
static int ahead_code(const struct path *p, uint32_t k, const char *code, struct strbuf *with)
{
	struct strbuf resumed = STRBUF_INIT, branch = STRBUF_INIT, arrive = STRBUF_INIT;
	struct strbuf label = STRBUF_INIT, prefix = STRBUF_INIT, tail = STRBUF_INIT;
	const char *at;
	int ok;

	mark_resumed(k, &resumed);
	mark_branch(k, &branch);
	sb_addf(&arrive, "\t\t*at = %u;\n", k + 1);
	mark_arrive(k + 1, &arrive);
	sb_addf(&label, "ag_L%u:;\n", p->tail);
	if (p->bra) {
		at = span(code, resumed.buf, branch.buf, &prefix);
		ok = at && p->branch && (p->ends || span(at, label.buf, arrive.buf, &tail));
	} else {
		ok = p->ends || span(code, resumed.buf, arrive.buf, &tail);
	}
	if (ok && p->bra)
		sb_addf(with, "\t\t{\n\t\tint ag_go = 0;\n%s%s\t\tif (ag_go) {\n",
			prefix.buf ? prefix.buf : "", p->branch);
	else if (ok)
		sb_adds(with, "\t\t{\n");
	/* a call that ends has nothing left to keep: *at stays ~0u */
	if (ok && p->ends)
		sb_addf(with, "\t\treturn 1;\n\t\t}\n%s", p->bra ? "\t\t}\n" : "");
	else if (ok)
		sb_addf(with, "%s\t\t*at = %uu | AG_AT_AHEAD;\n\t\tgoto ag_A%u;\n\t\t}\n%s",
			tail.buf ? tail.buf : "", k + 1, k + 1, p->bra ? "\t\t}\n" : "");
	sb_free(&resumed);
	sb_free(&branch);
	sb_free(&arrive);
	sb_free(&label);
	sb_free(&prefix);
	sb_free(&tail);
	return ok;
}

void tr_ahead_splice(const struct tr_ahead *a, struct strbuf *code)
{
	uint32_t k;

	for (k = 1; code->buf && k <= a->n; k++) {
		struct strbuf save = STRBUF_INIT, with = STRBUF_INIT, arrive = STRBUF_INIT;

		if (!a->p[k].ok)
			continue;
		mark_save(k, &save);
		if (!ahead_code(&a->p[k], k, code->buf, &with) && !a->p[k].ends) {
			mark_arrive(k + 1, &arrive);
			sb_replace(code, 0, arrive.buf, "", 0);
		}
		sb_replace(code, 0, save.buf, with.buf ? with.buf : "", 0);
		sb_free(&save);
		sb_free(&with);
		sb_free(&arrive);
	}
}
