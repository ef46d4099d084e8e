/*
 * affine.c - the registers of a kernel's scalar translation that hold a
 * base plus a constant multiple of %tid.x, and the sign and zero
 * extensions of them that become array indices.
 *
 * The fast path runs a block's threads in a loop over threadIdx.x, which
 * the C compiler can turn into vector code: a lane per thread.  What stops
 * it is the 32-bit arithmetic of the index.  `i = blockIdx.x * blockDim.x
 * + threadIdx.x` wraps at 2^32 in PTX (and in the generated C), so the
 * 64-bit address `a + (int64)i * 4` is not an affine function of the loop
 * variable: the compiler must assume that i may wrap between two threads,
 * and gathers and scatters each element instead of loading a vector.
 *
 * So the translator keeps, next to each such register r, its base rb (a
 * uint32 local): r == rb + c * tid.x (mod 2^32) with c a constant known
 * here.  Where r is widened to 64 bits, the generated code tests whether
 * rb + c * x stays inside the 32-bit range for every x of the block's
 * threadIdx.x (ag_sx_ok, ag_zx_ok); when it does, the widened value is
 * (int64)rb + c * x exactly, an affine function of the loop variable the
 * compiler sees, and the test, the same for every thread of a row, is
 * taken out of the loop (GCC's loop unswitching).  When it does not, the
 * value is computed as before.  Either way the result is the same: the
 * identity holds for each thread by itself, uniform or not.
 *
 * Kernels with barriers get bases too: between two barriers their threads
 * run in the same loop over a row (translate_fast.c, emit_phases), and a
 * barrier saves a live register's base with it, so that a widening after
 * the barrier finds the base its register was written with.
 *
 * A register gets a base only when the instruction that writes it is its
 * only writer in the kernel (counted over every destination operand; in
 * a swept grid-stride loop's thread, up to the loop's end) and
 * is a move, add, sub, mul.lo, mad.lo or shl of 32-bit integers whose
 * multipliers of %tid.x are constants.  Its base is assigned where it is,
 * under the same guard, before it (the sources are still unchanged then);
 * uses that come earlier in the text than that write read the register
 * as it is.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

/* Multipliers beyond this are left alone: they do not make array indices,
 * and c * x must not overflow 64 bits. */
#define AFF_MAX_C (INT64_C(1) << 20)

struct aff_reg {
	const char *name;       /* PTX register name */
	uint32_t defs;          /* instructions that may write it */
	int64_t c;              /* its multiple of %tid.x; 0: no base */
};

struct tr_aff {
	struct aff_reg *v;      /* sorted by name */
	uint32_t n, cap;
};

/* value == base + c * tid.x (mod 2^32); base is a uint32 C expression */
struct term {
	int64_t c;
	struct strbuf base;
};

static int cmp_reg(const void *a, const void *b)
{
	return strcmp(((const struct aff_reg *)a)->name, ((const struct aff_reg *)b)->name);
}

static struct aff_reg *find(const struct tr_aff *a, const char *name)
{
	struct aff_reg key = { .name = name };

	return a && name ? bsearch(&key, a->v, a->n, sizeof(*a->v), cmp_reg) : NULL;
}

/* Every register a destination operand names: vectors, "%r|%p" pairs and
 * call results included, so that a register is counted whatever writes it. */
static void note_dests(struct tr_aff *a, const struct ptx_operand *o)
{
	uint32_t i;

	if (o->kind == PTX_OP_REG && o->name && !o->component) {
		if (a->n == a->cap) {
			a->cap = a->cap ? 2 * a->cap : 64;
			a->v = xrealloc(a->v, a->cap * sizeof(*a->v));
		}
		a->v[a->n++] = (struct aff_reg){ .name = o->name, .defs = 1 };
	}
	for (i = 0; i < o->nelems; i++)
		note_dests(a, &o->elems[i]);
	if (o->pair)
		note_dests(a, o->pair);
}

/* skip: an instruction not to count, which the translation leaves out
 * (a grid-stride loop's step, stride.c), or NULL. */
struct tr_aff *tr_aff_scan(const struct ptx_func *fn, const struct ptx_insn *skip, uint32_t end)
{
	struct tr_aff *a;
	uint32_t i, n = 0;

