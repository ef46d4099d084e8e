/*
 * translate_fast.c - the fast path: kernels that cannot observe lockstep
 * run one thread at a time.  That is every kernel whose body and reached
 * functions have no warp operation, no lane-dependent special register,
 * no barrier other than bar.sync 0 in the kernel itself, and no volatile
 * access where shared memory is used (the mark of implicitly
 * warp-synchronous code); kernels whose loops walk memory in the lanes'
 * order (grid-stride loops, loops over global loads without barriers) or
 * compute between barriers run as row groups (group.c) where their
 * control flow allows, else in lockstep, because either is faster for
 * them.  Such a kernel gets a second, scalar translation made by the
 * same emitters with t->scalar set: registers are
 * C locals, each instruction runs once for its thread (under its guard),
 * PTX control flow is labels and gotos, and every reached .func becomes a
 * plain C function ag_sN(w, l, a, ex) of one lane.  The kernel's block
 * function loops over the block's threads and calls the inlined thread
 * body; at a barrier a thread stores its registers in its slot and
 * returns, and the block function runs the next thread, so the code
 * between two barriers runs for all threads in turn.  Frames keep the
 * lockstep shape ([32] rows indexed by the lane l), so .local arrays,
 * call-sequence .params and carry flags are addressed as in lockstep.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

static const char *const lane_sregs[] = {
	"%laneid", "%warpid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
	"%lanemask_gt", "%lanemask_ge",
};

static const char *const warp_ops[] = {
	"shfl", "vote", "match", "redux", "activemask", "elect",
};

int tr_lane_sreg(const char *name)
{
	return tr_in_list(lane_sregs, sizeof(lane_sregs) / sizeof(lane_sregs[0]), name);
}

int tr_warp_op(const char *opcode)
{
	return tr_in_list(warp_ops, sizeof(warp_ops) / sizeof(warp_ops[0]), opcode);
}

/* What the functions a kernel reaches do, as far as the fast path cares. */
struct reach_use {
	int lockstep;           /* needs lockstep: give up */
	int shared;             /* touches .shared memory */
	int volatile_;          /* volatile loads or stores */
	int grid_size;          /* the kernel reads %nctaid */
	int loop;               /* the kernel branches back */
	int loop_loads;         /* ... over loads from global memory */
	int loop_math;          /* ... that compute in floating point */
	int loop_barrier;       /* ... that wait at a barrier each turn */
	int barrier;            /* the kernel has barriers */
	uint32_t flops;         /* the kernel's own floating-point instructions */
	uint32_t accesses;      /* ... and loads and stores (not of parameters) */
};

/* Lane-dependent registers need lockstep; shared variables are noted. */
static void note_operand(const struct tr *t, const struct ptx_operand *o, struct reach_use *u)
{
	const struct tr_sym *s;
	uint32_t i;

	if (o->name) {
		if (tr_lane_sreg(o->name))
			u->lockstep = 1;
		u->grid_size |= !strcmp(o->name, "%nctaid");
		s = tr_msym(t, o->name);
		if (s && (s->kind == TK_SHARED || s->kind == TK_DYNSHARED))
			u->shared = 1;
	}
	for (i = 0; i < o->nelems; i++)
		note_operand(t, &o->elems[i], u);
	if (o->pair)
		note_operand(t, o->pair, u);
}

/* Block barriers (bar.sync 0 and its spellings) are fine in a kernel's
 * own body; bar.warp, bar.red and the rest need lockstep. */
int tr_plain_barrier(const struct ptx_insn *in)
{
	uint32_t i;

	for (i = 0; i < in->nmods; i++)
		if (strcmp(in->mods[i], ".sync") && strcmp(in->mods[i], ".aligned"))
			return 0;
	return tr_is_barrier(in) && in->nops == 1 && in->ops[0].kind == PTX_OP_IMM &&
		in->ops[0].i == 0;
}

static void note_insn(const struct tr *t, const struct ptx_insn *in, int entry,
		      struct reach_use *u)
{
	uint32_t i;

	if (tr_warp_op(in->opcode))
		u->lockstep = 1;
	if (tr_is_barrier(in)) {
		u->lockstep |= !entry || !tr_plain_barrier(in);
		u->barrier = 1;
	}
	for (i = 0; i < in->nmods; i++) {
		u->shared |= !strcmp(in->mods[i], ".shared");
		u->volatile_ |= !strcmp(in->mods[i], ".volatile");
	}
	for (i = 0; i < in->nops; i++)
		note_operand(t, &in->ops[i], u);
}

/* Where the loop that the branch at body[i] closes starts: the index of
 * the label before it that it goes to, or UINT32_MAX. */
static uint32_t loop_start(const struct ptx_func *fn, uint32_t i)
{
	const struct ptx_insn *in = &fn->body[i].u.insn;
	uint32_t j;

	if (strcmp(in->opcode, "bra") || in->nops != 1 || in->ops[0].kind != PTX_OP_SYM)
		return UINT32_MAX;
	for (j = 0; j < i; j++)
		if (fn->body[j].kind == PTX_STMT_LABEL &&
		    !strcmp(fn->body[j].u.label, in->ops[0].name))
			return j;
	return UINT32_MAX;
}

/* What the loop body[from..to] does: loads from global (or generic)
 * memory, floating-point arithmetic, loads and stores of any memory but
 * parameters, barriers. */
struct loop_mix {
	int global_loads;
	int barrier;
	int slow_math;          /* a division, root or transcendental */
	uint32_t flops;
	uint32_t accesses;
};

/* Instructions whose vector forms do no more elements a cycle at twice
 * the width: division, roots, approximations of transcendentals. */
static const char *const slow_math[] = {
	"div", "sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh",
};

static void loop_mix(const struct ptx_func *fn, uint32_t from, uint32_t to, struct loop_mix *x)
{
	static const char *const other[] = { ".shared", ".local", ".param", ".const" };
	static const char *const moves[] = { "mov", "cvt", "st" };
	static const char *const floats[] = { ".f32", ".f64" };
	uint32_t i, k;

	memset(x, 0, sizeof(*x));
	for (i = from; i <= to; i++) {
		const struct ptx_insn *in = &fn->body[i].u.insn;
		int global = 1, fl = 0;

		if (fn->body[i].kind != PTX_STMT_INSN)
			continue;
		for (k = 0; k < in->nmods; k++) {
			global &= !tr_in_list(other, sizeof(other) / sizeof(other[0]), in->mods[k]);
			fl |= tr_in_list(floats, sizeof(floats) / sizeof(floats[0]), in->mods[k]);
		}
		x->slow_math |= tr_in_list(slow_math, sizeof(slow_math) / sizeof(slow_math[0]),
					   in->opcode);
		x->barrier |= tr_is_barrier(in);
		if (tr_is_load(in))
			x->global_loads |= global;
		else if (fl && !tr_in_list(moves, sizeof(moves) / sizeof(moves[0]), in->opcode))
			x->flops++;
		if ((tr_is_load(in) || !strcmp(in->opcode, "st")) && !tr_has(in, ".param"))
			x->accesses++;
	}
}

static void note_func(const struct tr *t, uint32_t f, int entry, struct reach_use *u)
{
	const struct ptx_func *fn = &t->m->funcs[f];
	struct loop_mix x;
	uint32_t i;

	/* an mbarrier wait needs the other threads to run meanwhile */
	if ((t->fi[f].flags & AG_KF_WARP) || t->fi[f].spins)
		u->lockstep = 1;
	u->shared |= t->fi[f].shared_end != 0;
	if (entry && fn->nbody) {
		loop_mix(fn, 0, fn->nbody - 1, &x);
		u->flops = x.flops;
		u->accesses = x.accesses;
	}
	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_stmt *s = &fn->body[i];

		if (s->kind == PTX_STMT_DECL && s->u.decl.space == PTX_SPACE_SHARED)
			u->shared = 1;
		if (s->kind == PTX_STMT_INSN) {
			uint32_t start = entry ? loop_start(fn, i) : UINT32_MAX;

			note_insn(t, &s->u.insn, entry, u);
			if (start == UINT32_MAX)
				continue;
			loop_mix(fn, start, i, &x);
			u->loop = 1;
			u->loop_loads |= x.global_loads;
			u->loop_math |= x.flops >= 8;
			u->loop_barrier |= x.barrier;
		}
	}
}

