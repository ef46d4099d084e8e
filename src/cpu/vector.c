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
 * tell from the frame's rows keeps it from vectorizing the loop around it;
 * atomics that follow each other with arithmetic between share one.
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
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* One instruction of the open run, by where its code starts. */
struct tr_seg {
	size_t at;
	const struct ptx_insn *in;
	int own;                /* reaches memory: a loop of its own */
	int one_addr;           /* reaches one address in every lane */
	size_t addr_at;         /* the "unsigned char *p_ = ...;" line of a */
	size_t addr_len;        /* load or store (0: none) */
	size_t guard_at;        /* its guard's condition in the code */
	size_t guard_len;       /* (0: unguarded) */
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

/* The run's last instruction wrote the condition of its guard from at to
 * here: a fused loop that knows the guard holds in every lane drops it. */
void tr_seg_guard(struct tr *t, size_t at)
{
	struct tr_seg *s = t->nsegs ? &t->segs[t->nsegs - 1] : NULL;

	if (!t->scalar && t->fused && s && s->at <= at) {
		s->guard_at = at;
		s->guard_len = t->code.len - at;
	}
}

/* The run's last instruction is a load or store of one address for all
 * lanes (a kernel parameter, a variable): its code fits any loop. */
void tr_seg_one_address(struct tr *t)
{
	if (!t->scalar && t->fused && t->nsegs)
		t->segs[t->nsegs - 1].one_addr = 1;
}

/* Where the code of segs[i] ends: where the next one's starts. */
static size_t seg_end(const struct tr *t, uint32_t i, size_t end)
{
	return i + 1 < t->nsegs ? t->segs[i + 1].at : end;
}

/*
 * The compiler cannot tell a pointer made from an integer from the frame's
 * rows, so it vectorizes an access loop only with a run-time test that the
 * two do not overlap; the half-warp loops are kept loops (NO_UNROLL).
 */
/* Whether the form of access s is found once per block, into the frame's
 * ag_form<site> (bit site of w->fixed says it is there): its register is
 * one a thread writes once at most (uniform.c), so every lane's address
 * is the same each time the warp comes to it whole.  Sites past 63 have
 * no bit. */
static int fixed_form(const struct tr *t, const struct tr_seg *s)
{
	return s->site < 64 && s->ac.reg && tr_uniform_once(t->uniform, s->ac.reg);
}

/* The form guessed for the access segs[i] (forms.c), and its step
 * between lanes (NULL: not wanted; 0 but for TR_FORM_STEP), which finding
 * its form at run time tests too. */
static enum tr_form guess(const struct tr *t, uint32_t i, uint32_t *step)
{
	return tr_forms_guess(t->forms, t->segs[i].ac.reg, t->segs[i].ac.size, step);
}

static uint32_t guessed_step(const struct tr *t, uint32_t i)
{
	uint32_t step;

	guess(t, i, &step);
	return step;
}

/* Whether the form of fixed access s is known: a C condition. */
static void form_known(const struct tr_seg *s, char *cond, size_t size)
{
	snprintf(cond, size, "(w->fixed >> %u & 1)", s->site);
}

/* ag_c<c> = the form of fixed access s (segs[c]), found the first time
 * only from its addresses in ag_a (filled here unless fill is 0). */
static void emit_fixed_form(const struct tr *t, const struct tr_seg *s, uint32_t c, int fill,
			    struct strbuf *sb)
{
	char known[48];

