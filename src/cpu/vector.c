/*
 * vector.c - the lockstep translation's runs of lane-local instructions,
 * and the form they take when all 32 lanes of a warp are there: loops the
 * C compiler turns into vector instructions.
 *
 * A run of instructions that only read and write their lane's own
 * registers and memory gives the same results whether each lane runs the
 * whole run before the next lane starts (one loop over the lanes, which
 * keeps a lane's values in machine registers) or each instruction runs for
 * all lanes before the next starts (lockstep proper).  The masked version,
 * for warps with lanes missing, is the first.  The version for full warps
 * is the second, but only where it pays: arithmetic stays together in one
 * loop, and each instruction that reaches memory through a pointer gets a
 * loop of its own, because a store through a pointer the compiler cannot
 * tell from the frame's rows keeps it from vectorizing the loop around it.
 *
 * A load or store of a register address first computes the 32 addresses
 * and looks at them half a warp at a time.  When each half reaches
 * consecutive elements (lanes reading a row, which a GPU coalesces), the
 * access is a loop over a[h] + l * size, plain vector loads and stores;
 * when each half reaches one address (a value all the lanes of a row of a
 * 16 x 16 block read), one load and a broadcast; otherwise a loop over the
 * lanes' own addresses (a gather or a scatter).  Deciding at run time costs
 * a few vector compares and needs no proof that an address is affine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* One instruction of the open run, by where its code starts. */
struct tr_seg {
	size_t at;
	const struct ptx_insn *in;
	int own;                /* reaches memory: a loop of its own */
	size_t addr_at;         /* the "unsigned char *p_ = ...;" line of a */
	size_t addr_len;        /* load or store (0: none) */
	struct tr_access ac;
	unsigned site;          /* a number of its own in the function */
	char *addr;             /* its address expression */
};

static void seg_clear(struct tr *t)
{
	uint32_t i;

	for (i = 0; i < t->nsegs; i++)
		free(t->segs[i].addr);
	t->nsegs = 0;
}

void tr_segs_free(struct tr *t)
{
	seg_clear(t);
	free(t->segs);
	t->segs = NULL;
	t->capsegs = 0;
}

/* Instruction in of the open run starts here; own: it reaches memory. */
void tr_seg(struct tr *t, const struct ptx_insn *in, int own)
{
	struct tr_seg *s;

	if (t->scalar || !t->fused)
		return;
	if (t->nsegs && t->segs[t->nsegs - 1].at == t->code.len) {
		t->segs[t->nsegs - 1].own = own;        /* nothing written since */
		t->segs[t->nsegs - 1].in = in;
		return;
	}
	if (t->nsegs == t->capsegs) {
		uint32_t cap = t->capsegs ? 2 * t->capsegs : 16;
		t->segs = xrealloc(t->segs, cap * sizeof(*t->segs));
		t->capsegs = cap;
	}
	s = &t->segs[t->nsegs++];
	memset(s, 0, sizeof(*s));
	s->at = t->code.len;
	s->in = in;
	s->own = own;
}

/* A load or store writes "unsigned char *p_ = addr;", each lane reaching
 * ac->size bytes at p_; in a run, the run's last instruction notes it. */
void tr_seg_access(struct tr *t, const char *addr, const struct tr_access *ac)
{
	struct tr_seg *s = NULL;

	if (!t->scalar && t->fused && t->nsegs) {
		s = &t->segs[t->nsegs - 1];
		free(s->addr);
		s->addr = xstrdup(addr);
		s->addr_at = t->code.len;
		s->ac = *ac;
		s->site = t->nsites++;
	}
	sb_addf(&t->code, "unsigned char *p_ = %s;\n", addr);
	if (s)
		s->addr_len = t->code.len - s->addr_at;
}

/*
 * The compiler cannot tell a pointer made from an integer from the frame's
 * rows, so it vectorizes an access loop only with a run-time test that the
 * two do not overlap.  A loop of 16 it would rather unroll completely, and
 * then vectorize nothing: the half-warp loops are kept loops.
 */
#define NO_UNROLL "#pragma GCC unroll 1\n"

/* A load or store for the lanes of a full warp, in the form its
 * addresses take (ag_coalesce): per half warp, a vector access, one
 * address for all, or each lane its own.  The form is found once for the
 * accesses through one register (c names the variable that keeps it; a
 * constant offset changes no form); only the first of them computes it
 * (first) and asks for the lines of its next turn. */