/* What kernel entry and the functions it reaches (seen) do. */
static void note_reached(const struct tr *t, uint32_t entry, const uint8_t *seen,
			 struct reach_use *u)
{
	uint32_t f;

	for (f = 0; f < t->m->nfuncs; f++)
		if (seen[f])
			note_func(t, f, f == entry, u);
}

/* A register declaration of the scalar translation: C locals, noted for
 * the barriers that store them into a thread's slot. */
void tr_fast_locals(struct tr *t, struct tr_sym *s)
{
	uint32_t i;

	s->local = 1;
	if (t->nregs == t->capregs) {
		t->capregs = t->capregs ? 2 * t->capregs : 64;
		t->regs = xrealloc(t->regs, t->capregs * sizeof(*t->regs));
	}
	t->regs[t->nregs++] = *s;
	if (t->shape) {
		for (i = 0; i < (s->range ? s->range : 1); i++)
			tr_group_local(t, s, i);
		return;
	}
	sb_addf(&t->locals, "\t%s", tr_ctype(s->type));
	for (i = 0; i < (s->range ? s->range : 1); i++) {
		sb_adds(&t->locals, i ? ", " : " ");
		tr_local_name(s, i, &t->locals);
	}
	sb_adds(&t->locals, ";\n");
}

/*
 * AG_SAVE<f>_<k> and AG_RESTORE<f>_<k>: the registers live after barrier
 * k stored into the block's columns of saved registers and loaded back.
 * Each register live after some barrier has a column of nt 8-byte cells,
 * thread t's at index t (cols: how many), so that the threads of a row,
 * run by one loop, store and load consecutive elements: in the threads'
 * own slots they were 1 KB apart, which the C compiler does not make
 * vector code of.
 */
/* local, of C type ty, kept in column col after each barrier where
 * register name is live: whether it is after some. */
static int keep_in_column(const struct tr *t, const struct tr_live *lv, const char *name,
			  const char *ty, uint32_t col, const char *local, struct strbuf *save,
			  struct strbuf *load)
{
	int used = 0;
	uint32_t k;

	for (k = 1; k <= t->nresume; k++) {
		if (!tr_live_after(lv, k, name))
			continue;
		used = 1;
		sb_addf(&save[k], " ((%s *)(A + (size_t)%u * 8 * nt_))[t_] = %s;", ty, col, local);
		sb_addf(&load[k], " %s = ((%s *)(A + (size_t)%u * 8 * nt_))[t_];", local, ty, col);
	}
	return used;
}

static void emit_slot_macros(struct tr *t, const struct tr_live *lv, struct strbuf *out)
{
	struct strbuf *save = xcalloc(t->nresume + 1, sizeof(*save));
	struct strbuf *load = xcalloc(t->nresume + 1, sizeof(*load));
	struct strbuf name = STRBUF_INIT, local = STRBUF_INIT;
	const char *p, *nl;
	uint32_t i, j, k, cols = 0;

	for (i = 0; i < t->nregs; i++) {
		const struct tr_sym *s = &t->regs[i];

		for (j = 0; j < (s->range ? s->range : 1); j++) {
			/* the PTX name, the C local, its column */
			sb_reset(&name);
			tr_ptx_name(s, j, &name);
			if (tr_remat_has(t->remat, name.buf))
				continue;
			sb_reset(&local);
			tr_local_name(s, j, &local);
			if (!keep_in_column(t, lv, name.buf, tr_ctype(s->type), cols, local.buf, save, load))
				continue;
			cols++;
			/* its base (affine.c) in a column of its own */
			sb_reset(&local);
			if (tr_aff_base(t, name.buf, &local))
				cols += keep_in_column(t, lv, name.buf, "uint32_t", cols, local.buf,
						       save, load);
		}
	}
	/* the registers remat.c found are computed again after each barrier */
	sb_addf(out, "#define AG_REMAT%u \\\n", t->fidx);
	for (p = tr_remat_code(t->remat); (nl = strchr(p, '\n')); p = nl + 1) {
		sb_add(out, p, (size_t)(nl - p));
		sb_adds(out, " \\\n");
	}
	sb_addf(out, "%s\n", p);
	for (k = 1; k <= t->nresume; k++) {
		sb_addf(out, "#define AG_SAVE%u_%u%s\n#define AG_RESTORE%u_%u%s AG_REMAT%u\n",
			t->fidx, k, save[k].buf ? save[k].buf : "", t->fidx, k,
			load[k].buf ? load[k].buf : "", t->fidx);
		sb_free(&save[k]);
		sb_free(&load[k]);
	}
	sb_addf(out, "#define AG_COLS%u %u\n", t->fidx, cols);
	free(save);
	free(load);
	sb_free(&name);
	sb_free(&local);
}

/* What a thread does when it leaves by exit: a kernel's thread returns, a
 * function tells its caller. */
static const char *exit_stmt(const struct tr *t)
{
	return t->fn->is_entry ? "return;" : "{ *ex = 1; return; }";
}

static int scalar_branch(struct tr *t, const struct ptx_insn *in)
{
	uint32_t to;

	if (tr_branch_target(t, in, &to))
		return -1;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "goto ag_L%u;\n", to);
	tr_lanes_end(t);
	return 0;
}

/* bar.sync 0: the thread stores its registers, tells the block function
 * where it waits and returns; it is called again, once every thread has
 * arrived or exited, to resume there. */
static int scalar_barrier(struct tr *t, const struct ptx_insn *in)
{
	uint32_t k = ++t->nresume;

	if (!t->fn->is_entry || !tr_plain_barrier(in))
		return tr_unsupported(t, in, "barrier in the fast path");
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "*ex = %u; AG_SAVE%u_%u return;\nag_R%u:; AG_RESTORE%u_%u\n",
		k, t->fidx, k, k, t->fidx, k);
	tr_lanes_end(t);
	return 0;
}

static int scalar_ret(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, ".uni", NULL, 0, NULL) || tr_nops(t, in, 0, 0))
		return -1;
	tr_lanes_begin(t, in);
	sb_adds(&t->code, "return;\n");
	tr_lanes_end(t);
	return 0;
}

static int scalar_exit(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, "", NULL, 0, NULL) || tr_nops(t, in, 0, 0))
		return -1;
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "%s\n", exit_stmt(t));
	tr_lanes_end(t);
	return 0;
}

tr_emit_fn tr_fast_flow(const char *opcode)
{
	static const struct {
		const char *op;
		tr_emit_fn fn;
	} tab[] = {
		{ "bra", scalar_branch }, { "ret", scalar_ret }, { "exit", scalar_exit },
		{ "bar", scalar_barrier }, { "barrier", scalar_barrier },
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(opcode, tab[i].op))
			return tab[i].fn;
	return NULL;
}

/* A call of one thread.  A direct call runs the callee's scalar version;
 * a call through a pointer runs the lockstep function it points to with
 * this lane alone active, which is exact for the same reasons. */
int tr_fast_call(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *rets,
		 const struct ptx_operand *args, const struct ptx_operand *target,
		 uint32_t callee)
{
	const struct ptx_func *f = callee == UINT32_MAX ? NULL : &t->m->funcs[callee];
	uint32_t nr = rets ? rets->nelems : 0, na = args ? args->nelems : 0, i;
	struct strbuf e = STRBUF_INIT;

	if (f && (nr != f->nrets || na != f->nparams))
		return tr_fail(t, in->line, "call to '%s' with %u results and %u arguments; it "
			       "takes %u and %u", f->name, nr, na, f->nrets, f->nparams);
	if (!f && tr_src(t, in, target, PTX_T_U64, &e)) {
		sb_free(&e);
		return -1;
	}
	tr_lanes_begin(t, in);
	sb_adds(&t->code, "unsigned char *const ca[] = { ");
	for (i = 0; i < nr + na; i++) {
		const struct ptx_operand *o = i < nr ? &rets->elems[i] : &args->elems[i - nr];
		const struct ptx_var *want = !f ? NULL : i < nr ? &f->rets[i] : &f->params[i - nr];

		if (tr_call_arg(t, in, o, want, &t->code)) {
			sb_free(&e);
			return -1;
		}
		sb_adds(&t->code, "[0], ");
	}
	if (f)
		sb_addf(&t->code, "NULL };\n\t\t\tuint8_t ex_ = 0;\n\t\t\tag_s%u(w, l, ca, &ex_);\n"
			"\t\t\tif (b->error) return;\n\t\t\tif (ex_) %s\n", callee, exit_stmt(t));
	else
		sb_addf(&t->code, "NULL };\n\t\t\tuint8_t cm[32] = { 0 };\n\t\t\tcm[l] = 1;\n"
			"\t\t\t((ag_func_fn)(uintptr_t)(%s))(w, cm, ca);\n"
			"\t\t\tif (b->error) return;\n\t\t\tif (!cm[l]) %s\n", e.buf, exit_stmt(t));
	tr_lanes_end(t);
	sb_free(&e);
	return 0;
}