	form_known(s, known, sizeof(known));
	sb_addf(sb, "\t\tif (!%s) {\n", known);
	if (fill)
		sb_addf(sb, "\t\tuintptr_t ag_a[32];\n"
			"\t\tfor (l = 0; l < 32; l++) ag_a[l] = (uintptr_t)%s;\n", s->addr);
	sb_addf(sb, "\t\tW->ag_form%u = ag_coalesce(ag_a, %u, %u);\n"
		"\t\tw->fixed |= (uint64_t)1 << %u;\n\t\t}\n\t\tag_c%u = W->ag_form%u;\n",
		s->site, s->ac.size, guessed_step(t, c), s->site, c, s->site);
}

/* A load or store for the lanes of a full warp, in the form its
 * addresses take (ag_coalesce): per half warp, a vector access, one
 * address for all, or each lane its own.  The form is found once for the
 * accesses through one register (c names the variable that keeps it; a
 * constant offset changes no form); only the first of them computes it
 * (first) and asks for the lines of its next turn. */
static void emit_access(struct tr *t, struct strbuf *sb, const char *code, const struct tr_seg *s,
			size_t end, uint32_t c, int first)
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
	if (first && fixed_form(t, s)) {
		/* after the rows, which stay 32-byte aligned in every warp's frame */
		sb_addf(&t->kept, "\tint ag_form%u%s;\n", s->site,
			t->kept.len ? "" : " __attribute__((aligned(32)))");
		emit_fixed_form(t, s, c, 0, sb);
	} else if (first) {
		sb_addf(sb, "\t\tag_c%u = ag_coalesce(ag_a, %u, %u);\n", c, size,
			guessed_step(t, c));
	}
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

static void put_dest(const struct ptx_operand *o, const char **v, uint32_t max, uint32_t *n)
{
	if (o->kind == PTX_OP_REG && o->name) {
		if (*n < max)
			v[*n] = o->name;
		++*n;
	}
}

/* The registers instruction in (NULL: none) writes: its first operand,
 * which is where PTX puts destinations (a store's address is not one),
 * with a second destination ("%r1|%p1"), the elements of a vector or a
 * call's results.  Returns how many; v holds the first max of them, so
 * a count over max means the caller cannot know them all. */
uint32_t tr_dests(const struct ptx_insn *in, const char **v, uint32_t max)
{
	const struct ptx_operand *o = in && in->nops ? &in->ops[0] : NULL;
	uint32_t i, n = 0;

	if (!o)
		return 0;
	put_dest(o, v, max, &n);
	if (o->pair)
		put_dest(o->pair, v, max, &n);
	for (i = 0; (o->kind == PTX_OP_VEC || o->kind == PTX_OP_LIST) && i < o->nelems; i++)
		put_dest(&o->elems[i], v, max, &n);
	return n;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every register fn's instructions write, each once, sorted (*names,
 * freed by the caller); -1 when one writes more than tr_dests can tell. */
int tr_written(const struct ptx_func *fn, const char ***names, uint32_t *count)
{
	const char **v = NULL;
	uint32_t i, j, nd, n = 0, cap = 0;

	for (i = 0; i < fn->nbody; i++) {
		if (n + TR_MAX_DESTS > cap) {
			cap = 2 * cap + 64;
			v = xrealloc(v, cap * sizeof(*v));
		}
		if ((nd = tr_dests(tr_insn_at(fn, i), v + n, TR_MAX_DESTS)) > TR_MAX_DESTS) {
			free(v);
			return -1;
		}
		n += nd;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	for (i = j = 0; i < n; i++)
		if (!j || strcmp(v[j - 1], v[i]))
			v[j++] = v[i];
	*names = v;
	*count = j;
	return 0;
}

/* Whether instruction in (NULL: none) writes register reg. */
int tr_writes(const struct ptx_insn *in, const char *reg)
{
	const char *v[TR_MAX_DESTS];
	uint32_t i, n = tr_dests(in, v, TR_MAX_DESTS);

	if (n > TR_MAX_DESTS)
		return 1;
	for (i = 0; i < n; i++)
		if (!strcmp(v[i], reg))
			return 1;
	return 0;
}

static int operand_mentions(const struct ptx_operand *o, const char *reg)
{
	uint32_t i;

	if ((o->kind == PTX_OP_REG || (o->kind == PTX_OP_ADDR && o->base_is_reg)) && o->name &&
	    !strcmp(o->name, reg))
		return 1;
	for (i = 0; i < o->nelems; i++)
		if (operand_mentions(&o->elems[i], reg))
			return 1;
	return o->pair && operand_mentions(o->pair, reg);
}

/* Whether instruction in mentions register reg: its guard, or an operand
 * from the first (from) on. */
static int mentions(const struct ptx_insn *in, const char *reg, uint32_t from)
{
	uint32_t i;

	if (in->guard && !strcmp(in->guard, reg))
		return 1;
	for (i = from; i < in->nops; i++)
		if (operand_mentions(&in->ops[i], reg))
			return 1;
	return 0;
}

int tr_mentions(const struct ptx_insn *in, const char *reg, uint32_t from)
{
	return mentions(in, reg, from);
}

/* Whether any instruction of fn reads register reg, as far as names
 * tell: one but self that mentions it anywhere, or self as a source or
 * guard.  A name redeclared in a nested scope counts as read. */
int tr_read(const struct ptx_func *fn, const struct ptx_insn *self, const char *reg)
{
	uint32_t i;

	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);

		if (in && mentions(in, reg, in == self ? 1 : 0))
			return 1;
	}
	return 0;
}