	if (tr_redeclared(fn))
		return NULL;
	a = xcalloc(1, sizeof(*a));
	for (i = 0; i < end && i < fn->nbody; i++)
		if (fn->body[i].kind == PTX_STMT_INSN && fn->body[i].u.insn.nops &&
		    &fn->body[i].u.insn != skip)
			note_dests(a, &fn->body[i].u.insn.ops[0]);
	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), cmp_reg);
	for (i = 0; i < a->n; i++) {
		if (n && !strcmp(a->v[n - 1].name, a->v[i].name))
			a->v[n - 1].defs++;
		else
			a->v[n++] = a->v[i];
	}
	a->n = n;
	return a;
}

void tr_aff_free(struct tr_aff *a)
{
	if (a)
		free(a->v);
	free(a);
}

/* The C name of register name's base: its own C name with a 'b'. */
static int base_name(struct tr *t, const char *name, struct strbuf *sb)
{
	if (tr_reg_lvalue(t, name, sb))
		return -1;
	sb_adds(sb, "b");
	return 0;
}

static int is_tid_x(const struct ptx_operand *o)
{
	return o->kind == PTX_OP_REG && o->name && !strcmp(o->name, "%tid") &&
	       o->component && !strcmp(o->component, "x");
}

/* An operand as a term: %tid.x, a register with a base, or any other
 * value (c = 0). */
static int term_of(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		   struct term *x)
{
	const struct aff_reg *r = o->kind == PTX_OP_REG ? find(t->aff, o->name) : NULL;

	x->c = 0;
	if (is_tid_x(o)) {
		x->c = 1;
		sb_adds(&x->base, "0u");
		return 0;
	}
	if (r && r->c && !o->component) {
		x->c = r->c;
		return base_name(t, o->name, &x->base);
	}
	return tr_src(t, in, o, PTX_T_U32, &x->base);
}

static void term_free(struct term *x, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		sb_free(&x[i].base);
}

/* Whether the instruction's modifiers are one 32-bit integer type and,
 * for mul and mad, .lo. */
static int int32_form(const struct ptx_insn *in, int lo)
{
	static const char *const types[] = { ".s32", ".u32", ".b32" };
	uint32_t i, k, ntypes = 0, nlo = 0;

	for (i = 0; i < in->nmods; i++) {
		int type = 0;

		for (k = 0; k < sizeof(types) / sizeof(types[0]); k++)
			type |= !strcmp(in->mods[i], types[k]);
		if (type)
			ntypes++;
		else if (lo && !strcmp(in->mods[i], ".lo"))
			nlo++;
		else
			return 0;
	}
	return ntypes == 1 && nlo == (uint32_t)lo;
}

/* The instructions dest_term follows; F_NONE for the others. */
enum form { F_NONE, F_MOV, F_ADD, F_SUB, F_MUL, F_MAD, F_SHL };

static enum form form_of(const struct ptx_insn *in)
{
	const char *op = in->opcode;
	uint32_t nsrc = in->nops - 1, i;

	for (i = 1; i < in->nops; i++)
		if (in->ops[i].kind != PTX_OP_REG && in->ops[i].kind != PTX_OP_IMM)
			return F_NONE;
	if (!strcmp(op, "mov") && nsrc == 1 && int32_form(in, 0))
		return F_MOV;
	if (!strcmp(op, "add") && nsrc == 2 && int32_form(in, 0))
		return F_ADD;
	if (!strcmp(op, "sub") && nsrc == 2 && int32_form(in, 0))
		return F_SUB;
	if (!strcmp(op, "mul") && nsrc == 2 && int32_form(in, 1))
		return F_MUL;
	if (!strcmp(op, "mad") && nsrc == 3 && int32_form(in, 1))
		return F_MAD;
	if (!strcmp(op, "shl") && nsrc == 2 && in->nmods == 1 && !strcmp(in->mods[0], ".b32") &&
	    in->ops[2].kind == PTX_OP_IMM && in->ops[2].i >= 0 && in->ops[2].i < 32)
		return F_SHL;
	return F_NONE;
}

/* p = x * y as a term, where one side's multiple of tid.x must be 0 and a
 * nonzero multiple may only be scaled by an immediate.  0: not affine. */