/* A kernel's thread body starts where *ex says (0: at the top, k: after
 * its k'th barrier) and sets it to where it waits (~0u: finished). */
static void emit_resume(struct tr *t, struct strbuf *out)
{
	uint32_t k;

	emit_slot_macros(t, t->nresume ? tr_liveness(t) : NULL, out);
	sb_adds(out, "\tconst unsigned at = *ex;\n\n\t*ex = ~0u;\n\tswitch (at) {\n");
	for (k = 1; k <= t->nresume; k++)
		sb_addf(out, "\tcase %u: goto ag_R%u;\n", k, k);
	sb_adds(out, "\tdefault: break;\n\t}\n");
}

/* The scalar function of the function just translated: ag_sN for a
 * .func (its frame on the stack), the always-inlined thread body ag_tN
 * for a kernel (its frame and registers kept in the thread's slot S
 * across barriers; its global loads and stores tell their addresses to
 * ag_rec unless it is NULL, ag_prefetch_block). */
void tr_fast_function(struct tr *t, uint32_t fidx, struct strbuf *out)
{
	int entry = t->fn->is_entry;

	sb_addf(out, "/* %s %s, one thread */\nstruct ag_sf%u {\n\tstruct ag_lanes ln;\n%s};\n\n",
		entry ? ".entry" : ".func", t->fn->name, fidx, t->frame.buf ? t->frame.buf : "");
	if (entry)
		/* the launch's sizes, the parameters and threadIdx come from the
		 * block function, where the thread loop sees that they do not
		 * change; threadIdx.x is the loop's variable ag_x */
		sb_addf(out, "struct ag_sv%u {\n\tstruct ag_sf%u fr;\n};\n\n"
			"static inline __attribute__((always_inline)) void ag_t%u(struct ag_warp *w, "
			"const unsigned l, unsigned char *const *a, unsigned *ex, struct ag_sv%u *S,\n"
			"\tconst unsigned char *const prm, const struct ag_dims *const d, "
			"const int32_t ag_x, const uint32_t ag_tid1, const uint32_t ag_tid2,\n"
			"\tstruct ag_block *const b, unsigned char *const sh,\n"
			"\tunsigned char *const A, const size_t nt_, const size_t t_, "
			"uintptr_t *const ag_rec)\n"
			"{\n\tstruct ag_sf%u *const W = &S->fr;\n"
			"\tconst uint32_t ag_tid0 = (uint32_t)ag_x;\n",
			fidx, fidx, fidx, fidx, fidx);
	else
		sb_addf(out, "static void ag_s%u(struct ag_warp *w, const unsigned l, "
			"unsigned char *const *a, uint8_t *ex)\n"
			"{\n\tstruct ag_sf%u fr, *const W = &fr;\n"
			"\tconst struct ag_dims dims = ag_dims_of(w->b), *const d = &dims;\n"
			"\tconst unsigned char *const prm = w->b->env->params;\n"
			"\tconst uint32_t ag_tid0 = w->tid[0][l], ag_tid1 = w->tid[1][l], "
			"ag_tid2 = w->tid[2][l];\n"
			"\tstruct ag_block *const b = w->b;\n"
			"\tunsigned char *const sh = b->shared;\n", fidx, fidx);
	sb_adds(out, "\tconst uint32_t ag_ntid0 = d->ntid[0], ag_ntid1 = d->ntid[1], ag_ntid2 = d->ntid[2];\n"
		"\tconst uint32_t ag_ctaid0 = d->ctaid[0], ag_ctaid1 = d->ctaid[1], "
		"ag_ctaid2 = d->ctaid[2];\n"
		"\tconst uint32_t ag_nctaid0 = d->nctaid[0], ag_nctaid1 = d->nctaid[1], "
		"ag_nctaid2 = d->nctaid[2];\n");
	sb_addf(out, "%s\n\t(void)W; (void)sh; (void)prm; (void)a; (void)ex;%s\n",
		t->locals.buf ? t->locals.buf : "",
		entry ? " (void)A; (void)nt_; (void)t_; (void)ag_rec;" : "");
	if (entry)
		emit_resume(t, out);
	sb_addf(out, "%s}\n\n", t->code.buf ? t->code.buf : "");
}

/* Prototypes first (the functions may call each other in any order), then
 * the scalar translation of every reached .func not translated yet. */
static int emit_funcs(struct tr *t, const uint8_t *seen, uint32_t entry, struct strbuf *out)
{
	uint32_t f;

	for (f = 0; f < t->m->nfuncs; f++)
		if (seen[f] && f != entry && !t->scalar_done[f])
			sb_addf(out, "static void ag_s%u(struct ag_warp *w, const unsigned l, "
				"unsigned char *const *a, uint8_t *ex);\n", f);
	for (f = 0; f < t->m->nfuncs; f++) {
		if (!seen[f] || f == entry || t->scalar_done[f])
			continue;
		t->scalar_done[f] = 1;
		if (tr_function(t, f, out))
			return -1;
	}
	return 0;
}

/* The parameters, prm: a copy of the launch's (copy), or those. */
static void emit_params(uint32_t psize, int copy, struct strbuf *out)
{
	if (copy)
		sb_addf(out, "\t_Alignas(16) unsigned char prm[%u];\n\n"
			"\tmemcpy(prm, env->params, %u);\n", psize ? psize : 1, psize);
	else
		sb_adds(out, "\tconst unsigned char *const prm = env->params;\n\n");
}

/* The start of both block functions: the launch's sizes, and the
 * parameters copied into the block function's own array when no device
 * function needs their original addresses (isspacep.param compares with
 * them): the thread loop then knows that stores to device memory do not
 * change them.  wide: the threads compute far more than they load and
 * store, and the thread loop asks for the widest vectors (AG_WIDE).
 * rows: the block function moves d along a row of blocks (AG_KF_ROWS). */
static void emit_block_start(const char *name, uint32_t entry, uint32_t psize, int copy, int wide,
			     int rows, struct strbuf *out)
{
	sb_addf(out, "%sstatic void %s%u(struct ag_block *b)\n{\n"
		"\tconst struct ag_kernel_env *env = b->env;\n"
		"\t%sstruct ag_dims d = ag_dims_of(b);\n"
		"\tunsigned char *const sh = b->shared;\n", wide ? "AG_WIDE " : "", name, entry,
		rows ? "" : "const ");
	emit_params(psize, copy, out);
}

/* The block function's memory (ag_scratch): n parts, sizes their sizes
 * (C expressions, comma-separated), at ag_mem + ag_at[k]; when there is
 * none, the launch fails. */
static void emit_scratch(unsigned n, const char *sizes, struct strbuf *out)
{
	sb_addf(out, "\tconst size_t ag_size[%u] = { %s };\n\tsize_t ag_at[%u];\n"
		"\tunsigned char *const ag_mem = ag_scratch(b, %u, ag_size, ag_at);\n\n"
		"\tif (!ag_mem) {\n"
		"\t\tenv->svc->fault(b, 2, \"out of memory for the block's threads\");\n"
		"\t\treturn;\n\t}\n", n, sizes, n, n);
}

/* The one warp, without a scratch of its own, of a block function whose
 * threads or groups run one at a time (w). */
static void emit_lone_warp(uint32_t dyn, uint32_t psize, struct strbuf *out)
{
	sb_addf(out, "\tstruct ag_warp w = { .b = b, .nw = (d.ntid[0] * d.ntid[1] * d.ntid[2] + 31) / 32, "
		".dyn = %u, .psize = %u };\n", dyn, psize);
}