/* Whether instruction b writes a register instruction a mentions. */
static int feeds(const struct ptx_insn *b, const struct ptx_insn *a)
{
	const char *v[TR_MAX_DESTS];
	uint32_t i, n = tr_dests(b, v, TR_MAX_DESTS);

	if (n > TR_MAX_DESTS)
		return 1;
	for (i = 0; i < n; i++)
		if (mentions(a, v[i], 0))
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
			if (tr_writes(t->segs[k].in, s->ac.reg))
				return i;
		return src[j];
	}
	return i;
}

/* Instructions an address may be computed with ahead of the run. */
static int pure(const struct ptx_insn *in)
{
	static const char *const ops[] = {
		"add", "sub", "mul", "mad", "mul24", "mad24", "shl", "shr", "and", "or",
		"xor", "not", "neg", "abs", "min", "max", "cvt", "cvta", "mov", "selp",
		"setp",
	};

	return in && tr_in_list(ops, sizeof(ops) / sizeof(ops[0]), in->opcode);
}

/* Whether instruction in is an opcode ("ld", "st") of .param memory,
 * which no lane writes but through st.param. */
static int param_access(const struct ptx_insn *in, const char *opcode)
{
	return in && !strcmp(in->opcode, opcode) && tr_has(in, ".param");
}

/*
 * Whether segs[k] can run for all lanes before the run (hoist marks those
 * that do, before it): a pure instruction, or a load of a parameter that
 * no st.param before it may change, that is the run's first to mention
 * what it writes, and reads nothing an instruction before it that stays
 * writes.  The run's instructions then see the values they saw in
 * program order, and running the hoisted ones once more where they stand
 * (the split form, when the fused one cannot go) gives the same values.
 */
static int hoistable(const struct tr *t, uint32_t k, const uint8_t *hoist)
{
	const struct tr_seg *s = &t->segs[k];
	const char *v[TR_MAX_DESTS];
	int param = s->one_addr && param_access(s->in, "ld");
	uint32_t i, j, n;

	if (s->addr_len || (!param && (s->own || !pure(s->in))))
		return 0;
	if ((n = tr_dests(s->in, v, TR_MAX_DESTS)) > TR_MAX_DESTS)
		return 0;
	for (i = 0; i < n; i++)
		if (mentions(s->in, v[i], 1))
			return 0;
	for (j = 0; j < k; j++) {
		const struct ptx_insn *in = t->segs[j].in;

		for (i = 0; in && i < n; i++)
			if (mentions(in, v[i], 0))
				return 0;
		if (in && !hoist[j] && feeds(in, s->in))
			return 0;
		if (param && param_access(in, "st"))
			return 0;
	}
	return 1;
}

/*
 * Whether the fused loop drops the guard of access segs[i], and is entered
 * only when it holds in every lane: a guarded access a constant step
 * apart is no masked vector load or store for GCC 12, but an unguarded
 * run of them through one register (a thread's few consecutive elements)
 * is vector loads and shuffles.
 */
static int unguarded(const struct tr *t, uint32_t i)
{
	const struct tr_seg *s = &t->segs[i];

	return s->addr_len && s->guard_len && s->ac.reg &&
	       tr_forms_guess(t->forms, s->ac.reg, s->ac.size, NULL) == TR_FORM_STEP;
}

/*
 * Which instructions compute the run's addresses (the registers its
 * accesses go through, and what those are made from, within the run),
 * and the guards the fused loop drops (unguarded), and can run ahead of
 * it (hoist): then every address is known when the run starts.  0 when
 * one of them cannot.
 */