static void emit_access(struct strbuf *sb, const char *code, const struct tr_seg *s, size_t end,
			uint32_t c, int first)
{
	/* the loops of a form: over each half warp, or over the lanes */
	static const char halves[] = "\t\tfor (ag_h = 0; ag_h < 32; ag_h += 16)\n" NO_UNROLL
		"\t\tfor (l = ag_h; l < ag_h + 16; l++) {\n";
	static const char lanes[] = "\t\tfor (l = 0; l < 32; l++) {\n";
	const char *head = code + s->at, *tail = code + s->addr_at + s->addr_len;
	int nhead = (int)(s->addr_at - s->at), ntail = (int)(end - s->addr_at - s->addr_len);
	uint32_t size = s->ac.size;
	char dense[64];
	const struct {
		const char *label, *loop, *p;
	} forms[] = {
		{ "case AG_DENSE", halves, dense },
		{ "case AG_SAME", halves, "(unsigned char *)ag_a[ag_h]" },
		{ "default", lanes, "(unsigned char *)ag_a[l]" },
	};
	size_t i;

	snprintf(dense, sizeof(dense), "(unsigned char *)ag_a[ag_h] + (l - ag_h) * %u", size);
	sb_addf(sb, "\t\t{\n\t\tuintptr_t ag_a[32];\n\t\tunsigned ag_h;\n"
		"\t\tfor (l = 0; l < 32; l++) ag_a[l] = (uintptr_t)%s;\n", s->addr);
	if (first)
		sb_addf(sb, "\t\tag_c%u = ag_coalesce(ag_a, %u);\n", c, size);
	sb_addf(sb, "\t\tswitch (ag_c%u) {\n", c);
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		sb_addf(sb, "\t\t%s:\n", forms[i].label);
		if (i == 0 && first && s->ac.prefetch)
			sb_addf(sb, "\t\tag_prefetch_next(&w->seen[%u %% AG_NSEEN], ag_a[0], %u, %d);\n",
				s->site, 32 * size, s->ac.store);
		sb_addf(sb, "%s%.*sunsigned char *p_ = %s;\n%.*s\t\t}\n\t\tbreak;\n", forms[i].loop,
			nhead, head, forms[i].p, ntail, tail);
	}
	sb_adds(sb, "\t\t}\n\t\t}\n");
}

/* Whether instruction in (NULL: none) writes register reg. */
static int writes(const struct ptx_insn *in, const char *reg)
{
	const struct ptx_operand *o = in && in->nops ? &in->ops[0] : NULL;
	uint32_t i;

	if (!o)
		return 0;
	if (o->kind == PTX_OP_REG && !strcmp(o->name, reg))
		return 1;
	if (o->pair && o->pair->kind == PTX_OP_REG && !strcmp(o->pair->name, reg))
		return 1;
	for (i = 0; o->kind == PTX_OP_VEC && i < o->nelems; i++)
		if (o->elems[i].kind == PTX_OP_REG && !strcmp(o->elems[i].name, reg))
			return 1;
	return 0;
}

/* The access of the run before segs[i] whose form segs[i] shares: through
 * the same register (one that keeps its form under an offset: reg), not
 * written since, with elements of the same size; i itself when there is
 * none. */
static uint32_t form_source(const struct tr *t, uint32_t i, const uint32_t *src)
{
	const struct tr_seg *s = &t->segs[i];
	uint32_t j, k;

	for (j = i; j-- > 0;) {
		const struct tr_seg *p = &t->segs[j];

		if (!s->ac.reg)
			return i;
		if (!p->addr_len || !p->ac.reg || strcmp(p->ac.reg, s->ac.reg) ||
		    p->ac.size != s->ac.size)
			continue;
		for (k = j; k < i; k++)
			if (writes(t->segs[k].in, s->ac.reg))
				return i;
		return src[j];
	}
	return i;
}

/*
 * Whether the run can also be one loop over the lanes: each of its
 * accesses is a plain load or store through a register plus an offset
 * (tr_access.reg) that no instruction of the run before it writes.  Then
 * every address is known when the run starts, and so is its form.
 */
static int fusable(const struct tr *t)
{
	uint32_t i, j, n = 0;

	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];

		if (!s->own)
			continue;
		if (!s->addr_len || !s->ac.reg || !s->in ||
		    (strcmp(s->in->opcode, "ld") && strcmp(s->in->opcode, "st")))
			return 0;
		for (j = 0; j < i; j++)
			if (writes(t->segs[j].in, s->ac.reg))
				return 0;
		n++;
	}
	return n > 0;
}

/*
 * The fused form of a run for a full warp, tried before the split one:
 * when every access's addresses are dense or uniform in each half warp
 * (found once, at the start), the whole run is one loop over each half's
 * lanes, each address the half's first plus the lane's offset.  The C
 * compiler sees affine addresses, makes vector loads and stores of them,
 * and keeps the run's values in vector registers from one instruction to
 * the next, where the split form passes them through memory.  The form
 * tests are loop-invariant branches, which it takes out of the loop.
 * Lanes run the run in the order of the masked loop, sixteen at a time
 * (ivdep), as lane-local instructions allow (see the top of this file).
 */