static int product(const struct ptx_operand *ox, const struct term *x,
		   const struct ptx_operand *oy, const struct term *y, struct term *p)
{
	if (x->c && y->c)
		return 0;
	if (x->c && oy->kind != PTX_OP_IMM)
		return 0;
	if (y->c && ox->kind != PTX_OP_IMM)
		return 0;
	p->c = x->c ? x->c * (int64_t)(uint32_t)oy->i : y->c * (int64_t)(uint32_t)ox->i;
	sb_addf(&p->base, "(uint32_t)(%s * %s)", x->base.buf, y->base.buf);
	return 1;
}

/* The destination's term, computed from the sources: 1 when it has one. */
static int dest_term(struct tr *t, const struct ptx_insn *in, struct term *d)
{
	struct term s[3] = { { 0, STRBUF_INIT }, { 0, STRBUF_INIT }, { 0, STRBUF_INIT } };
	struct term p = { 0, STRBUF_INIT };
	const struct ptx_operand *o = in->ops;
	const enum form f = form_of(in);
	uint32_t i;
	int ok = 1;

	if (f == F_NONE)
		return 0;
	for (i = 0; i + 1 < in->nops; i++)
		if (term_of(t, in, &o[i + 1], &s[i])) {
			term_free(s, 3);
			return -1;
		}
	switch (f) {
	case F_MOV:
		d->c = s[0].c;
		sb_adds(&d->base, s[0].base.buf);
		break;
	case F_ADD:
	case F_SUB:
		d->c = f == F_ADD ? s[0].c + s[1].c : s[0].c - s[1].c;
		sb_addf(&d->base, "(uint32_t)(%s %c %s)", s[0].base.buf, f == F_ADD ? '+' : '-',
			s[1].base.buf);
		break;
	case F_MUL:
		ok = product(&o[1], &s[0], &o[2], &s[1], d);
		break;
	case F_MAD:
		ok = product(&o[1], &s[0], &o[2], &s[1], &p);
		d->c = p.c + s[2].c;
		sb_addf(&d->base, "(uint32_t)(%s + %s)", p.base.buf ? p.base.buf : "",
			s[2].base.buf);
		break;
	default:        /* F_SHL */
		d->c = s[0].c * (INT64_C(1) << o[2].i);
		sb_addf(&d->base, "(uint32_t)(%s << %d)", s[0].base.buf, (int)o[2].i);
		break;
	}
	sb_free(&p.base);
	term_free(s, 3);
	return ok && d->c && d->c > -AFF_MAX_C && d->c < AFF_MAX_C;
}

/* Before the only write of an eligible register: its base, under the
 * instruction's guard. */
static int def_base(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_operand *o = &in->ops[0];
	struct aff_reg *r = o->kind == PTX_OP_REG ? find(t->aff, o->name) : NULL;
	const struct tr_sym *s = r ? tr_lookup(t, o->name) : NULL;
	struct term d = { 0, STRBUF_INIT };
	struct strbuf name = STRBUF_INIT;
	int rc;

	if (!r || r->defs != 1 || o->component || o->pair || !s || s->type != PTX_T_U32)
		return 0;
	rc = dest_term(t, in, &d);
	if (rc == 1 && !base_name(t, o->name, &name)) {
		sb_addf(&t->locals, "\tuint32_t %s;\n", name.buf);
		tr_lanes_begin(t, in);
		sb_addf(&t->code, "%s = %s;\n", name.buf, d.base.buf);
		tr_lanes_end(t);
		r->c = d.c;
	}
	sb_free(&d.base);
	sb_free(&name);
	return rc < 0 ? -1 : 0;
}

/* The widening instructions this file rewrites: mul.wide and cvt from a
 * 32-bit to a 64-bit integer.  *sign: the source is signed. */
static int widening(const struct ptx_insn *in, int *sign)
{
	if (!strcmp(in->opcode, "mul") && in->nops == 3 && in->nmods == 2 &&
	    !strcmp(in->mods[0], ".wide") &&
	    (!strcmp(in->mods[1], ".s32") || !strcmp(in->mods[1], ".u32"))) {
		*sign = in->mods[1][1] == 's';
		return 1;
	}
	if (!strcmp(in->opcode, "cvt") && in->nops == 2 && in->nmods == 2 &&
	    (!strcmp(in->mods[0], ".s64") || !strcmp(in->mods[0], ".u64")) &&
	    (!strcmp(in->mods[1], ".s32") || !strcmp(in->mods[1], ".u32"))) {
		*sign = in->mods[1][1] == 's';
		return 1;
	}
	return 0;
}