/* The block function of a kernel without barriers: each thread runs to
 * its end before the next starts, so one slot serves them all, as lane 0
 * of a warp whose thread indices are the running thread's.  The loop over
 * threadIdx.x has no exit but its end, so that the C compiler may turn it
 * into vector code; a thread that fails the launch (trap, assert) thus
 * lets the rest of its row of threads run, as other threads of a GPU run
 * on meanwhile.  With row groups (group.c), a call of the group function
 * runs AG_PARTSN groups of AG_G threads (ag_gparts), and the threads of a
 * call whose widening found its lanes across the wrap, before any store,
 * run one at a time instead.
 *
 * Without row groups, a call runs b->nb blocks of one row of the grid
 * (AG_KF_ROWS), each row of threads of every block before the next row
 * of threads: a 2D block's rows are short (a 5-point stencil's blocks of
 * 32 x 8 read ten rows of the grid 128 bytes at a time), and a row of
 * threads across the blocks is a row of the arrays, which the hardware's
 * prefetchers follow.  A kernel that sees its thread only through the
 * grid-wide index (tr_index_only) runs that row of threads as one loop. */
/* The call of thread x, y, z of a block function's thread loop, which
 * records its addresses in rec (or NULL). */
static void thread_call(struct strbuf *out, const char *indent, uint32_t entry, const char *x,
			const char *rec)
{
	sb_addf(out, "%sw.tid[0][0] = (uint32_t)(%s);\n%sw.tid[1][0] = y;\n%sw.tid[2][0] = z;\n"
		"%sex = 0;\n%sag_t%u(&w, 0, NULL, &ex, S, prm, &d, %s, y, z, b, sh, NULL, 0, 0, %s);\n",
		indent, x, indent, indent, indent, indent, entry, x, rec);
}

/* The lone warp's frame: the thread's slot S. */
static void emit_lone_frame(struct strbuf *out)
{
	sb_adds(out, "\tw.lframe = (const unsigned char *)S;\n\tw.lsize = sizeof(*S);\n"
		"\tw.stack_hi = (uintptr_t)__builtin_frame_address(0);\n");
}

/* What the block functions that run their threads one at a time without
 * barriers declare: the lone warp, and the thread's slot S. */
static void emit_plain_start(uint32_t entry, uint32_t dyn, uint32_t psize, struct strbuf *out)
{
	struct strbuf sizes = STRBUF_INIT;

	sb_adds(out, "\tconst int32_t nx = (int32_t)d.ntid[0];\n\tunsigned y, z, ex;\n");
	emit_lone_warp(dyn, psize, out);
	sb_addf(&sizes, "1 * sizeof(struct ag_sv%u)", entry);
	emit_scratch(1, sizes.buf, out);
	sb_free(&sizes);
	sb_addf(out, "\tstruct ag_sv%u *const S = (struct ag_sv%u *)ag_mem;\n\n", entry, entry);
	emit_lone_frame(out);
}

/* The thread loop of one row of threads of a block, x from 0 to xe, of a
 * kernel that records its addresses (records): its first and its last
 * thread record them, and the reach of each site between the two, moved
 * on as far as the row before moved it, is asked for (ag_prefetch_ahead):
 * threads that each reach a few places a block's width apart (a scan's
 * offsets added to four elements 256 apart) walk that many streams
 * across a page, which the hardware's prefetchers do not follow (one
 * thread, such a loop in plain C: 6 -> 2.4 ms, told of the block two on;
 * the elements in order, 2.3). */
static void emit_thread_row(uint32_t entry, int records, struct strbuf *out)
{
	if (!records) {
		sb_adds(out, "\t\t\tfor (int32_t x = 0; x < xe; x++) {\n");
		thread_call(out, "\t\t\t\t", entry, "x", "NULL");
		sb_adds(out, "\t\t\t}\n");
		return;
	}
	sb_adds(out, "\t\t\tuintptr_t first[AG_REC_SLOTS] = { 0 }, last[AG_REC_SLOTS] = { 0 };\n\n");
	thread_call(out, "\t\t\t", entry, "0", "first");
	sb_adds(out, "\t\t\tfor (int32_t x = 1; x < xe - 1; x++) {\n");
	thread_call(out, "\t\t\t\t", entry, "x", "NULL");
	sb_adds(out, "\t\t\t}\n\t\t\tif (xe > 1) {\n");
	thread_call(out, "\t\t\t\t", entry, "xe - 1", "last");
	sb_adds(out, "\t\t\t}\n\t\t\tag_prefetch_ahead(seen, first, last);\n");
}

static void emit_block_plain(uint32_t entry, uint32_t dyn, uint32_t psize, int copy, int wide,
			     int group, int row, int records, struct strbuf *out)
{
	emit_block_start("ag_k", entry, psize, copy, wide, !group, out);
	emit_plain_start(entry, dyn, psize, out);
	if (!group) {
		/* with row, one block as wide as the row (tr_index_only), in
		 * spans whose threads' x fit an int32_t: one loop over the row,
		 * where a loop per block of 32 threads cost a 5-point stencil an
		 * eighth of its time (one thread, 10.7 -> 9.4 ms; vecadd 7.2 ->
		 * 6.85); not in a kernel bound by arithmetic (Black-Scholes, 32 ->
		 * 33.5 ms) */
		sb_addf(out, "\tconst unsigned c0 = b->ctaid[0], nb = b->nb, span = %s;\n%s\n"
			"\tfor (z = 0; z < d.ntid[2]; z++)\n"
			"\t\tfor (y = 0; y < d.ntid[1] && !b->error; y++)\n"
			"\t\t\tfor (unsigned b0 = 0; b0 < nb; b0 += span) {\n"
			"\t\t\tconst int32_t xe = nx * (int32_t)(nb - b0 < span ? nb - b0 : span);\n\n"
			"\t\t\tag_at_block(b, &d, c0 + b0);\n",
			row ? "(unsigned)(INT32_MAX / nx)" : "1",
			records ? "\tuintptr_t seen[AG_REC_SLOTS] = { 0 };\n" : "");
		emit_thread_row(entry, records, out);
		sb_adds(out, "\t\t\t}\n}\n\n");
		return;
	}
	sb_addf(out, "\tconst uint32_t ngx = ((uint32_t)nx + AG_G - 1) / AG_G;\n"
		"\tconst unsigned nq = ngx * d.ntid[1] * d.ntid[2];\n\n"
		"\tfor (unsigned q = 0; q < nq && !b->error; q += AG_PARTS%u) {\n"
		"\t\tuint32_t px[AG_PARTS%u], py[AG_PARTS%u], pz[AG_PARTS%u];\n"
		"\t\tunsigned at = 0, k;\n\n"
		"\t\tag_gparts(q, AG_PARTS%u, nq, ngx, &d, px, py, pz);\n"
		"\t\tif (ag_g%u(NULL, &at, &w, prm, &d, px, py, pz, (uint32_t)nx, b, sh))\n"
		"\t\t\tcontinue;\n"
		"\t\tfor (k = 0; k < AG_PARTS%u; k++) {\n"
		"\t\t\ty = py[k];\n\t\t\tz = pz[k];\n"
		"\t\t\tfor (int32_t x = (int32_t)px[k]; x < nx && x - (int32_t)px[k] < AG_G; x++) {\n",
		entry, entry, entry, entry, entry, entry, entry);
	thread_call(out, "\t\t\t\t", entry, "x", "NULL");
	sb_adds(out, "\t\t\t}\n\t\t}\n\t}\n}\n\n");
}

void tr_emit_block_run(struct strbuf *out, const char *indent, uint32_t entry, uint32_t dyn,
		       int co, uint32_t psize)
{
	sb_addf(out, "%sag_block_run(b, sizeof(struct ag_fr%u), ag_run%u, %u, %d, %u);\n", indent,
		entry, entry, dyn, co, psize);
}

void tr_emit_lockstep_block(struct strbuf *out, const char *name, uint32_t entry, uint32_t dyn,
			    int co, uint32_t psize)
{
	sb_addf(out, "static void %s%u(struct ag_block *b)\n{\n", name, entry);
	tr_emit_block_run(out, "\t", entry, dyn, co, psize);
	sb_adds(out, "}\n\n");
}

/* A sweep's call of thread x in the virtual block dims says; turn is
 * what the thread body reads as nt_, 0 in a thread's first turn only
 * (stride.c): a constant 1 in turns that share a loop lets the C compiler
 * drop the first turn's code from them. */
static void sweep_call(struct strbuf *out, const char *indent, uint32_t entry, const char *dims,
		       const char *turn)
{
	sb_addf(out, "%sag_t%u(w, 0, NULL, &ex, S, prm, &%s, x, 0, 0, b, sh, A, %s, "
		"(size_t)x, NULL);\n", indent, entry, dims, turn);
}

