/*
 * translate_fast.c - the fast path: kernels that cannot observe lockstep
 * (no barrier, no warp operation, no lane-dependent special register, no
 * .shared memory, in their body or any function they reach) run one
 * thread at a time.  Such a kernel gets a second, scalar translation made
 * by the same emitters with t->scalar set: registers are C locals, each
 * instruction runs once for its thread (under its guard), PTX control flow
 * is labels and gotos, and every reached .func becomes a plain C function
 * ag_sN(w, l, a, ex) of one lane.  The kernel's block function loops over
 * the block's threads and calls the inlined thread body.  Frames keep the
 * lockstep shape ([32] rows indexed by the lane l), so .local arrays,
 * call-sequence .params and carry flags are addressed as in lockstep.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

static const char *const lane_sregs[] = {
	"%laneid", "%warpid", "%lanemask_eq", "%lanemask_lt", "%lanemask_le",
	"%lanemask_gt", "%lanemask_ge",
};

static const char *const warp_ops[] = {
	"shfl", "vote", "match", "redux", "activemask", "bar", "barrier", "elect",
};

static int in_list(const char *const *list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* Whether an operand names a lane-dependent register or shared memory. */
static int operand_ok(const struct tr *t, const struct ptx_operand *o)
{
	const struct tr_sym *s;
	uint32_t i;

	if (o->name) {
		if (in_list(lane_sregs, sizeof(lane_sregs) / sizeof(lane_sregs[0]), o->name))
			return 0;
		s = tr_msym(t, o->name);
		if (s && (s->kind == TK_SHARED || s->kind == TK_DYNSHARED))
			return 0;
	}
	for (i = 0; i < o->nelems; i++)
		if (!operand_ok(t, &o->elems[i]))
			return 0;
	return !o->pair || operand_ok(t, o->pair);
}

static int insn_ok(const struct tr *t, const struct ptx_insn *in)
{
	uint32_t i;

	if (in_list(warp_ops, sizeof(warp_ops) / sizeof(warp_ops[0]), in->opcode))
		return 0;
	for (i = 0; i < in->nmods; i++)
		if (!strcmp(in->mods[i], ".shared"))
			return 0;
	for (i = 0; i < in->nops; i++)
		if (!operand_ok(t, &in->ops[i]))
			return 0;
	return 1;
}

/* A function body that cannot tell one thread at a time from lockstep. */
static int func_ok(const struct tr *t, uint32_t f)
{
	const struct ptx_func *fn = &t->m->funcs[f];
	uint32_t i;

	if (t->fi[f].flags & (AG_KF_BARRIER | AG_KF_WARP) || t->fi[f].shared_end)
		return 0;
	for (i = 0; i < fn->nbody; i++) {
		const struct ptx_stmt *s = &fn->body[i];

		if (s->kind == PTX_STMT_DECL && s->u.decl.space == PTX_SPACE_SHARED)
			return 0;
		if (s->kind == PTX_STMT_INSN && !insn_ok(t, &s->u.insn))
			return 0;
	}
	return 1;
}

/* A register declaration of the scalar translation: C locals. */
void tr_fast_locals(struct tr *t, struct tr_sym *s)
{
	uint32_t i;

	s->local = 1;
	if (!s->range) {
		sb_addf(&t->locals, "\t%s r%u;\n", tr_ctype(s->type), s->id);
		return;
	}
	sb_addf(&t->locals, "\t%s", tr_ctype(s->type));
	for (i = 0; i < s->range; i++)
		sb_addf(&t->locals, "%s r%u_%u", i ? "," : "", s->id, i);
	sb_adds(&t->locals, ";\n");
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

	if (tr_mods(t, in, ".uni", NULL, 0, NULL) || tr_nops(t, in, 1, 1))
		return -1;
	if (in->ops[0].kind != PTX_OP_SYM)
		return tr_unsupported(t, in, "indirect branch");
	to = tr_label_bb(t, in->ops[0].name);
	if (to == UINT32_MAX)
		return tr_fail(t, in->line, "branch to unknown label '%s'", in->ops[0].name);
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "goto ag_L%u;\n", to);
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
	if (!f && tr_src(t, in, target, PTX_T_U64, &e))
		return -1;
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