static int hoist_addresses(const struct tr *t, uint8_t *hoist)
{
	const char **need = xcalloc(t->nsegs + 1, 4 * sizeof(*need));
	uint32_t i, j, k, n = 0, cap = 4 * (t->nsegs + 1);
	int ok = 1;

	for (k = t->nsegs; k-- > 0;) {
		const struct tr_seg *s = &t->segs[k];
		const struct ptx_insn *in = s->in;
		int needed = 0;

		for (i = 0; in && !s->addr_len && i < n; i++)
			if (tr_writes(in, need[i])) {
				needed = 1;
				if (!in->guard)
					need[i--] = need[--n];
			}
		if (s->addr_len && s->ac.reg && n < cap)
			need[n++] = s->ac.reg;
		if (unguarded(t, k) && n < cap)
			need[n++] = s->in->guard;
		for (j = 0; needed && j < in->nops; j++)
			if (in->ops[j].kind == PTX_OP_REG && j > 0 && n < cap)
				need[n++] = in->ops[j].name;
		if (needed && in->guard && n < cap)
			need[n++] = in->guard;
		hoist[k] = (uint8_t)needed;
	}
	for (k = 0; k < t->nsegs && ok; k++)
		if (hoist[k]) {
			hoist[k] = 0;
			ok = hoistable(t, k, hoist);
			hoist[k] = (uint8_t)ok;
		}
	free(need);
	return ok;
}

/*
 * Whether the run can also be one loop over the lanes: each of its
 * accesses is a plain load or store through a register plus an offset
 * (tr_access.reg) that no instruction of the run before it writes, but
 * those that compute it ahead of the run (hoist_addresses), and so is the
 * guard of one the loop drops.  Then every
 * address is known when the run starts, and so is its form.
 */
static int fusable(const struct tr *t, uint8_t *hoist)
{
	uint32_t i, j, n = 0;

	if (!hoist_addresses(t, hoist))
		return 0;
	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];
		const char *guard;

		if (!s->own || s->one_addr)
			continue;
		if (!s->addr_len || !s->ac.reg || !s->in ||
		    (strcmp(s->in->opcode, "ld") && strcmp(s->in->opcode, "st")))
			return 0;
		guard = unguarded(t, i) ? s->in->guard : NULL;
		for (j = 0; j < i; j++)
			if (!hoist[j] && (tr_writes(t->segs[j].in, s->ac.reg) ||
					  (guard && tr_writes(t->segs[j].in, guard))))
				return 0;
		n++;
	}
	return n > 0;
}

/* What the fused form asks of its run-time form for each guess. */
static const char *const form_test[] = {
	[TR_FORM_UNKNOWN] = "!= AG_SCATTERED",
	[TR_FORM_DENSE] = "== AG_DENSE",
	[TR_FORM_SAME] = "== AG_SAME",
	[TR_FORM_STEP] = "== AG_STEP",
};

/* The fused loop's body: the run (but its hoisted instructions, unless
 * all: see emit_fused), each access through the half's first address in
 * its guessed form. */
static void fused_body(const struct tr *t, const char *code, size_t end, const uint32_t *src,
		       const uint8_t *hoist, int all, struct strbuf *sb)
{
	uint32_t i, step;

	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];
		size_t to = seg_end(t, i, end);

		if (hoist[i] && !all)
			continue;
		if (!s->addr_len) {
			sb_add(sb, code + s->at, to - s->at);
			continue;
		}
		if (unguarded(t, i)) {
			sb_add(sb, code + s->at, s->guard_at - s->at);
			sb_adds(sb, "1");
			sb_add(sb, code + s->guard_at + s->guard_len,
			       s->addr_at - s->guard_at - s->guard_len);
		} else {
			sb_add(sb, code + s->at, s->addr_at - s->at);
		}
		switch (guess(t, src[i], &step)) {
		case TR_FORM_DENSE:
			sb_addf(sb, "unsigned char *p_ = ag_p%u + (l - ag_h) * %u;\n", i, s->ac.size);
			break;
		case TR_FORM_STEP:
			sb_addf(sb, "unsigned char *p_ = ag_p%u + (l - ag_h) * %u;\n", i, step);
			break;
		case TR_FORM_SAME:
			sb_addf(sb, "unsigned char *p_ = ag_p%u;\n", i);
			break;
		default:
			sb_addf(sb, "unsigned char *p_;\n\t\t\tif (ag_c%u == AG_DENSE)\n"
				"\t\t\t\tp_ = ag_p%u + (l - ag_h) * %u;\n"
				"\t\t\telse\n\t\t\t\tp_ = ag_p%u;\n",
				src[i], i, s->ac.size, i);
		}
		sb_add(sb, code + s->addr_at + s->addr_len, to - s->addr_at - s->addr_len);
	}
}

/*
 * The registers that live only inside segs[from..to) (live.c) and that
 * no hoisted instruction writes (any: unless the body has those too, all)
 * become scalars of the loop's body, which is those
 * instructions: each lane's iteration makes them and uses them up.
 * Stores to arrays that die with the loop are left for the compiler to
 * remove, which it does not; scalars it keeps in registers.
 */
