/*
 * forms.c - a guess, made once per function, of the form each lockstep
 * access takes: which registers hold a value the same in every lane of a
 * half warp plus a constant multiple of %tid.x.
 *
 * vector.c finds an access's form at run time from its 32 addresses
 * (ag_coalesce), and that stays the proof.  But a fused run (one loop over
 * each half warp's lanes) with several accesses whose forms are tested
 * inside it is a loop the C compiler must version once per form, which it
 * does for three tests at most; past that it gathers every load.  With a
 * guess for each access, the run gets one loop written for the guessed
 * forms, plain vector loads and broadcasts, entered when the run-time
 * forms agree, and the general code otherwise.
 *
 * The guess: a register is u + c * tid.x, u the same in the lanes of a
 * half warp, when every instruction that writes it makes one from such
 * values: blockIdx, blockDim, constants and parameters are uniform (so are
 * tid.y and tid.z, for blocks at least 16 wide), tid.x and laneid have c =
 * 1, and addition, subtraction, multiplication by a constant, shifts by a
 * constant and widenings keep the form.  A multiple other than the
 * element size is a step between lanes (a thread owning a few consecutive
 * elements: TR_FORM_STEP), which the fused run writes as a constant
 * stride.  It is computed over the whole function without regard to the
 * order of instructions (a register's writers are joined: they must agree
 * on c), which suits loop counters and pointers that move by a uniform
 * stride.  Nothing is assumed about wrapping: where the guess is wrong,
 * the run-time test says so.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* What is known of a register: nothing yet, u + c * tid.x, or neither. */
enum { F_NONE, F_AFF, F_ANY };

struct form {
	int kind;
	int64_t c;
};

struct form_reg {
	const char *name;
	struct form f;
};

struct tr_forms {
	struct form_reg *v;     /* sorted by name */
	uint32_t n;
};

/* Multiples beyond this are no element size's and must not overflow. */
#define FORM_MAX_C (INT64_C(1) << 20)

static const struct form any = { F_ANY, 0 }, none = { F_NONE, 0 };

static struct form aff(int64_t c)
{
	struct form f = { F_AFF, c };

	return c > FORM_MAX_C || c < -FORM_MAX_C ? any : f;
}

static int cmp_reg(const void *a, const void *b)
{
	return strcmp(((const struct form_reg *)a)->name, ((const struct form_reg *)b)->name);
}

static struct form_reg *find(const struct tr_forms *f, const char *name)
{
	struct form_reg key = { name, { F_NONE, 0 } };

	return f->n ? bsearch(&key, f->v, f->n, sizeof(*f->v), cmp_reg) : NULL;
}

/* An operand's form: a register as known, a special register by what it
 * is, constants and symbols (addresses of parameters and variables)
 * uniform. */
static struct form operand(const struct tr_forms *f, const struct ptx_operand *o)
{
	const struct form_reg *r;

	switch (o->kind) {
	case PTX_OP_IMM:
	case PTX_OP_FIMM:
	case PTX_OP_SYM:
		return aff(0);
	case PTX_OP_REG:
		if ((r = find(f, o->name)))
			return r->f;
		if ((!strcmp(o->name, "%tid") && o->component && !strcmp(o->component, "x")) ||
		    !strcmp(o->name, "%laneid"))
			return aff(1);
		return aff(0);
	default:
		return any;
	}
}

static struct form sum(struct form a, struct form b, int sign)
{
	if (a.kind == F_ANY || b.kind == F_ANY)
		return any;
	if (a.kind == F_NONE || b.kind == F_NONE)
		return none;
	return aff(a.c + sign * b.c);
}

/* a * b, where b is the operand o: by a constant, or of uniform values */
static struct form product(struct form a, struct form b, const struct ptx_operand *o)
{
	if (a.kind == F_ANY || b.kind == F_ANY)
		return any;
	if (a.kind == F_NONE || b.kind == F_NONE)
		return none;
	if (o->kind == PTX_OP_IMM && o->i >= -FORM_MAX_C && o->i <= FORM_MAX_C)
		return aff(a.c * o->i);
	return !a.c && !b.c ? aff(0) : any;
}

/* The form of what instruction in writes (its first operand). */
static struct form eval(const struct tr_forms *f, const struct ptx_insn *in)
{
	const char *op = in->opcode;
	struct form a = any, b = any, r = aff(0);
	uint32_t i;