/* The scalar function of the function just translated: ag_sN for a
 * .func, the always-inlined thread body ag_tN for a kernel. */
void tr_fast_function(struct tr *t, uint32_t fidx, struct strbuf *out)
{
	sb_addf(out, "/* %s %s, one thread */\nstruct ag_sf%u {\n\tstruct ag_lanes ln;\n%s};\n\n",
		t->fn->is_entry ? ".entry" : ".func", t->fn->name, fidx,
		t->frame.buf ? t->frame.buf : "");
	if (t->fn->is_entry)
		sb_addf(out, "static inline __attribute__((always_inline)) void ag_t%u(", fidx);
	else
		sb_addf(out, "static void ag_s%u(", fidx);
	sb_addf(out, "struct ag_warp *w, const unsigned l, unsigned char *const *a, uint8_t *ex)\n"
		"{\n\tstruct ag_sf%u fr, *const W = &fr;\n"
		"\tstruct ag_block *const b = w->b;\n"
		"\tunsigned char *const sh = b->shared;\n"
		"\tconst unsigned char *const prm = b->env->params;\n"
		"\tconst uint32_t ag_tid0 = w->tid[0][l], ag_tid1 = w->tid[1][l], "
		"ag_tid2 = w->tid[2][l];\n"
		"\tconst uint32_t ag_ntid0 = b->env->ntid[0], ag_ntid1 = b->env->ntid[1], "
		"ag_ntid2 = b->env->ntid[2];\n"
		"\tconst uint32_t ag_ctaid0 = b->ctaid[0], ag_ctaid1 = b->ctaid[1], "
		"ag_ctaid2 = b->ctaid[2];\n"
		"\tconst uint32_t ag_nctaid0 = b->env->nctaid[0], ag_nctaid1 = b->env->nctaid[1], "
		"ag_nctaid2 = b->env->nctaid[2];\n%s\n"
		"\t(void)W; (void)sh; (void)prm; (void)a; (void)ex;\n%s}\n\n",
		fidx, t->locals.buf ? t->locals.buf : "", t->code.buf ? t->code.buf : "");
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

/* Each warp's thread indices, then each thread of the block in turn. */
static void emit_block(struct tr *t, uint32_t entry, struct strbuf *out)
{
	sb_addf(out, "static void ag_k%u(struct ag_block *b)\n{\n"
		"\tconst struct ag_kernel_env *env = b->env;\n"
		"\tunsigned nt = env->ntid[0] * env->ntid[1] * env->ntid[2], base, l, n, k;\n"
		"\tstruct ag_warp w = { b, NULL, 0, (nt + 31) / 32, 0, { { 0 } } };\n"
		"\tuint8_t ex;\n\n"
		"\tfor (base = 0; base < nt; base += 32) {\n"
		"\t\tn = nt - base < 32 ? nt - base : 32;\n"
		"\t\tfor (l = 0; l < n; l++) {\n"
		"\t\t\tk = base + l;\n"
		"\t\t\tw.tid[0][l] = k %% env->ntid[0];\n"
		"\t\t\tw.tid[1][l] = k / env->ntid[0] %% env->ntid[1];\n"
		"\t\t\tw.tid[2][l] = k / (env->ntid[0] * env->ntid[1]);\n"
		"\t\t}\n"
		"\t\tw.id = base / 32;\n"
		"\t\tfor (l = 0; l < n && !b->error; l++)\n"
		"\t\t\tag_t%u(&w, l, NULL, &ex);\n"
		"\t}\n}\n\n", entry, entry);
}

int tr_fast_kernel(struct tr *t, uint32_t entry, const uint8_t *seen, struct strbuf *out)
{
	uint32_t f;

	for (f = 0; f < t->m->nfuncs; f++)
		if (seen[f] && !func_ok(t, f))
			return 0;
	if (!t->scalar_done)
		t->scalar_done = xcalloc(t->m->nfuncs + 1, 1);
	t->scalar = 1;
	if (emit_funcs(t, seen, entry, out) || tr_function(t, entry, out)) {
		t->scalar = 0;
		return -1;
	}
	t->scalar = 0;
	emit_block(t, entry, out);
	return 1;
}