/* How many whole turns at most share a loop over the stretch
 * (emit_fused_turns), when the loop carries registers and when not. */
#define SWEEP_FUSE_CARRIED 4
#define SWEEP_FUSE 2

/* Turns k .. k + f - 1 in one loop over the stretch, when all are whole:
 * each thread's turn k, then its k + 1, and so on, the virtual blocks'
 * dims in dv. */
static void emit_fused_turns(struct strbuf *out, uint32_t entry, unsigned f)
{
	char dims[16];
	unsigned j;

	sb_addf(out, "\t\tif (k && left - (int64_t)%u * d.nctaid[0] * nx >= (int64_t)m * nx) {\n",
		f - 1);
	for (j = 0; j < f; j++)
		sb_addf(out, "\t\t\tdv[%u] = d;\n\t\t\tdv[%u].ctaid[0] = (uint32_t)(v0 + %u * "
			"(int64_t)d.nctaid[0]);\n", j, j, j);
	sb_adds(out, "\t\t\tfor (int32_t x = 0; x < xe; x++) {\n");
	for (j = 0; j < f; j++) {
		snprintf(dims, sizeof(dims), "dv[%u]", j);
		sweep_call(out, "\t\t\t\t", entry, dims, "1");
	}
	sb_addf(out, "\t\t\t}\n\t\t\tk += %u;\n\t\t\tcontinue;\n\t\t}\n", f - 1);
}

/* The sweep of a grid-stride loop (stride.c) over the m blocks from c of
 * the row: turn k of them is one virtual block k * nctaid + c ... of as
 * many threads as they have (the body sees the thread only through i =
 * its block * ntid + its thread), up to the first thread at n or past it;
 * the first turn runs every thread, so that each gets its carried
 * registers' first values, and only the first tests the guard before the
 * loop (stride.c).  One loop over the whole stretch, not one per block:
 * 256 threads a loop cost a reduction's sweep 4.3 ms against 3.1 (one
 * thread, the same loop written by hand).  Whole turns after the first
 * share a loop, each thread's turn k then its k + 1 and on, so that a
 * carried sum stays in a register from one to the next and goes to
 * memory and back once a few turns (the reduction, one thread: 6.1 -> 4.4
 * ms with two turns a loop and the guard tested once, 4.7 -> 4.1 with
 * four).  Without carried registers two: four streams in and four out
 * made a SAXPY's sweep 4.8 -> 7.5 ms.  A thread keeps its carried
 * registers in A, at its place in the stretch. */
static void emit_sweep(uint32_t entry, unsigned slot, struct strbuf *out)
{
	unsigned f;

	sb_addf(out, "static inline __attribute__((always_inline)) void ag_sweep%u("
		"struct ag_block *const b, struct ag_warp *const w,\n"
		"\tstruct ag_sv%u *const S, unsigned char *const A, const unsigned char *const prm,\n"
		"\tstruct ag_dims d, const int64_t n, const unsigned c, const unsigned m)\n{\n"
		"\tunsigned char *const sh = b->shared;\n"
		"\tconst int32_t nx = (int32_t)d.ntid[0];\n"
		"\tunsigned ex = 0;\n"
		"\tstruct ag_dims dv[%u];\n\n"
		"\tfor (int64_t k = 0; !b->error && (!k || (k * d.nctaid[0] + c) * nx < n); k++) {\n"
		"\t\tconst int64_t v0 = k * d.nctaid[0] + c, left = n - v0 * nx;\n"
		"\t\tconst int32_t xe = (int32_t)(!k || left > (int64_t)m * nx ? (int64_t)m * nx : left);\n\n"
		"\t\td.ctaid[0] = (uint32_t)v0;\n", entry, entry, SWEEP_FUSE_CARRIED);
	for (f = slot ? SWEEP_FUSE_CARRIED : SWEEP_FUSE; f > 1; f /= 2)
		emit_fused_turns(out, entry, f);
	sb_adds(out, "\t\tfor (int32_t x = 0; x < xe; x++)\n");
	sweep_call(out, "\t\t\t", entry, "d", "(size_t)k");
	sb_adds(out, "\t}\n}\n\n");
}

/* What the text cannot tell, checked at the start of a sweep's block
 * function: a 1D grid of 1D blocks, and no thread's i past the bound's
 * type (n - 1 + T).  Ends with the test's opening brace: what follows runs
 * when the launch may not be swept. */
static void emit_sweep_checks(const struct tr_stride *st, struct strbuf *out)
{
	const char *ty = st->unsigned_bound ? "uint32_t" : "int32_t";
	const char *max = st->unsigned_bound ? "UINT32_MAX" : "INT32_MAX";

	sb_adds(out, "\t/* a grid-stride loop, turn by turn (stride.c) */\n"
		"\tconst int64_t T = (int64_t)d.ntid[0] * d.nctaid[0];\n");
	if (!st->wide)
		sb_addf(out, "\tconst int64_t n = ag_ld(%s, prm + %u);\n"
			"\tconst int bad = T > %s || n - 1 + T > %s;\n", ty, st->bound, max, max);
	else
		/* the virtual blocks' indices in 32 bits, and an index made in
		 * 32 bits below 2^32 */
		sb_addf(out, "\tconst uint64_t nw = ag_ld(uint64_t, prm + %u), most = %s;\n"
			"\tconst int bad = %s > (int64_t)most;\n"
			"\tconst int64_t n = bad ? 0 : (int64_t)nw;\n", st->bound,
			st->index32 ? "(uint64_t)1 << 32" : "(uint64_t)d.ntid[0] * UINT32_MAX",
			st->unsigned_bound ? "nw > most || T" : "(int64_t)nw > (int64_t)most || T");
	sb_adds(out, "\n\tif (d.ntid[1] != 1 || d.ntid[2] != 1 || d.nctaid[1] != 1 || d.nctaid[2] != 1 ||\n"
		"\t    bad) {\n");
}

/* A sweep's memory, the worker's carry memory (b->carry when the blocks
 * then run in lockstep): the carried registers of count blocks' threads
 * (A), then the thread's slot S, which the scratch memory's growing for
 * those blocks leaves in place; out of memory, the block function returns
 * ret. */
static void emit_sweep_memory(uint32_t entry, unsigned slot, const char *count, const char *ret,
			      struct strbuf *out)
{
	sb_addf(out, "\tconst size_t at = ((size_t)%s * nx * %u + 63) / 64 * 64;\n"
		"\tunsigned char *const A = env->svc->carry(b, at + sizeof(struct ag_sv%u));\n\n"
		"\tif (!A) {\n"
		"\t\tenv->svc->fault(b, 2, \"out of memory for the loop's registers\");\n"
		"\t\treturn%s;\n\t}\n"
		"\tstruct ag_sv%u *const S = (struct ag_sv%u *)(A + at);\n\n",
		count, slot, entry, ret, entry, entry);
	emit_lone_frame(out);
}

/* The block function of a kernel whose grid-stride loop is swept over
 * several blocks (stride.c): as many at a time as keep the carry memory
 * within AG_SWEEP_CARRY, a fault naming the first of them.  When the
 * kernel goes on after the loop, the blocks then run in lockstep, which
 * takes the carried registers up at END (b->carry).  A launch the sweep
 * may not take runs in lockstep from the start. */