static void scalarize(struct tr *t, uint32_t from, uint32_t to, const uint8_t *hoist, int all,
		      struct strbuf *body, struct strbuf *decl)
{
	const struct ptx_insn **ins = xcalloc(to - from + 1, sizeof(*ins));
	const char **regs;
	uint32_t i, k, n = 0, nregs;

	for (i = from; i < to; i++)
		if (t->segs[i].in)
			ins[n++] = t->segs[i].in;
	nregs = tr_live_run(tr_liveness(t), ins, n, &regs);
	for (i = 0; i < nregs; i++) {
		for (k = from; k < to && (all || !hoist[k] ||
					  !tr_writes(t->segs[k].in, regs[i])); k++)
			;
		if (k == to)
			tr_move_row(t, regs[i], body, decl, 0);
	}
	free(regs);
	free(ins);
}

/* Whether the form of an access lasts from turn to turn (steady.c), and
 * the tests that assumes: once, and on every turn. */
struct keep {
	int on;
	struct strbuf tests, turn;
};

/*
 * The form of access segs[i] into ag_c<i>, found from its 32 addresses.
 * In a loop of one block, an access whose form lasts from turn to turn
 * (k->on) finds it on the first turn only, into the frame's ag_form<site>
 * (which lasts while the warp yields to the block's others), unless a
 * test of this turn fails (ag_kt<i>); ag_steady then says whether the
 * registers that assumes the same in each half warp are.
 */
static void emit_form(struct tr *t, const struct tr_seg *s, uint32_t i, const struct keep *k,
		      struct strbuf *sb)
{
	char var[32], cond[32] = "";

	if (fixed_form(t, s)) {
		emit_fixed_form(t, s, i, 1, sb);
		return;
	}
	snprintf(var, sizeof(var), k->on ? "W->ag_form%u" : "ag_c%u", k->on ? s->site : i);
	if (k->on) {
		/* after the rows, which stay 32-byte aligned in every warp's frame */
		sb_addf(&t->kept, "\tint ag_form%u%s;\n", s->site,
			t->kept.len ? "" : " __attribute__((aligned(32)))");
		snprintf(cond, sizeof(cond), "if (!ag_kt%u) ", i);
	}
	sb_addf(sb, "\t\t%s{\n\t\tuintptr_t ag_a[32];\n"
		"\t\tfor (l = 0; l < 32; l++) ag_a[l] = (uintptr_t)%s;\n"
		"\t\t%s = ag_coalesce(ag_a, %u, %u);\n", cond, s->addr, var, s->ac.size,
		guessed_step(t, i));
	if (k->tests.len || k->turn.len)
		sb_addf(sb, "\t\tag_steady = ag_steady%s%s;\n", k->tests.buf ? k->tests.buf : "",
			k->turn.buf ? k->turn.buf : "");
	sb_adds(sb, "\t\t}\n");
	if (k->on)
		sb_addf(sb, "\t\tag_c%u = %s;\n", i, var);
}

/*
 * The fused loop's local ag_p<i>: the first address of access segs[i] in
 * the half warp from lane h.  One through the register of an access
 * before it, whose form it takes (src), is that one's plus the difference
 * of their offsets: the loop then keeps a pointer per register, not one
 * per access (a tile's sixteen loads through two registers spilled them).
 * For a 32-bit register of shared memory that assumes what sharing the
 * form does, that adding the offsets wraps in no lane.
 */
static void emit_base(const struct tr *t, const uint32_t *src, uint32_t i, uint32_t h,
		      struct strbuf *sb)
{
	const struct tr_seg *s = &t->segs[i];

	if (!s->addr_len)
		return;
	if (src[i] == i)
		sb_addf(sb, "\t\tunsigned char *ag_p%u = (unsigned char *)ag_b%u[%u];\n", i, i,
			h / 16);
	else
		sb_addf(sb, "\t\tunsigned char *ag_p%u = ag_p%u + (%" PRId64 ");\n", i, src[i],
			s->ac.off - t->segs[src[i]].ac.off);
}

