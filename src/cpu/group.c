/*
 * group.c - the group translation of a kernel: sixteen neighbouring
 * threads of a row (AG_G) run together, a lane per thread, as code the C
 * compiler turns into vector instructions.  It is for the kernels whose
 * threads loop (over global memory without barriers, a k loop; over
 * arithmetic between barriers, a tile's products), which one thread at a
 * time would run scalar and lockstep runs through its warp frames and
 * run-time access forms.  shape.c says which kernels have one (uniform
 * control flow) and what each register is across the group.
 *
 * The group function ag_gN is the fast path's scalar translation with
 * other registers (translate_operand.c asks tr_group_reg): a uniform
 * register is one C local, a linear one the local of lane 0's value (lane
 * l reads it plus c * l), a varying one an array of a value per lane, or
 * a scalar of the loop over the lanes when it lives only there.  An
 * instruction that writes only uniform or linear registers runs once; the
 * rest run per lane, and consecutive ones share one loop over the lanes
 * (tr_group_begin): the varying values of a basic block flow from one
 * instruction to the next in vector registers.  Instructions that run once
 * and that no lane of the open loop depends on go before it.  A varying
 * register is written whole, the lanes outside the mask or guard keeping
 * their value: a masked store into a stack array stalls the load after it
 * (naive SGEMM's sum, 24 ms against 13, one thread).
 *
 * The lanes of the mask m are the group's threads that have not left:
 * those past the row's end never ran, a branch to ret or exit on a
 * varying predicate takes the lanes it sends there out, and the group ends
 * when none is left.  A widening of a linear 32-bit value whose lanes
 * cross the wrap (shape.c) makes ag_gN return 0 before any store, and the
 * block function runs the group's threads (with barriers: the block) one
 * at a time instead.  At a barrier the group keeps its mask and the
 * registers live after it in its slot G and returns; the block function
 * runs the groups in rounds, and the next one resumes it there.
 *
 * A call runs two groups, parts 0 and 1 (tr_shape_parts): each register
 * is a C local per part (r3_17p0, r3_17p1), and each instruction's code
 * is written out once for each, with "@P" in it the part's number
 * (each_part), so that the two parts' chains of dependent instructions
 * run side by side in one loop over the lanes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

struct tr_group {
	int open;               /* a loop over the lanes is open */
	size_t head;            /* where it starts in t->code */
	int effects;            /* it stores or runs atomics */
	const struct ptx_insn **ins;    /* its instructions */
	uint32_t nins, capins;
	struct tr_names fresh;  /* registers whose first mention in it is an
				 * unguarded write that does not read them */
	struct tr_names stale;  /* and the others it mentions */
	size_t body;            /* where its body starts in t->code */
	struct strbuf after;    /* instructions that run once, after it */
	struct tr_names after_use;      /* the registers they mention */
	struct tr_names after_def;      /* and write */
	int lanes;              /* the instruction being emitted runs per lane */
	const char *tmp[TR_MAX_DESTS];  /* its varying destinations (ag_oK) */
	uint32_t ntmp;
	int copies;             /* its registers are read through the copies */
	int widens;             /* it tests the wrap */
	int alone;              /* the open loop's last instruction needs a
				 * loop of its own (one_address) */
	int masked;             /* and last_wins made it a mask and a store */
	int hoist;              /* the instruction being emitted goes before
				 * the open loop, in a loop of its own */
	int parts_open;         /* a loop over the parts is open (open_parts) */
	size_t at;              /* where its code starts in t->code */
	struct strbuf kept;     /* the fields of struct ag_gsN: what barriers keep */
	struct tr_names kept_names;
	struct tr_names slotted;        /* varying registers that live in G */
	struct tr_names fetched;        /* addresses the open loop prefetches */
	struct tr_names counted;        /* mentions_in's names */
	struct tr_names partvals;       /* parts' values the open loop reads
					 * (tr_group_part) */
	struct tr_names partregs;       /* and their PTX registers ("" for
					 * none) */
	uint32_t parts_from;    /* the statement that opened the loop over
				 * the parts */
	size_t parts_head;      /* where that loop starts in t->code */
	struct tr_names tests;  /* the tests before it of guards that every
				 * lane passes (ends.c), "@P" for the part */
	struct tr_names oks;    /* and their variables (ag_okK) */
	struct tr_names loop_oks;       /* those the open loop reads */
	/* the loop over the parts woven (weave): how many loops over the lanes
	 * it holds, whether the one closed may be woven, where in t->code its
	 * instructions that run once end, its loop's body starts and ends and
	 * the loop ends, its locals, their C types and the parts' values it
	 * reads */
	uint32_t nloops;
	int weavable;
	size_t pre_end, loop_body, body_end, loop_end;
	struct tr_names wlocals, wtypes, wvals, wregs;
	uint32_t last_stmt;     /* past the last statement begun */
	struct tr_ahead *ahead; /* the paths its barriers run ahead (ahead.c) */
};

/* Forgets what weave knows of the loop over the lanes closed last. */
static void forget_loop(struct tr_group *g)
{
	tr_names_clear(&g->wlocals);
	tr_names_clear(&g->wtypes);
	tr_names_clear(&g->wvals);
	tr_names_clear(&g->wregs);
}

/* Forgets the loops over the lanes that weave might have woven. */
static void woven_reset(struct tr_group *g)
{
	forget_loop(g);
	g->nloops = 0;
	g->weavable = 0;
}

static struct tr_group *grp(struct tr *t)
{
	if (!t->grp)
		t->grp = xcalloc(1, sizeof(*t->grp));
	return t->grp;
}

/* The paths the function's barriers run ahead, found on first use. */
static struct tr_ahead *ahead(struct tr *t)
{
	struct tr_group *g = grp(t);

	if (!g->ahead)
		g->ahead = tr_ahead_scan(t);
	return g->ahead;
}

void tr_group_free(struct tr *t)
{
	if (t->grp) {
		free(t->grp->ins);
		free(t->grp->fresh.v);
		free(t->grp->stale.v);
		free(t->grp->after_use.v);
		free(t->grp->after_def.v);
		tr_names_free(&t->grp->kept_names);
		tr_names_free(&t->grp->slotted);
		free(t->grp->fetched.v);
		free(t->grp->counted.v);
		tr_names_free(&t->grp->partvals);
		tr_names_free(&t->grp->partregs);
		tr_names_free(&t->grp->tests);
		tr_names_free(&t->grp->oks);
		free(t->grp->loop_oks.v);
		tr_names_free(&t->grp->wlocals);
		tr_names_free(&t->grp->wtypes);
		tr_names_free(&t->grp->wvals);
		tr_names_free(&t->grp->wregs);
		sb_free(&t->grp->after);
		sb_free(&t->grp->kept);
		tr_ahead_free(t->grp->ahead);
	}
	free(t->grp);
	t->grp = NULL;
}

/* Whether in mentions a register of s (dests: only those it writes). */
static int touches(const struct tr_names *s, const struct ptx_insn *in, int dests)
{
	struct tr_names m = { 0 };
	const char *d[TR_MAX_DESTS];
	uint32_t i, nd;
	int hit = 0;

	if (dests) {
		nd = tr_dests(in, d, TR_MAX_DESTS);
		for (i = 0; i < nd && i < TR_MAX_DESTS && !hit; i++)
			hit = tr_names_has(s, d[i]);
		return hit;
	}
	tr_insn_regs(in, &m);
	for (i = 0; i < m.n && !hit; i++)
		hit = tr_names_has(s, m.v[i]);
	free(m.v);
	return hit;
}

/* The C type of a register's values in the group translation: in a call
 * that runs a warp, a predicate is a 32-bit word, so that the loops that
 * compare and select stay vectors of 16 words, where rows of bytes made
 * GCC do each loop's words four at a time in 16-byte vectors (the scan,
 * one thread, 38 -> 32.5 ms). */
static const char *row_ctype(const struct tr *t, enum ptx_type ty)
{
	return ty == PTX_T_PRED && (tr_shape_warp(t->shape) || tr_shape_looped(t->shape)) ?
		"uint32_t" : tr_ctype(ty);
}