static void emit_block_stride(uint32_t entry, uint32_t dyn, uint32_t psize,
			      const struct tr_stride *st, int group, struct strbuf *out)
{
	const unsigned slot = st->slot;

	emit_sweep(entry, slot, out);
	emit_block_start("ag_k", entry, psize, 1, 0, 1, out);
	emit_sweep_checks(st, out);
	tr_emit_block_run(out, "\t\t", entry, dyn, 0, psize);
	sb_adds(out, "\t\treturn;\n\t}\n");
	sb_adds(out, "\tconst int32_t nx = (int32_t)d.ntid[0];\n");
	emit_lone_warp(dyn, psize, out);
	sb_adds(out, "\tconst unsigned c0 = b->ctaid[0], nb = b->nb, per = ");
	if (slot)
		sb_addf(out, "ag_sweep_blocks(nb, nx, %u);\n", slot);
	else
		sb_adds(out, "nb;\n");
	emit_sweep_memory(entry, slot, "per", "", out);
	sb_addf(out, "\tfor (unsigned g = 0; g < nb && !b->error; g += per) {\n"
		"\t\tconst unsigned m = nb - g < per ? nb - g : per;\n\n"
		"\t\t*(volatile unsigned *)&b->ctaid[0] = c0 + g;\n"
		"\t\tag_sweep%u(b, &w, S, A, prm, d, n, c0 + g, m);\n", entry);
	if (st->split && group) {
		sb_addf(out, "\t\tb->nb = 1;\n\t\tb->carry = A;\n\t\tb->carry_c0 = c0 + g;\n"
			"\t\tfor (unsigned j = 0; j < m && !b->error; j++) {\n"
			"\t\t\tb->ctaid[0] = c0 + g + j;\n\t\t\tag_kg%u(b);\n\t\t}\n"
			"\t\tb->carry = NULL;\n", entry);
	} else if (st->split) {
		sb_adds(out, "\t\tb->ctaid[0] = c0 + g;\n\t\tb->nb = m;\n"
			"\t\tb->carry = A;\n\t\tb->carry_c0 = c0 + g;\n");
		tr_emit_block_run(out, "\t\t", entry, dyn, 0, psize);
		sb_adds(out, "\t\tb->carry = NULL;\n");
	}
	sb_adds(out, "\t}\n}\n\n");
}

/* A kernel whose loop each block sweeps for its own threads (stride.c,
 * in_block): its blocks run in lockstep, and the first warp of a block
 * that reaches the guard calls ag_ownN, which sweeps the block's threads'
 * turns, their carried registers in the worker's carry memory and their
 * slot S after them, and leaves b->carry for the guard; 0 when the launch
 * may not be swept (its warps then run the loop as well).  b->carry is
 * the block function's to clear: it says which block was swept. */
static void emit_block_own(uint32_t entry, uint32_t dyn, uint32_t psize,
			   const struct tr_stride *st, struct strbuf *out)
{
	emit_sweep(entry, st->slot, out);
	sb_addf(out, "static int ag_own%u(struct ag_block *b)\n{\n"
		"\tconst struct ag_kernel_env *env = b->env;\n"
		"\tconst struct ag_dims d = ag_dims_of(b);\n", entry);
	emit_params(psize, 1, out);
	emit_sweep_checks(st, out);
	sb_adds(out, "\t\treturn 0;\n\t}\n\tconst int32_t nx = (int32_t)d.ntid[0];\n");
	emit_lone_warp(dyn, psize, out);
	emit_sweep_memory(entry, st->slot, "1", " 1", out);
	sb_addf(out, "\tag_sweep%u(b, &w, S, A, prm, d, n, b->ctaid[0], 1);\n"
		"\tb->carry = A;\n\tb->carry_c0 = b->ctaid[0];\n\treturn 1;\n}\n\n"
		"static void ag_k%u(struct ag_block *b)\n{\n\tb->carry = NULL;\n", entry, entry);
	tr_emit_block_run(out, "\t", entry, dyn, 0, psize);
	sb_adds(out, "\tb->carry = NULL;\n}\n\n");
}

/* The block function of a kernel with barriers run by row groups
 * (group.c), AG_PARTSN of them a call, their first threads' indices found
 * once (px, py, pz): in rounds, each call up to its next barrier, its
 * masks and live registers kept in its slot, until every call has
 * finished.  Calls that finished count as arrived; a call that arrived
 * ahead (AG_AT_AHEAD, ahead.c) sits the next round out.  A call
 * whose widening finds its lanes across the wrap (before any store to
 * memory but shared memory) sends the whole block to the fallback: ag_ktN
 * runs it again from the start one thread at a time, or with warp (calls
 * that run a warp each), ag_klN in lockstep.  Those need rows of whole
 * warps; other blocks go to ag_klN from the start. */
static void emit_block_groups(const char *name, uint32_t entry, uint32_t dyn, uint32_t psize,
			      int copy, int warp, struct strbuf *out)
{
	struct strbuf sizes = STRBUF_INIT;

	emit_block_start(name, entry, psize, copy, 0, 0, out);
	if (warp)
		sb_addf(out, "\tif (d.ntid[0] %% 32) {\n\t\tag_kl%u(b);\n\t\treturn;\n\t}\n", entry);
	sb_addf(out, "\tconst uint32_t nx = d.ntid[0], ngx = (nx + AG_G - 1) / AG_G;\n"
		"\tconst unsigned nq = ngx * d.ntid[1] * d.ntid[2];\n"
		"\tconst unsigned ng = (nq + AG_PARTS%u - 1) / AG_PARTS%u;\n"
		"\tunsigned g, more;\n", entry, entry);
	emit_lone_warp(dyn, psize, out);
	sb_addf(&sizes, "ng * sizeof(struct ag_gs%u), ng * sizeof(unsigned),\n"
		"\t\t3 * AG_PARTS%u * ng * sizeof(uint32_t)", entry, entry);
	emit_scratch(3, sizes.buf, out);
	sb_free(&sizes);
	sb_addf(out, "\tstruct ag_gs%u *const G = (struct ag_gs%u *)ag_mem;\n"
		"\tunsigned *const at = (unsigned *)(ag_mem + ag_at[1]);\n"
		"\tuint32_t *const px = (uint32_t *)(ag_mem + ag_at[2]), *const py = px + AG_PARTS%u * ng,\n"
		"\t\t*const pz = py + AG_PARTS%u * ng;\n\n"
		"\tmemset(at, 0, ag_size[1]);\n"
		"\tag_gparts(0, AG_PARTS%u * ng, nq, ngx, &d, px, py, pz);\n"
		"\tw.stack_hi = (uintptr_t)__builtin_frame_address(0);\n"
		"\tdo {\n"
		"\t\tmore = 0;\n"
		"\t\tfor (g = 0; g < ng && !b->error; g++) {\n"
		"\t\t\tconst unsigned k = g * AG_PARTS%u;\n\n"
		"\t\t\tif (at[g] == ~0u)\n\t\t\t\tcontinue;\n"
		"\t\t\tif (at[g] & AG_AT_AHEAD) {\n\t\t\t\tat[g] &= ~AG_AT_AHEAD;\n"
		"\t\t\t\tmore = 1;\n\t\t\t\tcontinue;\n\t\t\t}\n"
		"\t\t\tif (!ag_g%u(&G[g], &at[g], &w, prm, &d, &px[k], &py[k], &pz[k], nx, b, sh)) {\n"
		"\t\t\t\tag_k%s%u(b);\n"
		"\t\t\t\treturn;\n"
		"\t\t\t}\n"
		"\t\t\tmore |= at[g] != ~0u;\n"
		"\t\t}\n"
		"\t} while (more && !b->error);\n}\n\n",
		entry, entry, entry, entry, entry, entry, entry, warp ? "l" : "t", entry);
}

/*
 * Past this many barriers a kernel's block function runs its threads in
 * turn only: a phase loop per barrier is a copy of the thread body each.
 */
#define PHASES_MAX 8

/*
 * The round of a kernel with barriers where every thread resumes at one
 * point (at 0: the start; k: after barrier k): a loop over each row of
 * threads, like the block function of a kernel without barriers, which the
 * C compiler may turn into vector code, a thread per lane, now that where
 * each thread starts is a constant (the thread body is inlined with it).
 * Threads between two barriers may run in any order: ivdep.  Where the
 * threads stopped is gathered as they stop (all alike when the and and
 * the or of their stops agree; someone runs on unless every stop is
 * ~0u), not read back from pc[] after the round (transpose, one thread,
 * twelve processes a side: medians 54.2-54.3 -> 53.1-53.6 ms).  When the
 * thread body records its addresses (records), each thread row's global
 * loads and stores then ask for the next block's lines (ag_prefetch_block,
 * seen: a row of the history for each of the first AG_REC_ROWS thread
 * rows).
 */