/*
 * The fused form of a run for a full warp, tried before the split one.
 * The instructions that make the run's addresses run first, for all lanes
 * (hoist_addresses); then, when every access's addresses are dense or
 * uniform in each half warp (found once), the whole run is one loop over
 * each half's lanes, each address the half's first plus the lane's
 * offset.  The C compiler sees affine addresses, makes vector loads and
 * stores of them, and keeps the run's values in vector registers from one
 * instruction to the next, where the split form passes them through
 * memory.  The loop is written for the forms forms.c guesses, and entered
 * when the run-time forms are those; an access without a guess tests its
 * form inside the loop, a loop-invariant branch the compiler takes out
 * (for three such tests at most).  A turn of the loop runs a lane of each
 * half, sixteen turns in all (ivdep), as lane-local instructions allow
 * (see the top of this file).
 *
 * When every form of the run lasts from turn to turn (all), a turn that
 * keeps them needs the hoisted addresses of the halves' first lanes only:
 * the hoisted instructions run for lanes 0 and 16, and once more, in
 * program order, inside the loop, where the compiler keeps their values
 * in vector registers instead of rows of 32 lanes.
 */
static void emit_fused(struct tr *t, const char *code, size_t end, const uint32_t *src,
		       const uint8_t *hoist, struct strbuf *sb)
{
	struct strbuf body = STRBUF_INIT, decl = STRBUF_INIT, kept = STRBUF_INIT;
	struct strbuf guards = STRBUF_INIT;
	struct keep *k = xcalloc(t->nsegs + 1, sizeof(*k));
	uint32_t i, h;
	int all = 1;

	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];

		if (!s->addr_len || src[i] != i)
			continue;
		if (fixed_form(t, s)) {
			char known[48];

			form_known(s, known, sizeof(known));
			sb_addf(&kept, " && %s", known);
			continue;
		}
		k[i].on = tr_steady_reg(t->steady, s->in, s->ac.reg, &k[i].tests, &k[i].turn);
		all &= k[i].on;
		if (k[i].on) {
			sb_addf(sb, "\t\tconst int ag_kt%u = ag_keep%s;\n", i,
				k[i].turn.buf ? k[i].turn.buf : "");
			sb_addf(&kept, " && ag_kt%u", i);
		}
	}
	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];
		uint32_t j;

		if (hoist[i])
			sb_add(&body, code + s->at, seg_end(t, i, end) - s->at);
		if (!unguarded(t, i))
			continue;
		sb_addf(&guards, " & (%.*s)", (int)s->guard_len, code + s->guard_at);
		for (j = 0; j < i; j++)         /* its lanes' guards are made here */
			all &= !(hoist[j] && tr_writes(t->segs[j].in, s->in->guard));
	}
	if (body.len && all)
		sb_addf(sb, "\t\tif (1%s) {\n\t\tl = 0;\n\t\t{\n%s\t\t}\n\t\tl = 16;\n\t\t{\n%s\t\t}\n"
			"\t\t} else\n", kept.buf, body.buf, body.buf);
	if (body.len)   /* the hoisted instructions, for all lanes */
		sb_addf(sb, "\t\tfor (l = 0; l < 32; l++) {\n%s\t\t}\n", body.buf);
	sb_reset(&body);
	for (i = 0; i < t->nsegs; i++) {
		const struct tr_seg *s = &t->segs[i];

		if (!s->addr_len || src[i] != i)
			continue;
		sb_addf(sb, "\t\tuintptr_t ag_b%u[2];\n\t\tl = 0;\n\t\tag_b%u[0] = (uintptr_t)%s;\n"
			"\t\tl = 16;\n\t\tag_b%u[1] = (uintptr_t)%s;\n", i, i, s->addr, i, s->addr);
		emit_form(t, s, i, &k[i], sb);
		if (s->ac.prefetch)
			sb_addf(sb, "\t\tif (ag_c%u == AG_DENSE)\n\t\t\tag_prefetch_next(&w->seen[%u %% "
				"AG_NSEEN], ag_b%u[0], %u, %d);\n", i, s->site, i, 32 * s->ac.size,
				s->ac.store);
	}
	if (guards.len)
		sb_addf(sb, "\t\tint ag_on = 1;\n\t\tfor (l = 0; l < 32; l++) ag_on &= 1%s;\n",
			guards.buf);
	sb_addf(sb, "\t\tif (%s", guards.len ? "ag_on" : "1");
	for (i = 0; i < t->nsegs; i++)
		if (t->segs[i].addr_len && src[i] == i)
			sb_addf(sb, " && ag_c%u %s", i, form_test[guess(t, i, NULL)]);
	/* Each access's first address of the half in a local and a 64-bit
	 * lane index: a guarded load GCC makes a masked vector load only from
	 * an address it sees is affine in the lane, which a base read from an
	 * array in the loop, or an unsigned index that may wrap, hides.  One
	 * turn runs a lane of each half: a sum the run carries through many
	 * instructions (a tile's inner product) is then four chains of
	 * vector adds, not two, which their latency held back. */
	fused_body(t, code, end, src, hoist, all, &body);
	scalarize(t, 0, t->nsegs, hoist, all, &body, &decl);
	sb_adds(sb, ") {\n#pragma GCC ivdep\n" NO_UNROLL
		"\t\tfor (size_t ag_j = 0; ag_j < 16; ag_j++) {\n");
	for (h = 0; h < 32; h += 16) {
		sb_addf(sb, "\t\t{\n\t\tconst size_t ag_h = %u, l = ag_j + %u;\n", h, h);
		for (i = 0; i < t->nsegs; i++)
			emit_base(t, src, i, h, sb);
		sb_addf(sb, "%s%s\t\t}\n", decl.buf ? decl.buf : "", body.buf ? body.buf : "");
	}
	sb_adds(sb, "\t\t}\n\t\t} else {\n");
	for (i = 0; i < t->nsegs; i++) {
		sb_free(&k[i].tests);
		sb_free(&k[i].turn);
	}
	free(k);
	sb_free(&kept);
	sb_free(&guards);
	sb_free(&body);
	sb_free(&decl);
}