/* d = ok ? the affine form : as before, for a widening whose source (for
 * mul.wide, one of the two) has a base.  1: written, 0: not this case. */
static int wide_affine(struct tr *t, const struct ptx_insn *in)
{
	struct term x[2] = { { 0, STRBUF_INIT }, { 0, STRBUF_INIT } };
	struct strbuf v[2] = { STRBUF_INIT, STRBUF_INIT }, e = STRBUF_INIT;
	uint32_t n = in->nops - 1, i, k;
	int sign, rc = 0;
	const char *w;

	if (!widening(in, &sign))
		return 0;
	w = sign ? "int64_t" : "uint64_t";
	for (i = 0; i < n && !rc; i++)
		rc = term_of(t, in, &in->ops[i + 1], &x[i]) ||
		     tr_src(t, in, &in->ops[i + 1], sign ? PTX_T_S32 : PTX_T_U32, &v[i]) ? -1 : 0;
	k = x[0].c ? 0 : 1;
	if (rc || k >= n || !x[k].c || (n == 2 && x[1 - k].c) || (!sign && x[k].c < 0))
		goto out;
	/* the test, then base + c * x widened (times the other factor) */
	sb_addf(&e, "ag_%cx_ok(%s, %" PRId64 ", ag_ntid0) ? (uint64_t)(((%s)(%s)(%s) + "
		"(%s)%" PRId64 " * (%s)ag_x)", sign ? 's' : 'z', x[k].base.buf, x[k].c, w,
		sign ? "int32_t" : "uint32_t", x[k].base.buf, w, x[k].c, w);
	if (n == 2)
		sb_addf(&e, " * (%s)%s", w, v[1 - k].buf);
	sb_addf(&e, ") : (uint64_t)((%s)%s", w, v[0].buf);
	if (n == 2)
		sb_addf(&e, " * (%s)%s", w, v[1].buf);
	sb_adds(&e, ")");
	tr_lanes_begin(t, in);
	rc = tr_dst(t, in, &in->ops[0], PTX_T_U64, e.buf) ? -1 : 1;
	tr_lanes_end(t);
out:
	term_free(x, 2);
	sb_free(&v[0]);
	sb_free(&v[1]);
	sb_free(&e);
	return rc;
}

int tr_aff_base(struct tr *t, const char *name, struct strbuf *sb)
{
	const struct aff_reg *r = find(t->aff, name);

	return r && r->c && !base_name(t, name, sb);
}

int64_t tr_aff_stride(const struct tr *t, const char *name)
{
	const struct aff_reg *r = t->aff ? find(t->aff, name) : NULL;

	return r ? r->c : 0;
}

/* A shared-memory address through 32-bit register name plus off, whose
 * register has a base: base + c * x + off when that stays in the uint32
 * range for the row (then it is the 32-bit sum), else as before.  A
 * tile's row of threads then stores and loads a vector.  The test leaves
 * room for any offset below AG_SH_ROOM, so that a tile's accesses at
 * several offsets through one register share it: the compiler takes one
 * test out of the thread loop, not one per offset. */
int tr_aff_shared(struct tr *t, const char *name, int64_t off, struct strbuf *sb)
{
	struct strbuf b = STRBUF_INIT, r = STRBUF_INIT;
	const struct aff_reg *a = find(t->aff, name);
	int ok = a && a->c && off >= 0 && off < AG_SH_ROOM && !base_name(t, name, &b) &&
		 !tr_reg_lvalue(t, name, &r);

	if (ok)
		sb_addf(sb, "(sh + (ag_zx_room(%s, %" PRId64 ", ag_ntid0) ? (uint64_t)((int64_t)%s + "
			"(int64_t)%" PRId64 " * (int64_t)ag_x + %" PRId64 ") : "
			"(uint64_t)(uint32_t)(%s + (uint32_t)%" PRId64 ")))",
			b.buf, a->c, b.buf, a->c, off, r.buf, off);
	sb_free(&b);
	sb_free(&r);
	return ok;
}

int tr_aff_insn(struct tr *t, const struct ptx_insn *in)
{
	int rc;

	if (!t->aff || !in->nops)
		return 0;
	rc = wide_affine(t, in);
	if (rc)
		return rc;
	return def_base(t, in);
}