static void emit_phases(uint32_t entry, uint32_t nresume, int records, struct strbuf *out)
{
	const char *rec = records ? "\t\t\t\t\t\tuintptr_t rec[AG_REC_SLOTS] = { 0 };\n" : "";
	const char *ask = records ? "\t\t\t\t\t\tif (trow < AG_REC_ROWS)\n"
		"\t\t\t\t\t\t\tag_prefetch_block(seen + trow * AG_REC_SLOTS, rec);\n" : "";
	uint32_t k;

	sb_adds(out, "\t\tif (together) {\n\t\t\tunsigned e_and = ~0u, e_or = 0;\n\n"
		"\t\t\tswitch (at) {\n");
	for (k = 0; k <= nresume; k++)
		sb_addf(out, "\t\t\tcase %u:\n"
			"\t\t\t\tfor (z = 0; z < d.ntid[2]; z++)\n"
			"\t\t\t\t\tfor (y = 0; y < d.ntid[1] && !b->error; y++) {\n"
			"\t\t\t\t\t\tconst size_t trow = (size_t)z * d.ntid[1] + y, row = trow * d.ntid[0];\n"
			"%s\n"
			"#pragma GCC ivdep\n"
			"\t\t\t\t\t\tfor (int32_t x = 0; x < nx; x++) {\n"
			"\t\t\t\t\t\t\tconst size_t t = row + (size_t)x;\n"
			"\t\t\t\t\t\t\tunsigned e = %u;\n\n"
			"\t\t\t\t\t\t\tag_t%u(&ws[t / 32], t %% 32, NULL, &e, &S[t], prm, &d, "
			"x, y, z, b, sh, A, nt, t, %s);\n"
			"\t\t\t\t\t\t\tpc[t] = e;\n"
			"\t\t\t\t\t\t\te_and &= e;\n\t\t\t\t\t\t\te_or |= e;\n"
			"\t\t\t\t\t\t}\n%s"
			"\t\t\t\t\t}\n\t\t\t\tbreak;\n", k, rec, k, entry,
			records ? "rec" : "NULL", ask);
	sb_adds(out, "\t\t\t}\n\t\t\tat = e_and;\n\t\t\ttogether = e_and == e_or;\n"
		"\t\t\tmore = e_and != ~0u;\n\t\t} else {\n");
}

/* The block function of a kernel with barriers: each warp's thread
 * indices once, then the threads run in turn up to the next barrier, each
 * with a slot for its registers, in rounds until every thread has
 * finished.  Exited threads count as arrived, as in lockstep.  While all
 * threads wait at one barrier (together), a round is a phase loop. */
static void emit_block(const char *name, uint32_t entry, uint32_t dyn, uint32_t psize, int copy,
		       uint32_t nresume, int records, struct strbuf *out)
{
	int phases = nresume <= PHASES_MAX;
	struct strbuf sizes = STRBUF_INIT;

	emit_block_start(name, entry, psize, copy, 0, 0, out);
	sb_addf(out, "\tconst unsigned nt = d.ntid[0] * d.ntid[1] * d.ntid[2];\n"
		"\tconst unsigned nw = (nt + 31) / 32;\n"
		"\tunsigned k, more;\n%s",
		phases ? "\tconst int32_t nx = (int32_t)d.ntid[0];\n"
			 "\tunsigned y, z, at = 0, together = 1;\n" : "");
	/* the prefetch history first, where the next block finds it */
	sb_addf(&sizes, "%s, nt * sizeof(struct ag_sv%u), nt * sizeof(unsigned),\n"
		"\t\tnw * sizeof(struct ag_warp), (size_t)AG_COLS%u * 8 * nt + 8",
		records ? "AG_REC_ROWS * AG_REC_SLOTS * sizeof(uintptr_t)" : "0", entry, entry);
	emit_scratch(5, sizes.buf, out);
	sb_free(&sizes);
	sb_addf(out, "\tuintptr_t *const seen = (uintptr_t *)ag_mem;\n"
		"\tstruct ag_sv%u *const S = (struct ag_sv%u *)(ag_mem + ag_at[1]);\n"
		"\tunsigned *const pc = (unsigned *)(ag_mem + ag_at[2]);\n"
		"\tstruct ag_warp *const ws = (struct ag_warp *)(ag_mem + ag_at[3]);\n"
		"\tunsigned char *const A = ag_mem + ag_at[4];\n\n"
		"\t(void)seen;\n"
		"\tmemset(pc, 0, ag_size[2]);\n", entry, entry);
	/* isspacep.local finds the threads' frames through lframe */
	sb_addf(out, "\tfor (k = 0; k < nw; k++)\n"
		"\t\tws[k] = (struct ag_warp){ .b = b, .id = k, .nw = nw, .dyn = %u, .psize = %u,\n"
		"\t\t\t.lframe = (const unsigned char *)S, .lsize = nt * sizeof(*S),\n"
		"\t\t\t.stack_hi = (uintptr_t)__builtin_frame_address(0) };\n"
		"\tag_set_tids(ws, nt, env->ntid);\n"
		"\tdo {\n", dyn, psize);
	if (phases)
		emit_phases(entry, nresume, records, out);
	sb_addf(out, "\t\tfor (k = 0; k < nt && !b->error; k++) {\n"
		"\t\t\tstruct ag_warp *const w = &ws[k / 32];\n\n"
		"\t\t\tif (pc[k] == ~0u)\n\t\t\t\tcontinue;\n"
		"\t\t\tag_t%u(w, k %% 32, NULL, &pc[k], &S[k], prm, &d, (int32_t)w->tid[0][k %% 32],\n"
		"\t\t\t      w->tid[1][k %% 32], w->tid[2][k %% 32], b, sh, A, nt, k, NULL);\n"
		"\t\t}\n"
		"\t\t/* who still runs, and whether all wait at one barrier */\n"
		"\t\tmore = 0;\n%s"
		"\t\tfor (k = 0; k < nt; k++) {\n"
		"\t\t\tmore |= pc[k] != ~0u;\n%s\t\t}\n%s"
		"\t} while (more && !b->error);\n}\n\n",
		entry, phases ? "\t\tat = pc[0];\n\t\ttogether = 1;\n" : "",
		phases ? "\t\t\ttogether &= pc[k] == at;\n" : "", phases ? "\t\t}\n" : "");
}

/*
 * Whether a lockstep kernel's run function asks for the widest vectors
 * (AG_WIDE): its own loops compute in floating point, 8 instructions a
 * turn or more, none of them slow_math.  A half warp's 16 floats are then
 * one vector, and a tile's inner product half the instructions: tiled
 * SGEMM 23.3 -> 19.5 ms one thread, where n-body (rsqrt) ran 24.5 ->
 * 26.1 and a scan (integers, shuffles) 43.7 -> 50.3; the rest within 2%.
 */
int tr_lockstep_wide(const struct tr *t, uint32_t entry)
{
	const struct ptx_func *fn = &t->m->funcs[entry];
	struct reach_use u = { 0 };
	struct loop_mix x;

	if (!fn->nbody)
		return 0;
	loop_mix(fn, 0, fn->nbody - 1, &x);
	if (x.slow_math)
		return 0;
	note_func(t, entry, 1, &u);
	return u.loop_math;
}

/* Whether a kernel's thread body takes no branch on a guard and leaves
 * under none: its code between barriers runs straight through, every
 * statement in every thread (guards only mask loads and stores). */
int tr_fast_straight(const struct ptx_func *fn)
{
	uint32_t i;

	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);

		if (in && (!strcmp(in->opcode, "brx") ||
			   (in->guard && (!strcmp(in->opcode, "bra") || tr_is_stop(in)))))
			return 0;
	}
	return 1;
}

/* Whether a kernel that runs in lockstep may run a row of blocks a call
 * (AG_KF_ROWS, ag_block_run): a grid-stride loop (it reads %nctaid and
 * branches back) whose blocks share nothing, neither barriers nor shared
 * memory. */
int tr_lockstep_rows(const struct tr *t, uint32_t entry, const uint8_t *seen)
{
	struct reach_use u = { 0 };

	note_reached(t, entry, seen, &u);
	return u.grid_size && u.loop && !u.barrier && !u.shared;
}

/* Floating-point instructions per load or store past which a kernel's
 * thread loop is bound by arithmetic, not memory: then vectors twice as
 * wide pay (Black-Scholes, 13 per access: 44 -> 28 ms one thread with
 * 512 bits), where for memory-bound kernels they cost (vecadd 13.0 ->
 * 14.1 ms). */
#define COMPUTE_BOUND 8

static int compute_bound(const struct reach_use *u)
{
	return !u->loop && u->flops >= COMPUTE_BOUND * (u->accesses ? u->accesses : 1);
}

/* The shapes of the registers of a kernel that has a group translation
 * (group.c), or NULL: it reaches no function, declares no local memory
 * nor parameters of calls, and shape.c finds its control flow uniform
 * (warp: for calls that run a warp each). */
