/*
 * ifconv.c - short forward branches over a few lane-local instructions
 * become guards on those instructions, before a module is translated.
 *
 * nvcc writes a bounds check around a load or store as a branch over it:
 *
 *	@%p4 bra $L__BB0_4;
 *	ld.global.f32 %f60, [%rd15];
 *	$L__BB0_4:
 *
 * Every branch ends a basic block, and in lockstep a block boundary costs
 * the lanes' pcs, a test of whether the warp still runs together and the
 * end of the run of lane-local instructions the C compiler would turn
 * into vector code.  "@!%p4 ld.global.f32 %f60, [%rd15];" does the same
 * for each lane: lanes whose guard is false skip the load, as they skipped
 * it by branching, and nothing else can tell the two apart, since the
 * instructions only touch their own lane's registers and memory.  So the
 * branch goes, the instructions take the negated predicate as their guard,
 * and the label goes too when nothing else names it.
 *
 * Only instructions that are unguarded already, do not write the
 * predicate, and are plain arithmetic, conversions, loads and stores are
 * taken, at most MAX_SKIPPED of them and MAX_GUARDED that keep the guard
 * (below), with nothing between them but
 * instructions: no labels (another way in), scopes or declarations.
 * Integer arithmetic whose results only the instructions after it in
 * the skipped run read stays unguarded (needs_guard).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* More than a few instructions each with its own guard cost more than the
 * block boundary they save; arithmetic that stays unguarded (needs_guard)
 * costs nothing more, and a run may have more of it (nvcc's bounds-checked
 * copy of one element through a 2D index is 5 of it, a load and a store). */
#define MAX_GUARDED 6
#define MAX_SKIPPED 12

/* Instructions that may take a guard instead of being branched over. */
static int guardable(const struct ptx_insn *in, const char *pred)
{
	static const char *const mem[] = { "ld", "ldu", "st", "cvta" };
	size_t i;
	int ok = tr_arith_emitter(in->opcode) || tr_cvt_emitter(in->opcode);

	for (i = 0; i < sizeof(mem) / sizeof(mem[0]) && !ok; i++)
		ok = !strcmp(in->opcode, mem[i]);
	return ok && !in->guard && !tr_writes(in, pred);
}

/* The label a branch goes to, or NULL. */
static const char *target(const struct ptx_insn *in)
{
	if (!in || strcmp(in->opcode, "bra") || in->nops != 1 || in->ops[0].kind != PTX_OP_SYM)
		return NULL;
	return in->ops[0].name;
}

/* How many branches and branch-target lists of fn name label. */
static uint32_t references(const struct ptx_func *fn, const char *label)
{
	uint32_t i, k, n = 0;

	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_stmt *s = &fn->body[i];
		const struct ptx_insn *in = tr_insn_at(fn, i);

		for (k = 0; in && k < in->nops; k++)
			n += in->ops[k].kind == PTX_OP_SYM && !strcmp(in->ops[k].name, label);
		for (k = 0; s->kind == PTX_STMT_BRANCHTARGETS && k < s->u.targets.nlabels; k++)
			n += !strcmp(s->u.targets.labels[k], label);
	}
	return n;
}

/* If the guarded branch at body[i] skips at most MAX_SKIPPED guardable
 * instructions and lands on the label right after them, their count;
 * else 0. */
static uint32_t run_length(const struct ptx_func *fn, uint32_t i)
{
	const struct ptx_insn *br = tr_insn_at(fn, i);
	const char *label = target(br);
	uint32_t j;

	if (!label || !br->guard)
		return 0;
	for (j = i + 1; j < fn->nbody && j <= i + MAX_SKIPPED; j++) {
		const struct ptx_stmt *s = &fn->body[j];

		if (s->kind == PTX_STMT_LABEL)
			return strcmp(s->u.label, label) || j == i + 1 ? 0 : j - i - 1;
		if (s->kind != PTX_STMT_INSN || !guardable(&s->u.insn, br->guard))
			return 0;
	}
	j = i + MAX_SKIPPED + 1;
	return j < fn->nbody && fn->body[j].kind == PTX_STMT_LABEL &&
	       !strcmp(fn->body[j].u.label, label) ? MAX_SKIPPED : 0;
}