	if (in->nops >= 2)
		a = operand(f, &in->ops[1]);
	if (in->nops >= 3)
		b = operand(f, &in->ops[2]);
	if ((!strcmp(op, "mov") || !strcmp(op, "cvt") || !strcmp(op, "cvta")) && in->nops == 2)
		return a;
	if ((!strcmp(op, "add") || !strcmp(op, "sub")) && in->nops == 3)
		return sum(a, b, !strcmp(op, "add") ? 1 : -1);
	if ((!strcmp(op, "mul") || !strcmp(op, "mad")) && in->nops >= 3 && !tr_has(in, ".hi")) {
		r = in->ops[2].kind == PTX_OP_IMM ? product(a, b, &in->ops[2])
						  : product(b, a, &in->ops[1]);
		return !strcmp(op, "mad") && in->nops == 4 ? sum(r, operand(f, &in->ops[3]), 1) : r;
	}
	if (!strcmp(op, "shl") && in->nops == 3 && in->ops[2].kind == PTX_OP_IMM &&
	    in->ops[2].i >= 0 && in->ops[2].i < 20 && a.kind == F_AFF)
		return aff(a.c * (INT64_C(1) << in->ops[2].i));
	if (!strcmp(op, "ld") && in->nops == 2 && in->ops[1].kind == PTX_OP_ADDR) {
		/* one address for a half warp: one value for it */
		const struct ptx_operand *o = &in->ops[1];
		struct form_reg *base = o->base_is_reg && o->name ? find(f, o->name) : NULL;

		if (!base)
			return aff(0);
		return base->f.kind == F_AFF && !base->f.c ? aff(0) : base->f.kind == F_NONE ? none : any;
	}
	if (!tr_arith_emitter(op) && !tr_cvt_emitter(op))
		return any;
	/* other arithmetic: uniform from uniform values */
	for (i = 1; i < in->nops; i++) {
		struct form s = operand(f, &in->ops[i]);

		if (s.kind == F_ANY || (s.kind == F_AFF && s.c))
			return any;
		if (s.kind == F_NONE)
			r = none;
	}
	return r;
}

/* Joins what one writer makes into a register's form; 1 if it changed. */
static int join(struct form *to, struct form f)
{
	struct form old = *to;

	if (f.kind == F_NONE || to->kind == F_ANY)
		return 0;
	if (to->kind == F_NONE)
		*to = f;
	else if (f.kind == F_ANY || f.c != to->c)
		*to = any;
	return to->kind != old.kind || to->c != old.c;
}

/* Every register some instruction writes, each once, with no form yet;
 * -1 when they cannot all be known. */
static int collect(struct tr_forms *f, const struct ptx_func *fn)
{
	const char **names;
	uint32_t i;

	if (tr_written(fn, &names, &f->n))
		return -1;
	f->v = xcalloc(f->n + 1, sizeof(*f->v));
	for (i = 0; i < f->n; i++) {
		f->v[i].name = names[i];
		f->v[i].f = none;
	}
	free(names);
	return 0;
}

struct tr_forms *tr_forms_scan(const struct ptx_func *fn)
{
	struct tr_forms *f = xcalloc(1, sizeof(*f));
	uint32_t i, j;
	int changed = 1;

	if (collect(f, fn)) {
		tr_forms_free(f);
		return NULL;
	}
	/* each register's form only rises (none, a multiple, any): it ends */
	while (changed) {
		changed = 0;
		for (i = 0; i < fn->nbody; i++) {
			const struct ptx_insn *in = tr_insn_at(fn, i);
			const struct ptx_operand *o = in && in->nops ? &in->ops[0] : NULL;
			const char *d[TR_MAX_DESTS];
			uint32_t nd = tr_dests(in, d, TR_MAX_DESTS);
			/* one plain register written: its form; else none known */
			int plain = nd == 1 && o->kind == PTX_OP_REG && !o->component;
			struct form_reg *r;

			for (j = 0; j < nd; j++)
				if ((r = find(f, d[j])))
					changed |= join(&r->f, plain ? eval(f, in) : any);
		}
	}
	return f;
}

/* Steps of more elements than this are no small group a thread owns
 * (a column of a tile, where a gather in the fused loop ran slower than
 * the split form's loop over the lanes). */
#define FORM_MAX_STEP 8

enum tr_form tr_forms_guess(const struct tr_forms *f, const char *reg, uint32_t size,
			    uint32_t *step)
{
	const struct form_reg *r = f && reg ? find(f, reg) : NULL;
	uint32_t unused;

	if (!step)
		step = &unused;
	*step = 0;
	if (!r || r->f.kind != F_AFF)
		return TR_FORM_UNKNOWN;
	if (!r->f.c)
		return TR_FORM_SAME;
	if (r->f.c == (int64_t)size)
		return TR_FORM_DENSE;
	if (r->f.c < 0 || r->f.c > FORM_MAX_STEP * (int64_t)size)
		return TR_FORM_UNKNOWN;
	*step = (uint32_t)r->f.c;
	return TR_FORM_STEP;
}

void tr_forms_free(struct tr_forms *f)
{
	if (f)
		free(f->v);
	free(f);
}