static struct tr_shape *group_shapes(const struct tr *t, uint32_t entry, const uint8_t *seen,
				     int warp, const struct tr_stride *past)
{
	const struct ptx_func *fn = &t->m->funcs[entry];
	struct tr_consts *c;
	struct tr_shape *s;
	uint32_t i;

	for (i = 0; i < t->m->nfuncs; i++)
		if (seen[i] && i != entry)
			return NULL;
	for (i = 0; i < fn->nbody; i++)
		if (fn->body[i].kind == PTX_STMT_DECL && fn->body[i].u.decl.space != PTX_SPACE_REG &&
		    fn->body[i].u.decl.space != PTX_SPACE_SHARED)
			return NULL;
	c = tr_consts_scan(fn);
	s = tr_shape_scan(fn, c, warp, past);
	tr_consts_free(c);
	return s;
}

/* The group translation of a kernel in calls that run one warp each
 * (ag_gN), after the sweep of its grid-stride loop with past (stride.c);
 * 0 when the kernel has none, or when an instruction has no form in it. */
static int warp_calls(struct tr *t, uint32_t entry, const uint8_t *seen,
		      const struct tr_stride *past, struct strbuf *out)
{
	struct tr_shape *shape;
	size_t len = out->len;
	uint32_t shared = t->shared_size;
	int rc;

	if (t->groups == AG_GROUPS_OFF || !(shape = group_shapes(t, entry, seen, 1, past)))
		return 0;
	t->scalar = 1;
	t->shape = shape;
	rc = tr_function(t, entry, out);
	t->shape = NULL;
	t->scalar = 0;
	tr_shape_free(shape);
	if (rc) {
		/* the lockstep translation, already made, runs it instead */
		sb_truncate(out, len);
		memset(t->err, 0, sizeof(*t->err));
		t->shared_size = shared;
		return 0;
	}
	return 1;
}

/*
 * A kernel that needs its warps (shuffles) whose control flow a call that
 * runs one warp can follow (shape.c): its group translation, two row
 * groups of 16 threads a call, each shfl.sync a permute of the two
 * groups' values (emit_warp.c), and a block function that runs blocks
 * whose rows are not whole warps, or whose indices cross the wrap, in
 * lockstep (ag_klN).  A block scan's shuffles and barriers then run as
 * vector code, where lockstep runs every instruction through the warp's
 * frame and checks its lanes' paths at every branch.  0 when the kernel
 * has none, or when an instruction has no form in it: the lockstep
 * translation runs the kernel then.
 */
static int warp_kernel(struct tr *t, uint32_t entry, const uint8_t *seen, uint32_t dyn,
		       struct strbuf *out)
{
	uint32_t psize;

	if (!warp_calls(t, entry, seen, NULL, out))
		return 0;
	psize = ptx_param_layout(&t->m->funcs[entry], NULL, NULL, NULL, 0);
	tr_emit_lockstep_block(out, "ag_kl", entry, dyn, 0, psize);
	emit_block_groups("ag_k", entry, dyn, psize, 1, 1, out);
	return 1;
}

/* A kernel whose grid-stride loop is swept (stride.c): the scalar
 * translation of its loop, a turn a call, and its block function.  When
 * the kernel goes on after the loop, its blocks run on in calls of a warp
 * (ag_kgN, warp_calls) where their shapes allow, else in lockstep: the
 * reduction's shuffles, shared memory and barriers after its loop as
 * vector code. */
static int stride_kernel(struct tr *t, uint32_t entry, const uint8_t *seen, uint32_t dyn,
			 struct strbuf *out)
{
	const struct tr_stride *st = t->fi[entry].stride;
	uint32_t psize = ptx_param_layout(&t->m->funcs[entry], NULL, NULL, NULL, 0);
	int rc, group;

	t->scalar = 1;
	rc = tr_function(t, entry, out);
	t->scalar = 0;
	if (rc)
		return -1;
	if (st->in_block) {
		/* one block a call: each its own sweep and carry memory */
		emit_block_own(entry, dyn, psize, st, out);
		return 1;
	}
	group = st->split && !st->exit_run && warp_calls(t, entry, seen, st, out);
	if (group) {
		tr_emit_lockstep_block(out, "ag_kl", entry, dyn, 0, psize);
		emit_block_groups("ag_kg", entry, dyn, psize, 1, 1, out);
	}
	emit_block_stride(entry, dyn, psize, st, group, out);
	return st->split ? TR_FAST_SWEEP : TR_FAST_ROWS;
}

int tr_fast_kernel(struct tr *t, uint32_t entry, const uint8_t *seen, uint32_t dyn,
		   struct strbuf *out)
{
	struct reach_use u = { 0 };
	struct tr_shape *shape = NULL;
	uint32_t f, psize, nresume;
	int calls = 0, group, lockstep, records, row, rc;

	note_reached(t, entry, seen, &u);
	/* Volatile accesses next to shared memory are the mark of implicitly
	 * warp-synchronous code (reductions without __syncwarp).  A loop in a
	 * kernel that reads the grid's size is most likely a grid-stride loop:
	 * one thread at a time would walk memory with the grid's stride, and
	 * the lanes of a warp in lockstep walk it contiguously.  The same holds
	 * for loops that load from global memory in kernels without barriers
	 * (a k loop reading a matrix column): there lockstep reads a warp's
	 * neighbouring elements together, in vector instructions.  With
	 * barriers the threads below run one at a time, each loop turn scalar:
	 * where loops compute in floating point (n-body's interactions with a
	 * tile of shared memory, a tile's products), a warp's lanes together in
	 * vector instructions pay for lockstep (measured: n-body, tiled SGEMM;
	 * a tiled transpose, whose loops only move data, stays faster one
	 * thread at a time).  So does a loop that waits at a barrier each turn
	 * (a shared-memory tree reduction), where one thread at a time would
	 * switch threads at every turn (the CUDA samples' reduce3 on 2^24
	 * ints, two threads: 66 -> 20 ms).  Other loops that only compute (and
	 * may diverge) run faster one thread at a time.  Kernels without barriers whose
	 * control flow is uniform run sixteen threads at a time instead, as
	 * vector code (group.c), with the scalar translation for the groups
	 * whose indices cross the wrap. */
	if (t->fi[entry].stride && !t->fi[entry].spins)
		return stride_kernel(t, entry, seen, dyn, out);
	if (u.shared && u.volatile_)
		return 0;
	if (u.lockstep)
		return warp_kernel(t, entry, seen, dyn, out);
	lockstep = (u.grid_size && u.loop) || (u.loop_loads && !u.barrier) ||
		(u.loop_math && u.barrier) || u.loop_barrier;
	for (f = 0; f < t->m->nfuncs; f++)
		calls |= seen[f] && f != entry;
	if (t->groups == AG_GROUPS_ALL || (lockstep && t->groups == AG_GROUPS_AUTO))
		shape = group_shapes(t, entry, seen, 0, NULL);
	if (lockstep && !shape)
		return 0;
	if (!t->scalar_done)
		t->scalar_done = xcalloc(t->m->nfuncs + 1, 1);
	t->scalar = 1;
	/* the thread body runs the groups (or, with barriers, the blocks)
	 * whose indices cross the wrap */
	rc = emit_funcs(t, seen, entry, out) || tr_function(t, entry, out);
	nresume = t->nresume;
	records = t->nrec[0] + t->nrec[1] != 0;
	if (!rc && shape) {
		t->shape = shape;
		rc = tr_function(t, entry, out);
		t->shape = NULL;
	}
	t->scalar = 0;
	group = shape != NULL;
	tr_shape_free(shape);
	if (rc)
		return -1;
	psize = ptx_param_layout(&t->m->funcs[entry], NULL, NULL, NULL, 0);
	if (group && nresume) {
		emit_block("ag_kt", entry, dyn, psize, !calls, nresume, records, out);
		emit_block_groups("ag_k", entry, dyn, psize, !calls, 0, out);
	} else if (nresume) {
		emit_block("ag_k", entry, dyn, psize, !calls, nresume, records, out);
	} else {
		row = !group && !compute_bound(&u) && tr_index_only(&t->m->funcs[entry]);
		emit_block_plain(entry, dyn, psize, !calls, compute_bound(&u), group, row,
				 records && !group && !row, out);
	}
	return group || nresume ? 1 : TR_FAST_ROWS;
}