/* The run for a full warp: arithmetic in shared loops, memory in its own. */
static int is_rmw(const struct tr_seg *s)
{
	return s->in && (!strcmp(s->in->opcode, "atom") || !strcmp(s->in->opcode, "red"));
}

/*
 * Where the loop of atomic segs[i] ends: after the last atomic of those
 * that follow it with only arithmetic between.  Read-modify-writes are
 * one lane at a time whatever the loop, and a loop of each apart ran a
 * shared-memory histogram's four increments per word at half the speed
 * of one loop over all four (the order each lane's own come in is kept;
 * the masked form interleaves the lanes the same way).
 */
static uint32_t rmw_end(const struct tr *t, uint32_t i)
{
	uint32_t j, last = i;

	for (j = i + 1; j < t->nsegs && (!t->segs[j].own || is_rmw(&t->segs[j])); j++)
		if (t->segs[j].own)
			last = j;
	return last + 1;
}

/* segs[i..j), ending at to in code, in one loop over the lanes: its
 * registers that live only there scalars (in a chain of atomics, the
 * values between them). */
static void emit_lanes(struct tr *t, uint32_t i, uint32_t j, const char *code, size_t to,
		       struct strbuf *sb)
{
	struct strbuf body = STRBUF_INIT, decl = STRBUF_INIT;

	sb_add(&body, code + t->segs[i].at, to - t->segs[i].at);
	scalarize(t, i, j, NULL, 1, &body, &decl);
	sb_addf(sb, "\t\tfor (l = 0; l < 32; l++) {\n%s%s\t\t}\n", decl.buf ? decl.buf : "",
		body.buf);
	sb_free(&body);
	sb_free(&decl);
}

static void emit_full(struct tr *t, const char *code, size_t end, struct strbuf *sb)
{
	uint32_t i, j, *src = xcalloc(t->nsegs + 1, sizeof(*src));
	uint8_t *hoist = xcalloc(t->nsegs + 1, 1);
	int fused = fusable(t, hoist);

	for (i = 0; i < t->nsegs; i++)
		if (t->segs[i].addr_len) {
			src[i] = form_source(t, i, src);
			if (src[i] == i)
				sb_addf(sb, "\t\tint ag_c%u;\n", i);
		}
	if (fused)
		emit_fused(t, code, end, src, hoist, sb);
	for (i = 0; i < t->nsegs; i = j) {
		const struct tr_seg *s = &t->segs[i];
		size_t to;

		for (j = i + 1; !s->own && j < t->nsegs && !t->segs[j].own; j++)
			;
		if (is_rmw(s))
			j = rmw_end(t, i);
		to = j < t->nsegs ? t->segs[j].at : end;
		if (s->addr_len)
			emit_access(t, sb, code, s, to, src[i], src[i] == i);
		else
			emit_lanes(t, i, j, code, to, sb);
	}
	if (fused)
		sb_adds(sb, "\t\t}\n");
	free(hoist);
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