static int varies(const struct tr *t, const char *reg)
{
	return reg && tr_shape_reg(t->shape, reg, NULL) == TR_SHAPE_V;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* How many of the function's instructions mention register reg: each
 * mentions every name of its own once in g->counted, sorted on the
 * first question. */
static uint32_t mentions_in(struct tr *t, const char *reg)
{
	struct tr_group *g = grp(t);
	const char **lo, **hi;
	uint32_t i, j;

	if (!g->counted.n) {
		for (i = 0; i < t->fn->nbody; i++) {
			struct tr_names m = { 0 };

			if (!tr_insn_at(t->fn, i))
				continue;
			tr_insn_regs(tr_insn_at(t->fn, i), &m);
			if (m.n)
				qsort(m.v, m.n, sizeof(*m.v), cmp_name);
			for (j = 0; j < m.n; j++)
				if (!j || strcmp(m.v[j - 1], m.v[j]))
					tr_names_add(&g->counted, m.v[j]);
			free(m.v);
		}
		if (g->counted.n)
			qsort(g->counted.v, g->counted.n, sizeof(*g->counted.v), cmp_name);
	}
	lo = bsearch(&reg, g->counted.v, g->counted.n, sizeof(*g->counted.v), cmp_name);
	if (!lo)
		return 0;
	for (hi = lo; hi + 1 < g->counted.v + g->counted.n && !strcmp(hi[1], reg); hi++)
		;
	while (lo > g->counted.v && !strcmp(lo[-1], reg))
		lo--;
	return (uint32_t)(hi - lo + 1);
}

/* How many C locals a register has: one per part written out, one for
 * all the parts looped over (local_part names them). */
static uint32_t local_count(const struct tr *t)
{
	return tr_shape_looped(t->shape) ? 1 : tr_shape_parts(t->shape);
}

/* The C local of part h (of local_count) of the register whose C name is
 * cname: r3_17p1; looped over, r3_17p, an array of the parts' values. */
static void local_part(const struct tr *t, const char *cname, uint32_t h, struct strbuf *sb)
{
	if (tr_shape_looped(t->shape))
		sb_addf(sb, "%sp", cname);
	else
		sb_addf(sb, "%sp%u", cname, h);
}

/*
 * The varying registers that live only inside the loop being closed
 * (every instruction of the function that mentions one is in it, and
 * the first writes it unguarded without reading it) become scalars of the
 * loop's body, r3_17p0_s for r3_17p0[l]: GCC keeps them in vector
 * registers, where as rows of a stack array their stores and loads, many
 * of them behind masks, kept two parts' chains from running side by side
 * (naive SGEMM, one thread, 22 ms against 12.6).
 */
static void localize(struct tr *t)
{
	struct tr_group *g = grp(t);
	struct strbuf decl = STRBUF_INIT;
	uint32_t i, k, h;

	for (i = 0; i < g->fresh.n; i++) {
		const char *reg = g->fresh.v[i];
		const struct tr_sym *s = tr_lookup(t, reg);
		uint32_t n = 0;

		for (k = 0; k < g->nins; k++)
			n += tr_mentions(g->ins[k], reg, 0);
		if (!s || s->kind != TK_REG || !s->local || !varies(t, reg) ||
		    n != mentions_in(t, reg))
			continue;
		for (h = 0; h < local_count(t); h++) {
			struct strbuf c = STRBUF_INIT, row = STRBUF_INIT, one = STRBUF_INIT;

			tr_local_name(s, tr_reg_index(s, reg), &c);
			local_part(t, c.buf, h, &row);
			sb_addf(&one, "%s_s", row.buf);
			sb_adds(&row, tr_shape_looped(t->shape) ? "[h][l]" : "[l]");
			sb_replace(&t->code, g->body, row.buf, one.buf, 0);
			sb_free(&c);
			sb_addf(&decl, "\t\t%s %s = 0;\n", row_ctype(t, s->type), one.buf);
			tr_names_add(&g->wlocals, xstrdup(one.buf));
			tr_names_add(&g->wtypes, xstrdup(row_ctype(t, s->type)));
			sb_free(&row);
			sb_free(&one);
		}
	}
	if (decl.len) {
		struct strbuf rest = STRBUF_INIT;

		sb_add(&rest, t->code.buf + g->body, t->code.len - g->body);
		sb_truncate(&t->code, g->body);
		sb_add(&t->code, decl.buf, decl.len);
		sb_add(&t->code, rest.buf, rest.len);
		sb_free(&rest);
	}
	sb_free(&decl);
}

/* Whether loops over the lanes get a form for calls whose lanes all run
 * (full_form): not in kernels with barriers, where the tiled SGEMM ran
 * 15-16 -> 20-24 ms with it, one thread (with its parts looped over,
 * 10.5 -> 12; with the form only for loops that guard nothing, within the
 * noise), but in calls that run a warp, whose guarded loads and stores it
 * lets run whole (guard_free). */
static int full_forms(const struct tr *t)
{
	return !(t->fi[t->fidx].flags & AG_KF_BARRIER) || tr_shape_warp(t->shape);
}

/* The C name of part h's row of register reg ("r0_3p1"). */
void tr_group_row(const struct tr *t, const char *reg, uint32_t h, struct strbuf *sb)
{
	const struct tr_sym *s = tr_lookup(t, reg);

	tr_local_name(s, tr_reg_index(s, reg), sb);
	sb_addf(sb, "p%u", h);
}

/* Whether an instruction of the open loop writes register reg. */
static int written_in_loop(const struct tr_group *g, const char *reg)
{
	const char *d[TR_MAX_DESTS];
	uint32_t i, k, nd;

	for (k = 0; k < g->nins; k++) {
		nd = tr_dests(g->ins[k], d, TR_MAX_DESTS);
		for (i = 0; i < nd && i < TR_MAX_DESTS; i++)
			if (!strcmp(d[i], reg))
				return 1;
	}
	return 0;
}

/*
 * In a call that runs a warp, the loop's full form also takes the varying
 * guards that the loop reads but does not write (tr_group_begin ends a
 * loop before a guard it writes) as constants, when each holds the same
 * in every lane of the call: the value that lets the first instruction
 * guarded by it run.  A block scan's loads and stores behind bounds tests
 * are then plain strided accesses, which GCC makes vector code of, where
 * behind a guard it made none (one thread: 66 -> 46 ms).  What the form
 * asks goes to cond, after the loop over the lanes in pre that finds
 * whether any guard that must be 0 is not (ag_any) and all that must be 1
 * are (ag_all); each lane's guard ("r0_3p1[l]") goes to rows, with the
 * constant that replaces it in the form (consts: "1u", "0u").
 */
static void guard_free(struct tr *t, struct strbuf *pre, struct strbuf *cond,
		       struct tr_names *rows, struct tr_names *consts)
{
	struct tr_group *g = grp(t);
	struct tr_names done = { 0 };
	struct strbuf any = STRBUF_INIT, all = STRBUF_INIT;
	uint32_t k, h;

	for (k = 0; k < g->nins && tr_shape_warp(t->shape); k++) {
		const struct ptx_insn *in = g->ins[k];
		const struct tr_sym *p = in->guard ? tr_lookup(t, in->guard) : NULL;
		int v = !in->guard_neg;

		/* a guard that names no predicate register fails its instruction */
		if (!p || p->kind != TK_REG || p->type != PTX_T_PRED || !varies(t, in->guard) ||
		    tr_names_has(&done, in->guard) || written_in_loop(g, in->guard))
			continue;
		tr_names_add(&done, in->guard);
		for (h = 0; h < tr_shape_parts(t->shape); h++) {
			struct strbuf row = STRBUF_INIT;

			tr_group_row(t, in->guard, h, &row);
			sb_adds(&row, "[l]");
			sb_addf(v ? &all : &any, " %s %s", (v ? all.len : any.len) ? (v ? "&" : "|") : "",
				row.buf);
			tr_names_add(rows, sb_detach(&row));
			tr_names_add(consts, v ? "1u" : "0u");
		}
	}
	free(done.v);
	if (!any.len && !all.len)
		return;
	sb_adds(pre, "\t\tag_any = 0;\n\t\tag_all = 1;\n"
		"\t\tfor (size_t l = 0; l < AG_G; l++) {\n");
	if (any.len)
		sb_addf(pre, "\t\t\tag_any |=%s;\n", any.buf);
	if (all.len)
		sb_addf(pre, "\t\t\tag_all &=%s;\n", all.buf);
	sb_adds(pre, "\t\t}\n");
	sb_adds(cond, " && !ag_any && ag_all");
	sb_free(&any);
	sb_free(&all);
}

#define LOOP_HEAD "#pragma GCC ivdep\n" NO_UNROLL \
	"\t\tfor (size_t l = 0; l < AG_G; l++) {\n"

/*
 * The C name of part @P's value of the C local name ("r3_17p", "ag_tid0p"):
 * "r3_17p@P".  Read in the open loop over the lanes of a call whose parts
 * are looped over, it is instead a local of the loop over the parts,
 * r3_17p_h = r3_17p[h], declared before the loop over the lanes
 * (part_locals): read as elements of the arrays, a shared-memory address
 * of the tiled SGEMM's products was none GCC made vector code of (68
 * against 20 ms, one thread).  Nothing in a loop over the lanes writes a
 * part's value.  Its PTX register reg (NULL for a special register's
 * local) is kept with it: weave asks whether it holds the same in every
 * part (tr_shape_same).
 */
void tr_group_part(const struct tr *t, const char *name, const char *reg, int write,
		   struct strbuf *sb)
{
	struct tr_group *g = t->grp;

	if (write || !tr_shape_looped(t->shape) || !g || !g->open || !g->lanes) {
		sb_addf(sb, "%s@P", name);
		return;
	}
	sb_addf(sb, "%s_h", name);
	if (!tr_names_has(&g->partvals, name)) {
		tr_names_add(&g->partvals, xstrdup(name));
		tr_names_add(&g->partregs, xstrdup(reg ? reg : ""));
	}
}

/* The locals of the parts' values that the loop over the lanes just
 * closed reads (tr_group_part), before it. */
static void part_locals(struct tr *t)
{
	struct tr_group *g = grp(t);
	struct strbuf decl = STRBUF_INIT, rest = STRBUF_INIT;
	uint32_t i;

	for (i = 0; i < g->partvals.n; i++) {
		const char *v = g->partvals.v[i];

		sb_addf(&decl, "\t\tconst __typeof__(%s[0]) %s_h = %s[h];\n", v, v, v);
		tr_names_add(&g->wvals, v);
		tr_names_add(&g->wregs, g->partregs.v[i]);
	}
	g->partvals.n = 0;
	g->partregs.n = 0;
	if (decl.len) {
		sb_add(&rest, t->code.buf + g->head, t->code.len - g->head);
		sb_truncate(&t->code, g->head);
		sb_add(&t->code, decl.buf, decl.len);
		sb_add(&t->code, rest.buf, rest.len);
		g->body += decl.len;
	}
	sb_free(&decl);
	sb_free(&rest);
}

/* The loop just closed twice: for calls whose every lane of every part
 * runs (full, found again wherever the masks change, which is never
 * inside a loop), without the masks: GCC then loads and stores whole
 * vectors, gathers where lanes are strided, and blends nothing (naive
 * SGEMM 13.2 -> 9.8 ms, one thread). */
static void full_form(struct tr *t)
{
	struct tr_group *g = grp(t);
	size_t at = g->head, n = t->code.len - at;
	char *loop = xmalloc(n + 1);
	struct strbuf pre = STRBUF_INIT, cond = STRBUF_INIT;
	struct tr_names rows = { 0 }, consts = { 0 };
	uint32_t h;

	memcpy(loop, t->code.buf + at, n);
	loop[n] = 0;
	sb_truncate(&t->code, at);
	guard_free(t, &pre, &cond, &rows, &consts);
	for (h = 0; h < g->loop_oks.n; h++) {
		struct strbuf ok = STRBUF_INIT;

		sb_addf(&cond, " && %s", g->loop_oks.v[h]);
		sb_addf(&ok, "(%s |", g->loop_oks.v[h]);
		tr_names_add(&rows, sb_detach(&ok));
		tr_names_add(&consts, "(1u |");
	}
	if (pre.len)
		sb_add(&t->code, pre.buf, pre.len);
	sb_addf(&t->code, "\t\tif (full%s) {\n", cond.buf ? cond.buf : "");
	at = t->code.len;
	sb_add(&t->code, loop, n);
	for (h = 0; h < tr_shape_parts(t->shape); h++) {
		char mask[32];

		snprintf(mask, sizeof(mask), "m[%u][l]", h);
		sb_replace(&t->code, at, mask, "1u", 0);
	}
	if (tr_shape_looped(t->shape))
		sb_replace(&t->code, at, "m[h][l]", "1u", 0);
	for (h = 0; h < rows.n; h++)
		sb_replace(&t->code, at, rows.v[h], consts.v[h], 0);
	sb_free(&pre);
	sb_free(&cond);
	sb_adds(&t->code, "\t\t} else {\n");
	at = t->code.len;
	sb_add(&t->code, loop, n);
	/* the guards that every lane passes, the last rows (the loop's guard
	 * in them when the test failed) */
	for (h = rows.n - g->loop_oks.n; h < rows.n; h++)
		sb_replace(&t->code, at, rows.v[h], "(0u |", 0);
	for (h = 0; h < rows.n; h++)
		free((char *)rows.v[h]);
	free(rows.v);
	free(consts.v);
	sb_adds(&t->code, "\t\t}\n");
	free(loop);
}

/* Closes the open loop over the lanes; what was to run after it follows. */
static void close_lanes(struct tr *t)
{
	struct tr_group *g = grp(t);
	size_t pre_end = g->head, hn = strlen(LOOP_HEAD);

	if (!g->open)
		return;
	forget_loop(g);
	localize(t);
	if (tr_shape_looped(t->shape))
		part_locals(t);
	g->weavable = tr_shape_looped(t->shape) && g->parts_open && !g->nloops++ &&
		!g->effects && !g->after.len && !full_forms(t) && !g->loop_oks.n &&
		g->body >= hn && !memcmp(t->code.buf + g->body - hn, LOOP_HEAD, hn);
	g->pre_end = pre_end;
	g->loop_body = g->body;
	g->body_end = t->code.len;
	sb_adds(&t->code, "\t\t}\n");
	/* last_wins' mask is as cheap as a form without masks, which would
	 * need the guards' summary first */
	if ((full_forms(t) && !g->masked) || g->loop_oks.n)
		full_form(t);
	g->loop_oks.n = 0;
	if (g->after.len)
		sb_add(&t->code, g->after.buf, g->after.len);
	sb_reset(&g->after);
	g->loop_end = t->code.len;
	g->open = 0;
	g->alone = 0;
	g->masked = 0;
	g->fetched.n = 0;
	g->effects = 0;
	g->after_use.n = g->after_def.n = 0;
	g->fresh.n = g->stale.n = 0;
	g->nins = 0;
}

static void put_tests(struct tr *t);
static void weave(struct tr *t, size_t end);

/* Closes the open loop over the lanes and, in a call whose parts are
 * looped over, the loop over the parts (open_parts): at the end of a
 * basic block and before its branch, barrier or exit. */
void tr_group_close(struct tr *t)
{
	struct tr_group *g = grp(t);

	close_lanes(t);
	if (g->parts_open) {
		size_t end = t->code.len;

		sb_adds(&t->code, "\t\t}\n");
		weave(t, end);
		put_tests(t);
	}
	woven_reset(g);
	g->parts_open = 0;
}

/* The first lines of a loop over the parts. */
static void parts_loop_head(const struct tr *t, struct strbuf *sb)
{
	sb_addf(sb, "\t\tfor (size_t h = 0; h < %u; h++) {\n\t\tif (!on[h])\n\t\t\tcontinue;\n",
		tr_shape_parts(t->shape));
}

/*
 * In a call whose parts are looped over, the instructions of a basic
 * block up to its branch, barrier or exit run in one loop over the parts,
 * each part's from the first to the last before the next part's (the
 * parts' groups are as separate as the groups of a round, to which a
 * barrier gives the same order).  What runs once for a part stays in C
 * locals of the loop's body, and the chains of dependent instructions of
 * a loop over the lanes of one part run beside the next part's as far as
 * the core looks ahead: the tiled SGEMM's products, one chain of sixteen
 * per tile and part, took 14.5 ms with a call per part, 10.5-11.5 with
 * eight parts a call (one thread).  Such a block whose loop stores
 * nothing also gets a woven form, its parts side by side (weave).
 */
static void open_parts(struct tr *t, const struct ptx_insn *in)
{
	struct tr_group *g = grp(t);

	if (!tr_shape_looped(t->shape) || g->parts_open)
		return;
	g->parts_from = tr_stmt_of(t->fn, in);
	g->parts_head = t->code.len;
	woven_reset(g);
	parts_loop_head(t, &t->code);
	g->parts_open = 1;
}

/* Whether in writes memory or orders what other threads see of it. */
static int has_effect(const struct ptx_insn *in)
{
	return tr_writes_memory(in) || !strcmp(in->opcode, "membar") || !strcmp(in->opcode, "fence");
}

/* Notes the registers that instruction in, joining the open loop, is
 * the first of it to mention: fresh when it writes them unguarded
 * without reading them. */
static void note_first(struct tr_group *g, const struct ptx_insn *in)
{
	const char *d[TR_MAX_DESTS];
	struct tr_names m = { 0 };
	uint32_t i, j, nd = tr_dests(in, d, TR_MAX_DESTS);

	tr_insn_regs(in, &m);
	for (i = 0; i < m.n; i++) {
		int fresh = !in->guard && !tr_mentions(in, m.v[i], 1);

		if (tr_names_has(&g->fresh, m.v[i]) || tr_names_has(&g->stale, m.v[i]))
			continue;
		for (j = 0, fresh &= nd <= TR_MAX_DESTS; fresh && j < nd; j++)
			if (!strcmp(d[j], m.v[i]))
				break;
		tr_names_add(fresh && j < nd ? &g->fresh : &g->stale, m.v[i]);
	}
	free(m.v);
}

/* A store or atomic whose lanes all address one place, in a call that
 * runs a warp: a loop of its own (a block scan's total, stored by its
 * thread 0), which would keep GCC from making vector code of the others. */
static int one_address(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *a = &in->ops[in->opcode[0] == 's' ? 0 : 1];

	return tr_writes_memory(in) && in->nops > 1 && a->kind == PTX_OP_ADDR &&
		(!a->name || !a->base_is_reg ||
		 tr_shape_reg(t->shape, a->name, NULL) == TR_SHAPE_U);
}

/* Whether the open loop ends before instruction in, in a call that runs a
 * warp: when in's guard varies and the loop writes it (guard_free), or in
 * (alone) or the loop's last instruction stores to one address. */
static int split_before(struct tr *t, const struct ptx_insn *in, int alone)
{
	struct tr_group *g = grp(t);

	return alone || g->alone || (tr_shape_warp(t->shape) && varies(t, in->guard) &&
				      written_in_loop(g, in->guard));
}

/* Whether a comparison per lane can go before the open loop, in a loop of
 * its own, in a call that runs a warp: the loop does not write what it
 * reads nor mention what it writes (nor do the instructions put after the
 * loop).  A guard made in the open loop would end it (split_before): a
 * block scan's four bounds tests, each made just before the load it
 * guards, would make four loops of one strided load each, where hoisted
 * they leave one loop of four loads, that GCC reads as one interleaved
 * group (guard_free). */
static int hoistable(struct tr *t, const struct ptx_insn *in)
{
	struct tr_group *g = grp(t);
	const char *d[TR_MAX_DESTS];
	struct tr_names r = { 0 };
	uint32_t i, k, nd = tr_dests(in, d, TR_MAX_DESTS);
	int ok = 1;

	if (!g->open || !tr_shape_warp(t->shape) || in->guard || strcmp(in->opcode, "setp") ||
	    !nd || nd > TR_MAX_DESTS)
		return 0;
	for (i = 0; i < nd && ok; i++) {
		for (k = 0; k < g->nins && ok; k++)
			ok = !tr_mentions(g->ins[k], d[i], 0);
		ok = ok && !tr_names_has(&g->after_use, d[i]) && !tr_names_has(&g->after_def, d[i]);
	}
	tr_insn_reads(in, &r);
	for (i = 0; i < r.n && ok; i++)
		ok = !written_in_loop(g, r.v[i]) && !tr_names_has(&g->after_def, r.v[i]);
	free(r.v);
	return ok;
}

/* Moves sb's text from `from` on to `to`, before the text between. */
static void move_text(struct strbuf *sb, size_t to, size_t from)
{
	size_t n = sb->len - from;
	char *text = xmalloc(n + 1);

	memcpy(text, sb->buf + from, n);
	memmove(sb->buf + to + n, sb->buf + to, from - to);
	memcpy(sb->buf + to, text, n);
	free(text);
}

/*
 * In a call that runs a warp, a load or store of global memory through a
 * linear address asks, before the open loop, for the lines that the call
 * AG_AHEAD bytes on will touch (ag_prefetch_span): a later warp's, or the
 * next block's.  The block scan's warps each read 512 bytes the hardware
 * did not fetch ahead in time (one thread, 29.5 -> 25 ms with its loads and
 * stores asked 2, 4 or 8 KiB ahead).  Once per register a loop; not where
 * the lanes' span is past 1 KiB (each lane's line of its own).
 */
static void prefetch_ahead(struct tr *t, const struct ptx_insn *in)
{
	struct tr_group *g = grp(t);
	const struct ptx_operand *a;
	struct strbuf c = STRBUF_INIT;
	const struct tr_sym *s;
	enum ptx_space sp = tr_space_of(in);
	int64_t step;
	size_t at = t->code.len;
	int store = !strcmp(in->opcode, "st");

	if (!tr_shape_warp(t->shape) || (!store && strcmp(in->opcode, "ld")) || in->nops < 2 ||
	    (sp != PTX_SPACE_GLOBAL && sp != PTX_SPACE_CONST && sp != PTX_SPACE_NONE))
		return;
	a = &in->ops[store ? 0 : 1];
	if (a->kind != PTX_OP_ADDR || !a->name || !a->base_is_reg ||
	    !(s = tr_lookup(t, a->name)) || s->kind != TK_REG || !s->local ||
	    tr_size(s->type) != 8 || tr_shape_reg(t->shape, a->name, &step) != TR_SHAPE_L ||
	    step <= 0 || step * 32 > 1024 || tr_names_has(&g->fetched, a->name) ||
	    written_in_loop(g, a->name) || tr_names_has(&g->after_def, a->name))
		return;
	tr_names_add(&g->fetched, a->name);
	tr_group_row(t, a->name, 0, &c);
	sb_addf(&t->code, "\t\tag_prefetch_span((const char *)(uintptr_t)%s, %" PRId64 ", %d);\n",
		c.buf, step * 32, store);
	sb_free(&c);
	move_text(&t->code, g->head, at);
	g->head += t->code.len - at;
	g->body += t->code.len - at;
}

/* Before instruction in: whether it runs per lane, and if so the loop
 * over the lanes it joins (a new one when it reads what an instruction
 * put after the open one writes, or stores while one waits there); a
 * widening that tests the wrap writes its test. */
void tr_group_begin(struct tr *t, const struct ptx_insn *in)
{
	struct tr_group *g = grp(t);
	const char *d[TR_MAX_DESTS];
	uint32_t i, nd = tr_dests(in, d, TR_MAX_DESTS), op;
	int64_t c;
	int is_signed, alone;

	open_parts(t, in);
	g->last_stmt = tr_stmt_of(t->fn, in) + 1;
	g->lanes = has_effect(in) || varies(t, in->guard);
	g->ntmp = 0;
	g->widens = 0;
	g->hoist = 0;
	g->at = t->code.len;
	for (i = 0; i < nd && i < TR_MAX_DESTS; i++)
		if (varies(t, d[i])) {
			g->lanes = 1;
			g->tmp[g->ntmp++] = d[i];
		}
	if (!g->lanes) {
		if (tr_shape_widen(t->shape, in, &op, &c, &is_signed)) {
			struct strbuf base = STRBUF_INIT;

			tr_reg_lvalue(t, in->ops[op].name, &base);
			sb_addf(&t->code, "\t\tif (on[@H] && !ag_%cx_ok(%s, INT64_C(%" PRId64 "), AG_G))\n"
				"\t\t\treturn 0;\n", is_signed ? 's' : 'z', base.buf, c);
			sb_free(&base);
			g->widens = 1;
		}
		return;
	}
	g->hoist = hoistable(t, in);
	if (g->hoist)
		return;
	alone = tr_shape_warp(t->shape) && one_address(t, in);
	if (g->open && ((g->after.len && (has_effect(in) || touches(&g->after_def, in, 0))) ||
			split_before(t, in, alone)))
		close_lanes(t);
	g->alone = alone;
	if (!g->open) {
		g->head = t->code.len;
		sb_adds(&t->code, LOOP_HEAD);
		g->open = 1;
		g->body = t->code.len;
	}
	prefetch_ahead(t, in);
	g->effects |= has_effect(in);
	note_first(g, in);
	if (g->nins == g->capins) {
		g->capins = g->capins ? 2 * g->capins : 32;
		g->ins = xrealloc(g->ins, g->capins * sizeof(*g->ins));
	}
	g->ins[g->nins++] = in;
	g->at = t->code.len;
}

/* Whether an instruction of the open loop mentions a register in writes. */
static int feeds_loop(const struct tr_group *g, const struct ptx_insn *in)
{
	const char *d[TR_MAX_DESTS];
	uint32_t i, k, nd = tr_dests(in, d, TR_MAX_DESTS);

	for (i = 0; i < nd && i < TR_MAX_DESTS; i++)
		for (k = 0; k < g->nins; k++)
			if (tr_mentions(g->ins[k], d[i], 0))
				return 1;
	return 0;
}


/* Appends text n bytes long for part h of the call: "@P" in it, after a
 * register's name, and "@H", an index (m[@H]), become the part's number
 * (r3_17p0, m[0]); in a loop over the parts, its element and its
 * variable (r3_17p[h], m[h]). */
static void put_part(const struct tr *t, const char *text, size_t n, uint32_t h,
		     struct strbuf *sb)
{
	int looped = tr_shape_looped(t->shape);
	size_t i;

	for (i = 0; i < n; i++) {
		if (text[i] == '@' && i + 1 < n && (text[i + 1] == 'P' || text[i + 1] == 'H')) {
			if (!looped)
				sb_addf(sb, "%u", h);
			else
				sb_adds(sb, text[i + 1] == 'P' ? "[h]" : "h");
			i++;
		} else {
			sb_add(sb, &text[i], 1);
		}
	}
}

/* Whether register reg lives only in statements [from, to) of the
 * function, written there, unguarded, before it is read. */
static int lives_between(struct tr *t, const char *reg, uint32_t from, uint32_t to)
{
	uint32_t i, n = 0;

	for (i = from; i < to; i++) {
		const struct ptx_insn *in = tr_insn_at(t->fn, i);

		if (!in || !tr_mentions(in, reg, 0))
			continue;
		if (!n++ && (in->guard || tr_mentions(in, reg, 1) || !tr_writes(in, reg)))
			return 0;
	}
	return n == mentions_in(t, reg);
}

/* Whether every part value that the open loop over the parts makes lives
 * only in its block (what weave makes a local of the woven loop). */
static int parts_values_local(struct tr *t)
{
	struct tr_group *g = grp(t);
	const char *d[TR_MAX_DESTS];
	uint32_t i, k, nd;

	for (i = g->parts_from; i < g->last_stmt; i++) {
		const struct ptx_insn *in = tr_insn_at(t->fn, i);

		nd = in ? tr_dests(in, d, TR_MAX_DESTS) : 0;
		if (nd > TR_MAX_DESTS)
			return 0;
		for (k = 0; k < nd; k++)
			if (!varies(t, d[k]) && !lives_between(t, d[k], g->parts_from, g->last_stmt))
				return 0;
	}
	return 1;
}

/*
 * The loop over the parts just closed (its body ending at end), when it
 * holds instructions that run once per part and after them one loop over
 * the lanes that stores nothing, and the part values they make live only
 * in the block: written
 * again before it, woven (weave.c), for calls whose every lane runs and,
 * where the woven loop reads part 0's value for another part's, whose
 * parts' lanes have the same %tid.x (ag_samex).
 */
static void weave(struct tr *t, size_t end)
{
	struct tr_group *g = grp(t);
	struct strbuf head = STRBUF_INIT, woven = STRBUF_INIT;
	struct tr_weave w = { 0 };
	const char *code = t->code.buf, *body;
	uint8_t *same;
	uint32_t i;
	int any;

	parts_loop_head(t, &head);
	if (!g->weavable || g->nloops != 1 || end != g->loop_end ||
	    memcmp(code + g->parts_head, head.buf, head.len) || !parts_values_local(t) ||
	    !(body = strstr(code + g->loop_body, "\t\t/* ")) || body >= code + g->body_end) {
		sb_free(&head);
		return;
	}
	same = xcalloc(g->wvals.n + 1, 1);
	for (i = 0; i < g->wvals.n; i++)
		same[i] = (uint8_t)(*g->wregs.v[i] && tr_shape_same(t->shape, g->wregs.v[i]));
	w.head = LOOP_HEAD;
	w.pre = code + g->parts_head + head.len;
	w.npre = g->pre_end - g->parts_head - head.len;
	w.body = body;
	w.nbody = (size_t)(code + g->body_end - body);
	w.locals = g->wlocals.v;
	w.local_types = g->wtypes.v;
	w.nlocals = g->wlocals.n;
	w.vals = g->wvals.v;
	w.same = same;
	w.nvals = g->wvals.n;
	w.parts = tr_shape_parts(t->shape);
	if (!tr_weave(&w, &woven, &any)) {
		size_t n = t->code.len - g->parts_head;
		char *loop = xmalloc(n);

		memcpy(loop, code + g->parts_head, n);
		sb_truncate(&t->code, g->parts_head);
		sb_addf(&t->code, "\t\tif (full%s) {\n", any ? " && ag_samex" : "");
		sb_add(&t->code, woven.buf, woven.len);
		sb_adds(&t->code, "\t\t} else {\n");
		sb_add(&t->code, loop, n);
		sb_adds(&t->code, "\t\t}\n");
		free(loop);
	}
	free(same);
	sb_free(&head);
	sb_free(&woven);
}

/* The tests of the loop over the parts just closed (passed), before it:
 * once for each part, when every lane of every part runs. */
static void put_tests(struct tr *t)
{
	struct tr_group *g = grp(t);
	size_t at = t->code.len;
	uint32_t i;

	if (!g->tests.n)
		return;
	for (i = 0; i < g->oks.n; i++)
		sb_addf(&t->code, "\t\tuint32_t %s = full;\n", g->oks.v[i]);
	sb_addf(&t->code, "\t\tif (full)\n\t\tfor (size_t h = 0; h < %u; h++) {\n",
		tr_shape_parts(t->shape));
	for (i = 0; i < g->tests.n; i++) {
		struct strbuf line = STRBUF_INIT;

		sb_addf(&line, "\t\t\t%s &= %s;\n", g->oks.v[i], g->tests.v[i]);
		put_part(t, line.buf, line.len, 0, &t->code);
		sb_free(&line);
	}
	sb_adds(&t->code, "\t\t}\n");
	move_text(&t->code, g->parts_head, at);
	tr_names_clear(&g->tests);
	tr_names_clear(&g->oks);
}

/* The code of an instruction, from t->code's offset from on, once for
 * each part of the call (parts of them, from the first): written out, not
 * a loop over the parts, which GCC does not take apart before it makes
 * vector code of the loop over the lanes, and with each part's registers
 * in C locals of their own (an array of the parts' values, its address
 * taken, stays in memory); each part's chain of dependent instructions
 * runs beside the other's (backwards: from the last part, last_wins').
 * In a call whose parts are looped over, once, in a loop of its own
 * outside the one open_parts opens. */
static void put_parts(struct tr *t, size_t from, uint32_t parts, int backwards)
{
	size_t n = t->code.len - from;
	uint32_t h, k;
	char *text = xmalloc(n + 1);
	int wrap = tr_shape_looped(t->shape) && !grp(t)->parts_open;

	memcpy(text, t->code.buf + from, n);
	sb_truncate(&t->code, from);
	if (wrap)
		sb_addf(&t->code, "\t\tfor (size_t h = 0; h < %u; h++) {\n", parts);
	for (k = 0, h = tr_shape_looped(t->shape) ? 1 : parts; k < h; k++)
		put_part(t, text, n, backwards ? h - 1 - k : k, &t->code);
	if (wrap)
		sb_adds(&t->code, "\t\t}\n");
	free(text);
}

void tr_group_parts(struct tr *t, size_t from, uint32_t parts)
{
	put_parts(t, from, parts, 0);
}

/*
 * A plain store to one place of shared or global memory (one_address)
 * alone in its loop over the lanes is made by one lane of those that
 * store (which one, CUDA leaves open; no other thread may see two): each
 * part, the last first, finds its last such lane from a mask of them made
 * by a loop GCC turns into vector code, and that lane stores unless one
 * of a later part did (ag_done).  A loop that ran from the
 * last lane back and stopped at the first that stores tested up to
 * sixteen lanes a part one at a time (a block reduction's `if (lane ==
 * 0)`, 31 tests a warp): the suite's reduction on 2^18 floats, all block
 * ends, one thread, 0.331 -> 0.249 ms; before it, all thirty-two lanes
 * (a block scan's warp totals, stored by lane 31; 18.1-18.5 -> 16.3-16.7
 * ms).  It is the instruction just emitted from g->at on, its lanes'
 * block "\t\t{ if (COND) {\n\t\t\tBODY\t\t} }\n" (tr_group_lanes_begin
 * and _end), alone in a loop that LOOP_HEAD opened: the head becomes a
 * plain block, which the loop's end closes.  Whether it did; g->at moves
 * with the head.
 */
static int last_wins(struct tr *t, const struct ptx_insn *in)
{
	static const char end[] = "\t\t} }\n", head[] = LOOP_HEAD, open[] = "\t\t{ if (",
		cond_end[] = ") {\n\t\t\t", block[] = "\t\t{\n\t\tuint32_t ag_done = 0;\n\n";
	struct tr_group *g = grp(t);
	enum ptx_space sp = tr_space_of(in);
	size_t e = sizeof(end) - 1, hn = sizeof(head) - 1, bn = sizeof(block) - 1;
	const char *lanes, *cond, *stop, *body;
	struct strbuf code = STRBUF_INIT;

	if (!g->alone || !g->lanes || strcmp(in->opcode, "st") ||
	    (sp != PTX_SPACE_SHARED && sp != PTX_SPACE_GLOBAL) || t->code.len - g->at < e ||
	    memcmp(t->code.buf + t->code.len - e, end, e) ||
	    g->body - g->head != hn || memcmp(t->code.buf + g->head, head, hn))
		return 0;
	lanes = strstr(t->code.buf + g->at, open);
	cond = lanes ? lanes + sizeof(open) - 1 : NULL;
	stop = cond ? strstr(cond, cond_end) : NULL;
	if (!stop)
		return 0;
	body = stop + sizeof(cond_end) - 1;
	/* what comes before the lanes' block (its comment), then the mask */
	sb_add(&code, t->code.buf + g->at, (size_t)(lanes - t->code.buf) - g->at);
	sb_adds(&code, "\t\t{\n\t\tuint32_t ag_w = 0;\n\n" NO_UNROLL
		"\t\tfor (size_t l = 0; l < AG_G; l++)\n\t\t\tag_w |= (uint32_t)((");
	sb_add(&code, cond, (size_t)(stop - cond));
	sb_adds(&code, ") != 0) << l;\n\t\tif (ag_w && !ag_done) {\n"
		"\t\tconst size_t l = 31 - (size_t)__builtin_clz(ag_w);\n\n\t\t\t");
	sb_add(&code, body, (size_t)(t->code.buf + t->code.len - e - body));
	sb_adds(&code, "\t\t\tag_done = 1;\n\t\t}\n\t\t}\n");
	sb_truncate(&t->code, g->at);
	sb_add(&t->code, code.buf, code.len);
	sb_free(&code);
	sb_replace(&t->code, g->head, head, block, 0);
	g->body = g->head + bn;
	g->at = g->at - hn + bn;
	g->masked = 1;
	return 1;
}

static void each_part(struct tr *t, size_t from)
{
	put_parts(t, from, tr_shape_parts(t->shape), 0);
}

/*
 * After instruction in, emitted from t->code's offset from on.  One that
 * runs once while a loop over the lanes is open goes before the loop when
 * no lane reads what it writes (and, for a load, none stores) and nothing
 * put after the loop depends on it or it on them; else after the loop,
 * unless it tests the wrap, which must come before any store: then the
 * loop ends before it.
 */
void tr_group_end(struct tr *t, const struct ptx_insn *in, size_t from)
{
	struct tr_group *g = grp(t);
	int backwards = last_wins(t, in);	/* moves g->at */
	size_t n;

	put_parts(t, g->at, tr_shape_parts(t->shape), backwards);
	if (g->hoist) {
		char *text = xmalloc(t->code.len - from + 1);

		n = t->code.len - from;
		memcpy(text, t->code.buf + from, n);
		sb_truncate(&t->code, from);
		sb_adds(&t->code, LOOP_HEAD);
		sb_add(&t->code, text, n);
		sb_adds(&t->code, "\t\t}\n");
		free(text);
		n = t->code.len - from;
		move_text(&t->code, g->head, from);
		g->head += n;
		g->body += n;
		return;
	}
	n = t->code.len - from;
	if (g->lanes || !g->open)
		return;
	if (!(tr_is_load(in) && g->effects) && !feeds_loop(g, in) &&
	    !touches(&g->after_def, in, 0) && !touches(&g->after_use, in, 1)) {
		move_text(&t->code, g->head, from);
		g->head += n;
		g->body += n;
		return;
	}
	if (g->widens) {
		char *text = xmalloc(n + 1);

		memcpy(text, t->code.buf + from, n);
		sb_truncate(&t->code, from);
		close_lanes(t);
		sb_add(&t->code, text, n);
		free(text);
		return;
	}
	sb_add(&g->after, t->code.buf + from, n);
	sb_truncate(&t->code, from);
	tr_insn_regs(in, &g->after_use);
	{
		const char *d[TR_MAX_DESTS];
		uint32_t i, nd = tr_dests(in, d, TR_MAX_DESTS);

		for (i = 0; i < nd && i < TR_MAX_DESTS; i++)
			tr_names_add(&g->after_def, d[i]);
	}
}

/*
 * The variable ag_okK that says whether the varying guard of in, which
 * runs per lane in a call whose parts are looped over, lets every lane of
 * every part run (ends.c), or NULL where no test can say.  The test goes
 * before the loop over the parts (put_tests); the loop over the lanes
 * reads the guard as (ag_okK | guard), which is the guard, and full_form
 * writes the loop twice, once with ag_okK 1: the tiled SGEMM's tile loads
 * run without their bounds tests (one thread, 8.6 -> 7.9 ms).  A test made
 * for every part and tile in the loop over the parts instead, 8.9 ms.
 */
static const char *passed(struct tr *t, const struct ptx_insn *in)
{
	struct tr_group *g = grp(t);
	struct strbuf test = STRBUF_INIT;
	const char *ok = NULL;
	uint32_t i;
	int found;

	if (!in || !tr_shape_looped(t->shape) || !g->parts_open || !varies(t, in->guard))
		return NULL;
	g->lanes = 0;
	found = tr_ends_test(t, in, g->parts_from, &test);
	g->lanes = 1;
	for (i = 0; found && i < g->tests.n && !ok; i++)
		if (!strcmp(g->tests.v[i], test.buf))
			ok = g->oks.v[i];
	if (found && !ok) {
		struct strbuf name = STRBUF_INIT;

		sb_addf(&name, "ag_ok%u", t->tmp++);
		ok = sb_detach(&name);
		tr_names_add(&g->tests, sb_detach(&test));
		tr_names_add(&g->oks, ok);
	}
	if (ok && !tr_names_has(&g->loop_oks, ok))
		tr_names_add(&g->loop_oks, ok);
	sb_free(&test);
	return ok;
}

/* Where an instruction's lanes start: "{ const size_t l = 0; if (guard) {"
 * for one that runs once; for one per lane, its varying destinations
 * copied into locals ag_oK that the lanes outside the mask or guard leave
 * as they are, and stored back whole by tr_group_lanes_end. */
void tr_group_lanes_begin(struct tr *t, const struct ptx_insn *in)
{
	struct tr_group *g = grp(t);
	const char *ok = g->lanes ? passed(t, in) : NULL;
	uint32_t k;

	sb_adds(&t->code, "\t\t{");
	if (!g->lanes) {
		sb_adds(&t->code, " const size_t l = 0; (void)l; if (");
	} else {
		for (k = 0; k < g->ntmp; k++) {
			const struct tr_sym *s = tr_lookup(t, g->tmp[k]);

			sb_addf(&t->code, " %s ag_o%u = ", row_ctype(t, s->type), k);
			tr_reg_lvalue(t, g->tmp[k], &t->code);
			sb_adds(&t->code, ";");
		}
		g->copies = 1;
		sb_adds(&t->code, " if (m[@H][l]");
		if (in && in->guard)
			sb_adds(&t->code, " & ");
	}
	if (ok)
		sb_addf(&t->code, "(%s | ", ok);
	if (in && in->guard)
		tr_guard(t, in, &t->code);
	else if (!g->lanes)
		sb_adds(&t->code, "1");
	sb_adds(&t->code, ok ? ")) {\n\t\t\t" : ") {\n\t\t\t");
}

void tr_group_lanes_end(struct tr *t)
{
	struct tr_group *g = grp(t);
	uint32_t k;

	g->copies = 0;
	sb_adds(&t->code, "\t\t}");
	for (k = 0; g->lanes && k < g->ntmp; k++) {
		sb_adds(&t->code, " ");
		tr_reg_lvalue(t, g->tmp[k], &t->code);
		sb_addf(&t->code, " = ag_o%u;", k);
	}
	sb_adds(&t->code, " }\n");
}

/* The C name of register name in the instruction being emitted: a copy
 * ag_oK while its lanes run, else -1. */
static int tr_group_tmp(const struct tr *t, const char *name)
{
	uint32_t k;

	for (k = 0; t->grp && t->grp->copies && k < t->grp->ntmp; k++)
		if (!strcmp(t->grp->tmp[k], name))
			return (int)k;
	return -1;
}

/* A row of a register's values, AG_G words at most, starts a cache line:
 * GCC reads and writes a row as one vector, which split across two lines
 * costs two accesses, and a load of a row that a store split just wrote
 * does not take its value from the store but waits for it (the scan's
 * rows lay in its slot G at offsets such as 0x34c, the tiled SGEMM's sums
 * at 0x244: one thread, 27.3 -> 25.6 and 11.1 -> 10.1 ms aligned). */
#define ROW_ALIGN "_Alignas(64) "

/* Declarations of a register's C locals, rows of AG_G values if vary,
 * each row on a cache line of its own (ROW_ALIGN). */
static void local_decls(const struct tr *t, enum ptx_type ty, const char *cname, int vary,
			struct strbuf *sb)
{
	uint32_t h;

	for (h = 0; h < local_count(t); h++) {
		sb_addf(sb, "\t%s%s ", vary ? ROW_ALIGN : "", row_ctype(t, ty));
		local_part(t, cname, h, sb);
		if (tr_shape_looped(t->shape))
			sb_addf(sb, "[%u]", tr_shape_parts(t->shape));
		sb_adds(sb, vary ? "[AG_G];\n" : ";\n");
	}
}

/* Copies of the registers live after barrier k between the call's
 * locals and its slot G (save: into G), each part's; each a field of G
 * (kept).  Varying registers that live across a barrier are in G already
 * (tr_group_local). */
static void keep_live(struct tr *t, uint32_t k, int save)
{
	struct tr_group *g = grp(t);
	uint32_t r, i, h;

	for (r = 0; r < t->nregs; r++) {
		const struct tr_sym *s = &t->regs[r];

		for (i = 0; i < (s->range ? s->range : 1); i++) {
			struct strbuf name = STRBUF_INIT, c = STRBUF_INIT;

			tr_ptx_name(s, i, &name);
			tr_local_name(s, i, &c);
			if (!tr_live_after(tr_liveness(t), k, name.buf) || tr_names_has(&g->slotted, c.buf))
				goto next;
			for (h = 0; h < local_count(t); h++) {
				struct strbuf v = STRBUF_INIT;

				local_part(t, c.buf, h, &v);
				sb_addf(&t->code, save ? "\t\tmemcpy(&G->%s, &%s, sizeof(%s));\n" :
					"\t\tmemcpy(&%s, &G->%s, sizeof(%s));\n", v.buf, v.buf, v.buf);
				sb_free(&v);
			}
			if (tr_names_has(&g->kept_names, c.buf))
				goto next;
			local_decls(t, s->type, c.buf, varies(t, name.buf), &g->kept);
			tr_names_add(&g->kept_names, sb_detach(&c));
next:
			sb_free(&name);
			sb_free(&c);
		}
	}
}

/* bar.sync 0: the group keeps its mask and live registers in its slot G,
 * says where it waits and returns; called again once every group has
 * arrived or finished, it takes them back at ag_Rk.  A call whose parts
 * are looped over keeps its masks in G all along (masks_in_slot).  Where
 * the way on from the barrier may be arithmetic alone, the marks of
 * ahead.c go around it. */
static int group_barrier(struct tr *t, const struct ptx_insn *in)
{
	uint32_t k = ++t->nresume;
	int copy = !tr_shape_looped(t->shape);

	if (in->guard)
		return tr_unsupported(t, in, "guarded barrier in a group of threads");
	tr_ahead_save(ahead(t), k, &t->code);
	sb_addf(&t->code, "\t\t*at = %u;\n", k);
	tr_ahead_arrive(ahead(t), k, &t->code);
	if (copy)
		sb_adds(&t->code, "\t\tmemcpy(G->m, m, sizeof(m));\n"
			"\t\tmemcpy(G->on, on, sizeof(on));\n");
	sb_adds(&t->code, "\t\tG->full = full;\n");
	keep_live(t, k, 1);
	sb_addf(&t->code, "\t\treturn 1;\nag_R%u:;\n", k);
	if (copy)
		sb_adds(&t->code, "\t\tmemcpy(m, G->m, sizeof(m));\n"
			"\t\tmemcpy(on, G->on, sizeof(on));\n");
	sb_adds(&t->code, "\t\tfull = G->full;\n");
	keep_live(t, k, 0);
	tr_ahead_resumed(ahead(t), k, &t->code);
	return 0;
}

/* A branch on a uniform predicate, the same in every part that has not
 * left, as C that runs then when it is taken: the first part's predicate,
 * "on[0] ? p0 : on[1] ? p1 : ... p(n-1)", or looped over, the one of part
 * ag_gfirst. */
static void uniform_branch(struct tr *t, const struct ptx_insn *in, const char *then,
			   struct strbuf *sb)
{
	struct strbuf g = STRBUF_INIT;
	uint32_t h, parts = local_count(t);

	tr_guard(t, in, &g);
	if (tr_shape_looped(t->shape))
		sb_addf(sb, "\t\t{ const size_t l = 0, h = ag_gfirst(on, %u); (void)l; if (",
			tr_shape_parts(t->shape));
	else
		sb_adds(sb, "\t\t{ const size_t l = 0; (void)l; if (");
	for (h = 0; h < parts; h++) {
		if (h + 1 < parts)
			sb_addf(sb, "on[%u] ? ", h);
		sb_adds(sb, "(");
		put_part(t, g.buf, g.len, h, sb);
		sb_adds(sb, h + 1 < parts ? ") : " : ")");
	}
	sb_addf(sb, ") %s }\n", then);
	sb_free(&g);
}

/* A branch on a uniform predicate to block to.  The branch of a path
 * that a barrier runs ahead (ahead.c) is also kept as C that sets ag_go. */
static void uniform_jump(struct tr *t, const struct ptx_insn *in, uint32_t to)
{
	struct strbuf go = STRBUF_INIT;
	uint32_t k = tr_ahead_of(ahead(t), in);

	if (k) {
		uniform_branch(t, in, "ag_go = 1;", &go);
		tr_ahead_branch(ahead(t), k, go.buf, &t->code);
		sb_reset(&go);
	}
	sb_addf(&go, "goto ag_L%u;", to);
	uniform_branch(t, in, go.buf, &t->code);
	sb_free(&go);
}

/* bra, ret and exit.  Unguarded, or a branch on a uniform predicate,
 * they go to their label or end the group; a branch to ret or exit on a
 * varying predicate, or a guarded ret or exit, takes the lanes whose
 * predicate holds out of the mask, and ends the group when none is left
 * in any part. */
int tr_group_flow(struct tr *t, const struct ptx_insn *in)
{
	uint32_t to = 0;
	int bra = !strcmp(in->opcode, "bra");

	tr_group_close(t);
	if (tr_is_barrier(in))
		return group_barrier(t, in);
	grp(t)->lanes = 0;
	grp(t)->ntmp = 0;
	if (bra && tr_branch_target(t, in, &to))
		return -1;
	if (!bra && tr_nops(t, in, 0, 0))
		return -1;
	if (in->guard && (varies(t, in->guard) || !bra)) {
		size_t at = t->code.len;

		sb_adds(&t->code, NO_UNROLL "\t\tfor (size_t l = 0; l < AG_G; l++)\n\t\t\tm[@H][l] &= !(");
		tr_guard(t, in, &t->code);
		sb_adds(&t->code, ");\n\t\ton[@H] = ag_gany(m[@H], AG_G);\n");
		each_part(t, at);
		sb_addf(&t->code, "\t\tif (!ag_gany(on, %u))\n\t\t\treturn 1;\n",
			tr_shape_parts(t->shape));
		sb_addf(&t->code, "\t\tfull = ag_gfull(&m[0][0], %u * AG_G);\n",
			tr_shape_parts(t->shape));
		return 0;
	}
	if (!in->guard) {
		if (bra)
			sb_addf(&t->code, "\t\tgoto ag_L%u;\n", to);
		else
			sb_adds(&t->code, "\t\treturn 1;\n");
		return 0;
	}
	uniform_jump(t, in, to);
	return 0;
}

/* Whether register name lives across a barrier of the function. */
static int kept_across(struct tr *t, const char *name)
{
	uint32_t i, k = 0;

	for (i = 0; i < t->fn->nbody; i++) {
		const struct ptx_insn *in = tr_insn_at(t->fn, i);

		if (in && tr_is_barrier(in) && tr_live_after(tr_liveness(t), ++k, name))
			return 1;
	}
	return 0;
}

/*
 * The declaration of a register of the group translation: one local for
 * a uniform or linear one, an array of AG_G for a varying one.  In a call
 * that runs a warp, a varying one that lives across a barrier is a field
 * of the call's slot G, named by a local pointer, so that a barrier
 * copies nothing of it: copied out and back at each of a block scan's two
 * barriers, the scan's kept rows cost it time (one thread, 41 -> 38 ms;
 * with its predicates as words, row_ctype, 32.5 -> 28.9).  Not in other
 * calls: n-body's sums, rows of the stack, stay in registers through its
 * loop over a tile, as fields of G they did not (22 -> 24.6 ms).
 */
void tr_group_local(struct tr *t, const struct tr_sym *s, uint32_t i)
{
	struct tr_group *g = grp(t);
	struct strbuf name = STRBUF_INIT, c = STRBUF_INIT;
	uint32_t h;
	int vary, slot;

	tr_ptx_name(s, i, &name);
	tr_local_name(s, i, &c);
	vary = varies(t, name.buf);
	slot = ((tr_shape_warp(t->shape) && vary) || tr_shape_looped(t->shape)) &&
		kept_across(t, name.buf);
	local_decls(t, s->type, c.buf, vary, slot ? &g->kept : &t->locals);
	for (h = 0; slot && h < local_count(t); h++) {
		struct strbuf v = STRBUF_INIT;

		local_part(t, c.buf, h, &v);
		sb_addf(&t->locals, "\t%s (*const restrict %s)%s = G->%s;\n", row_ctype(t, s->type),
			v.buf, tr_shape_looped(t->shape) && vary ? "[AG_G]" : "", v.buf);
		sb_free(&v);
	}
	if (slot) {
		tr_names_add(&g->kept_names, xstrdup(c.buf));
		tr_names_add(&g->slotted, sb_detach(&c));
	}
	sb_free(&name);
	sb_free(&c);
}

/* A register as C: its lane's element, lane 0's value plus c * l, or the
 * one value; written (lvalue), a linear register is lane 0's value. */
void tr_group_reg(const struct tr *t, const struct tr_sym *s, const char *name,
		  const char *cname, int write, struct strbuf *sb)
{
	struct strbuf part = STRBUF_INIT;
	int64_t c;
	int k = tr_group_tmp(t, name);

	if (k >= 0) {
		sb_addf(sb, "ag_o%d", k);
		return;
	}
	sb_addf(&part, "%sp", cname);
	switch (tr_shape_reg(t->shape, name, &c)) {
	case TR_SHAPE_V:
		sb_addf(sb, "%s@P[l]", part.buf);
		break;
	case TR_SHAPE_L:
		if (!write) {
			const char *ct = tr_ctype(s->type);

			sb_addf(sb, "((%s)(", ct);
			tr_group_part(t, part.buf, name, 0, sb);
			sb_addf(sb, " + (%s)INT64_C(%" PRId64 ") * (%s)l))", ct, c, ct);
			break;
		}
		/* fall through */
	default:
		tr_group_part(t, part.buf, name, write, sb);
		break;
	}
	sb_free(&part);
}

/*
 * A shared-memory address through a linear or uniform 32-bit register:
 * lane l's is sh + (int64)(int32)r + c * l + off, which the C compiler
 * sees as affine, and where r is uniform, as an address whose offset it
 * folds into the instruction (the tiled SGEMM's sixteen reads of its A
 * tile's row, woven: 6.5 -> 5.1 ms, one thread).  That is the address PTX
 * computes, (r + c * l + off) mod 2^32, for every lane that addresses the
 * block's shared memory (under 2^24 bytes): lane 0's value, c * l away
 * (|c * l| < 2^28) and off away (|off| < 2^30), is then within 2^31 of it.
 */
int tr_group_shared(const struct tr *t, const struct tr_sym *s, const char *name, int64_t off,
		    struct strbuf *sb)
{
	struct strbuf c = STRBUF_INIT;
	int64_t step;
	int k;

	if (!t->shape || !s->local || tr_size(s->type) != 4 || tr_group_tmp(t, name) >= 0 ||
	    off <= -(INT64_C(1) << 30) || off >= (INT64_C(1) << 30))
		return 0;
	k = tr_shape_reg(t->shape, name, &step);
	if (k != TR_SHAPE_L && k != TR_SHAPE_U)
		return 0;
	tr_local_name(s, tr_reg_index(s, name), &c);
	sb_adds(&c, "p");
	sb_adds(sb, "(sh + (int64_t)(int32_t)");
	tr_group_part(t, c.buf, name, 0, sb);
	if (k == TR_SHAPE_L)
		sb_addf(sb, " + INT64_C(%" PRId64 ") * (int64_t)l", step);
	sb_addf(sb, " + %" PRId64 ")", off);
	sb_free(&c);
	return 1;
}

/* Address addr of instruction in as the code reads it: for a load that
 * runs once for a part of the call, one that a part without lanes left
 * reads harmlessly instead (its registers may address anything by then;
 * a call of one part returns when it has none).
 * A select, not a branch around the load: a conditional load ahead of
 * the loop over the lanes kept GCC from making vector code of the loop. */
void tr_group_address(const struct tr *t, const struct ptx_insn *in, const char *addr,
		      struct strbuf *sb)
{
	if (t->shape && t->grp && !t->grp->lanes && tr_is_load(in) && tr_shape_parts(t->shape) > 1 &&
	    !tr_shape_looped(t->shape))
		sb_addf(sb, "(on[@H] ? (%s) : (unsigned char *)ag_gzero)", addr);
	else
		sb_adds(sb, addr);
}

/* The declarations of the call's masks: locals, or in a call whose parts
 * are looped over, named pointers into its slot G: eight parts' masks
 * copied out and back at every barrier cost the tiled SGEMM a kilobyte of
 * copies a call and barrier (one thread: 10.4-11.3 -> 8.9-9.4 ms). */
static void masks_in_slot(const struct tr *t, struct strbuf *sb)
{
	uint32_t parts = tr_shape_parts(t->shape);

	if (tr_shape_looped(t->shape))
		sb_adds(sb, "\tuint32_t (*const restrict m)[AG_G] = G->m;\n"
			"\tuint32_t *const restrict on = G->on;\n");
	else
		sb_addf(sb, "\tuint32_t m[%u][AG_G], on[%u];\n", parts, parts);
}

/* The group function ag_gN of the kernel just translated (never inlined:
 * inlined in the block function's loop, n-body's ran 1.5 times slower),
 * and the slot
 * struct ag_gsN in which a call waiting at a barrier keeps its masks and
 * live registers.  A call runs P row groups (parts; tr_shape_parts), part
 * h's threads at threadIdx (x[h] + l, y[h], z[h]) for l < AG_G, those
 * with x[h] + l < nx running.  *at says where the call starts (0: at the
 * top, k: after barrier k) and becomes where it waits (~0u: finished).
 * It returns 0 when a widening found its lanes across the wrap (before
 * any store), 1 otherwise. */
void tr_group_function(struct tr *t, uint32_t fidx, struct strbuf *out)
{
	struct tr_group *g = grp(t);
	struct strbuf tids = STRBUF_INIT, masks = STRBUF_INIT;
	uint32_t k, parts = tr_shape_parts(t->shape);

	tr_ahead_splice(ahead(t), &t->code);
	masks_in_slot(t, &masks);
	/* each part's threadIdx in locals: through the pointers, every store
	 * might change them */
	for (k = 0; k < (tr_shape_looped(t->shape) ? 0 : parts); k++)
		sb_addf(&tids, "\tconst uint32_t ag_tid0p%u = px[%u], ag_tid1p%u = py[%u], "
			"ag_tid2p%u = pz[%u];\n", k, k, k, k, k, k);
	if (tr_shape_looped(t->shape))
		sb_addf(&tids, "\tconst uint32_t ag_samex = ag_gsame(px, %u);\n"
			"\tuint32_t ag_tid0p[%u], ag_tid1p[%u], ag_tid2p[%u];\n"
			"\tmemcpy(ag_tid0p, px, sizeof(ag_tid0p));\n"
			"\tmemcpy(ag_tid1p, py, sizeof(ag_tid1p));\n"
			"\tmemcpy(ag_tid2p, pz, sizeof(ag_tid2p));\n\t(void)ag_samex;\n",
			parts, parts, parts, parts);
	sb_adds(&tids, t->locals.buf ? t->locals.buf : "");
	sb_addf(out, "/* .entry %s, %u x AG_G threads at a time (group.c) */\n"
		"enum { AG_PARTS%u = %u };\n\n"
		"struct ag_gs%u {\n\tuint32_t m[%u][AG_G], on[%u], full;\n%s};\n\n"
		"static __attribute__((noinline)) int ag_g%u(struct ag_gs%u *const G, unsigned *const at,\n"
		"\tstruct ag_warp *const w,\n"
		"\tconst unsigned char *const prm, const struct ag_dims *const d,\n"
		"\tconst uint32_t *const px, const uint32_t *const py, const uint32_t *const pz,\n"
		"\tconst uint32_t nx, struct ag_block *const b, unsigned char *const sh)\n{\n"
		"\tconst uint32_t ag_ntid0 = d->ntid[0], ag_ntid1 = d->ntid[1], "
		"ag_ntid2 = d->ntid[2];\n"
		"\tconst uint32_t ag_ctaid0 = d->ctaid[0], ag_ctaid1 = d->ctaid[1], "
		"ag_ctaid2 = d->ctaid[2];\n"
		"\tconst uint32_t ag_nctaid0 = d->nctaid[0], ag_nctaid1 = d->nctaid[1], "
		"ag_nctaid2 = d->nctaid[2];\n"
		"\tconst unsigned ag_at = *at;\n"
		"%s"
		"\tuint32_t full, ag_any, ag_all;\n%s\n"
		"\t(void)G; (void)w; (void)sh; (void)prm; (void)b; (void)ag_any; (void)ag_all;\n"
		"\t*at = ~0u;\n"
		"\tswitch (ag_at) {\n",
		t->fn->name, parts, fidx, parts, fidx, parts, parts, g->kept.buf ? g->kept.buf : "",
		fidx, fidx, masks.buf, tids.buf);
	for (k = 1; k <= t->nresume; k++)
		sb_addf(out, "\tcase %u: goto ag_R%u;\n", k, k);
	/* the masks at the start (a resumed call takes its own back, and
	 * whether all its lanes run), NO_UNROLL's loop one vector compare
	 * per part */
	sb_addf(out, "\tdefault: break;\n\t}\n"
		"\tfull = 1;\n"
		"\tfor (size_t h = 0; h < %u; h++) {\n"
		NO_UNROLL "\t\tfor (size_t l = 0; l < AG_G; l++)\n"
		"\t\t\tm[h][l] = px[h] + l < nx;\n"
		"\t\ton[h] = px[h] < nx;\n"
		"\t\tfull &= px[h] + AG_G <= nx;\n\t}\n"
		"%s\treturn 1;\n}\n\n", parts, t->code.buf ? t->code.buf : "");
	sb_free(&tids);
	sb_free(&masks);
}