/*
 * Whether skipped instruction body[k] (of body[first..last]) takes the
 * guard.  Plain arithmetic whose results only the skipped instructions
 * after it read does not: computed for every thread, it gives the ones
 * whose guard is false values they never read.  Unguarded, an address
 * made from the thread's index stays linear across a row group's lanes
 * (group.c) instead of varying, and needs no blend in lockstep.
 */
static int needs_guard(const struct ptx_func *fn, uint32_t last, uint32_t k)
{
	static const char *const pure[] = {
		"add", "sub", "mul", "mad", "shl", "shr", "and", "or", "xor", "mov", "cvta", "cvt",
	};
	const struct ptx_insn *in = tr_insn_at(fn, k);
	const char *d[TR_MAX_DESTS];
	uint32_t nd, i, j;

	if (!tr_in_list(pure, sizeof(pure) / sizeof(pure[0]), in->opcode) ||
	    tr_has(in, ".cc") || !(nd = tr_dests(in, d, TR_MAX_DESTS)) || nd > TR_MAX_DESTS)
		return 1;
	for (i = 0; i < nd; i++)
		for (j = 0; j < fn->nbody; j++) {
			const struct ptx_insn *x = tr_insn_at(fn, j);

			if (x && (j <= k || j > last) && tr_mentions(x, d[i], j == k))
				return 1;
		}
	return 0;
}

/* The run the guarded branch at body[i] skips when it is short enough to
 * take guards instead (run_length, MAX_GUARDED), else 0; need[k - 1]
 * says whether its k'th instruction keeps the guard. */
static uint32_t skipped(const struct ptx_func *fn, uint32_t i, uint8_t need[MAX_SKIPPED])
{
	uint32_t n = run_length(fn, i), k, guarded = 0;

	for (k = 1; k <= n; k++)
		guarded += need[k - 1] = needs_guard(fn, i + n, i + k) != 0;
	return guarded <= MAX_GUARDED ? n : 0;
}

/* fn's body with its short branches converted, in a new array (*n
 * statements), or NULL when it has none. */
static struct ptx_stmt *convert(const struct ptx_func *fn, uint32_t *n)
{
	struct ptx_stmt *out = NULL;
	uint32_t i, k, m = 0;

	for (i = 0; i < fn->nbody; i++) {
		uint8_t need[MAX_SKIPPED];
		uint32_t skip = skipped(fn, i, need);
		const struct ptx_insn *br;

		if (!skip) {
			if (out)
				out[m++] = fn->body[i];
			continue;
		}
		if (!out) {
			out = xcalloc(fn->nbody, sizeof(*out));
			memcpy(out, fn->body, i * sizeof(*out));
			m = i;
		}
		br = &fn->body[i].u.insn;
		for (k = 1; k <= skip; k++) {
			out[m] = fn->body[i + k];
			if (need[k - 1]) {
				out[m].u.insn.guard = br->guard;
				out[m].u.insn.guard_neg = !br->guard_neg;
			}
			m++;
		}
		i += skip;
		if (references(fn, target(br)) > 1)
			out[m++] = fn->body[i + 1];
		i++;
	}
	*n = m;
	return out;
}

const struct ptx_module *tr_ifconv(const struct ptx_module *m)
{
	struct ptx_module *c = NULL;
	struct ptx_func *funcs = NULL;
	uint32_t f, n;

	for (f = 0; f < m->nfuncs; f++) {
		struct ptx_stmt *body = convert(&m->funcs[f], &n);

		if (!body)
			continue;
		if (!c) {
			c = xmalloc(sizeof(*c));
			*c = *m;
			funcs = xcalloc(m->nfuncs, sizeof(*funcs));
			memcpy(funcs, m->funcs, m->nfuncs * sizeof(*funcs));
			c->funcs = funcs;
		}
		funcs[f].body = body;
		funcs[f].nbody = n;
	}
	return c;
}

void tr_ifconv_free(const struct ptx_module *orig, const struct ptx_module *c)
{
	uint32_t f;

	if (!c)
		return;
	for (f = 0; f < c->nfuncs; f++)
		if (c->funcs[f].body != orig->funcs[f].body)
			free((void *)c->funcs[f].body);
	free((void *)c->funcs);
	free((void *)c);
}