static void emit_fused(const struct tr *t, const char *code, size_t end, const uint32_t *src,
		       struct strbuf *sb)
{
	uint32_t i;
	size_t at;

	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];

		if (!s->addr_len)
			continue;
		sb_addf(sb, "\t\tuintptr_t ag_b%u[2];\n\t\tl = 0;\n\t\tag_b%u[0] = (uintptr_t)%s;\n"
			"\t\tl = 16;\n\t\tag_b%u[1] = (uintptr_t)%s;\n", i, i, s->addr, i, s->addr);
		if (src[i] == i)
			sb_addf(sb, "\t\t{\n\t\tuintptr_t ag_a[32];\n"
				"\t\tfor (l = 0; l < 32; l++) ag_a[l] = (uintptr_t)%s;\n"
				"\t\tag_c%u = ag_coalesce(ag_a, %u);\n\t\t}\n", s->addr, i, s->ac.size);
		if (src[i] == i && s->ac.prefetch)
			sb_addf(sb, "\t\tif (ag_c%u == AG_DENSE)\n\t\t\tag_prefetch_next(&w->seen[%u %% "
				"AG_NSEEN], ag_b%u[0], %u, %d);\n", i, s->site, i, 32 * s->ac.size,
				s->ac.store);
	}
	sb_adds(sb, "\t\tif (1");
	for (i = 0; i < t->nsegs; i++)
		if (t->segs[i].addr_len && src[i] == i)
			sb_addf(sb, " && ag_c%u != AG_SCATTERED", i);
	sb_adds(sb, ") {\n\t\tunsigned ag_h;\n\t\tfor (ag_h = 0; ag_h < 32; ag_h += 16)\n"
		"#pragma GCC ivdep\n\t\tfor (l = ag_h; l < ag_h + 16; l++) {\n");
	at = t->segs[0].at;
	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];

		if (!s->addr_len)
			continue;
		sb_add(sb, code + at, s->addr_at - at);
		sb_addf(sb, "unsigned char *p_;\n\t\t\tif (ag_c%u == AG_DENSE)\n"
			"\t\t\t\tp_ = (unsigned char *)ag_b%u[ag_h / 16] + (l - ag_h) * %u;\n"
			"\t\t\telse\n\t\t\t\tp_ = (unsigned char *)ag_b%u[ag_h / 16];\n",
			src[i], i, s->ac.size, i);
		at = s->addr_at + s->addr_len;
	}
	sb_add(sb, code + at, end - at);
	sb_adds(sb, "\t\t}\n\t\t} else {\n");
}

/* The run for a full warp: arithmetic in shared loops, memory in its own. */
static void emit_full(struct tr *t, const char *code, size_t end, struct strbuf *sb)
{
	uint32_t i, j, *src = xcalloc(t->nsegs + 1, sizeof(*src));
	int fused = fusable(t);

	for (i = 0; i < t->nsegs; i++)
		if (t->segs[i].addr_len) {
			src[i] = form_source(t, i, src);
			if (src[i] == i)
				sb_addf(sb, "\t\tint ag_c%u;\n", i);
		}
	if (fused)
		emit_fused(t, code, end, src, sb);
	for (i = 0; i < t->nsegs; i = j) {
		const struct tr_seg *s = &t->segs[i];
		size_t to;

		for (j = i + 1; !s->own && j < t->nsegs && !t->segs[j].own; j++)
			;
		to = j < t->nsegs ? t->segs[j].at : end;
		if (s->addr_len)
			emit_access(sb, code, s, to, src[i], src[i] == i);
		else
			sb_addf(sb, "\t\tfor (l = 0; l < 32; l++) {\n%.*s\t\t}\n",
				(int)(to - s->at), code + s->at);
	}
	if (fused)
		sb_adds(sb, "\t\t}\n");
	free(src);
}

/*
 * Opens (open = 1) or closes the lane loop that a run of lane-local
 * instructions shares.  The caller closes it before any instruction that
 * looks at other lanes or moves lanes (warp operations, barriers,
 * branches, calls).  The run is written twice: for a full warp, without
 * the mask test, as emit_full splits it; and the masked loop for others.
 */
void tr_fuse(struct tr *t, int open)
{
	struct strbuf body = STRBUF_INIT, full = STRBUF_INIT;
	const char *code;
	size_t end;

	if (t->scalar || t->fused == open)
		return;
	t->fused = open;
	if (open) {
		t->fused_at = t->code.len;
		seg_clear(t);
		tr_seg(t, NULL, 0);
		return;
	}
	end = t->code.len;
	if (end > t->fused_at) {
		sb_add(&body, t->code.buf + t->fused_at, end - t->fused_at);
		emit_full(t, t->code.buf, end, &full);
	}
	code = body.buf ? body.buf : "";
	sb_truncate(&t->code, t->fused_at);
	sb_addf(&t->code, "\t\tif (ag_all(m)) {\n%s\t\t} else for (l = 0; l < 32; l++) if (m[l]) {\n"
		"%s\t\t}\n", full.buf ? full.buf : "", code);
	seg_clear(t);
	sb_free(&body);
	sb_free(&full);
}
