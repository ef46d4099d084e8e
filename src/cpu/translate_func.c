/*
 * translate_func.c - one PTX function to C: its declarations (scoped, each
 * with a unique C name in the function's frame struct), its basic blocks,
 * and the warp loop that runs them.  The run function picks the lowest pc
 * among the warp's running lanes, runs that block for the lanes there
 * (each instruction a loop over them), and lets branches, ret, exit,
 * barriers and calls move each lane on.  Kernels are run block-wide by
 * ag_block_run (translate_rt.h), which has their warps take turns a basic
 * block at a time; .func bodies by a callable wrapper.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

static void push_sym(struct tr *t, const struct tr_sym *s)
{
	if (t->nsyms == t->capsyms) {
		t->capsyms = t->capsyms ? 2 * t->capsyms : 64;
		t->syms = xrealloc(t->syms, t->capsyms * sizeof(*t->syms));
	}
	t->syms[t->nsyms++] = *s;
}

/* "%r17" against "%r<20>": 1 when it names one of them. */
static int in_range(const struct tr_sym *s, const char *name)
{
	size_t n = strlen(s->name);
	const char *p = name + n;
	char *end;
	unsigned long v;

	if (strncmp(name, s->name, n) || !*p || (*p == '0' && p[1]) || *p < '0' || *p > '9')
		return 0;
	v = strtoul(p, &end, 10);
	return !*end && v < s->range;
}

const struct tr_sym *tr_lookup(const struct tr *t, const char *name)
{
	uint32_t i = t->nsyms;

	while (i--) {
		const struct tr_sym *s = &t->syms[i];

		if (s->range ? in_range(s, name) : !strcmp(s->name, name))
			return s;
	}
	return tr_msym(t, name);
}

uint32_t tr_label_bb(const struct tr *t, const char *label)
{
	uint32_t i;

	for (i = 0; i < t->nlabels; i++)
		if (!strcmp(t->labels[i], label))
			return t->label_bb[i];
	return UINT32_MAX;
}

static int is_block_barrier(const struct ptx_insn *in)
{
	if (!strcmp(in->opcode, "barrier"))
		return in->nmods == 0 || strcmp(in->mods[0], ".warp");
	return !strcmp(in->opcode, "bar") && (in->nmods == 0 || strcmp(in->mods[0], ".warp"));
}

static int ends_block(const struct ptx_insn *in)
{
	return !strcmp(in->opcode, "bra") || !strcmp(in->opcode, "brx") ||
		!strcmp(in->opcode, "ret") || !strcmp(in->opcode, "exit") ||
		is_block_barrier(in);
}

/* Pass 1: block of every statement, block of every label. */
static uint32_t *split_blocks(struct tr *t)
{
	const struct ptx_func *f = t->fn;
	uint32_t *bb = xcalloc(f->nbody + 1, sizeof(*bb)), cur = 0, i;
	int empty = 1;

	t->nlabels = 0;
	t->labels = xrealloc(t->labels, (f->nbody + 1) * sizeof(*t->labels));
	t->label_bb = xrealloc(t->label_bb, (f->nbody + 1) * sizeof(*t->label_bb));
	for (i = 0; i < f->nbody; i++) {
		const struct ptx_stmt *s = &f->body[i];

		if (s->kind == PTX_STMT_LABEL) {
			if (!empty)
				cur++;
			empty = 1;
			t->labels[t->nlabels] = s->u.label;
			t->label_bb[t->nlabels++] = cur;
		}
		bb[i] = cur;
		if (s->kind == PTX_STMT_INSN) {
			empty = 0;
			if (ends_block(&s->u.insn)) {
				cur++;
				empty = 1;
			}
		}
	}
	t->nbb = cur + 1;
	return bb;
}

static void frame_field(struct tr *t, const char *ctype, const char *prefix, uint32_t id,
			uint32_t n, uint64_t row, uint32_t align)
{
	sb_addf(&t->frame, "\t%s %s%u", ctype, prefix, id);
	if (n)
		sb_addf(&t->frame, "[%u]", n);
	sb_addf(&t->frame, "[32]");
	if (row)
		sb_addf(&t->frame, "[%llu]", (unsigned long long)row);
	if (align)
		sb_addf(&t->frame, " __attribute__((aligned(%u)))", align);
	sb_adds(&t->frame, ";\n");
}

static int declare(struct tr *t, const struct ptx_var *v)
{
	struct tr_sym s;
	uint64_t bytes = (uint64_t)ptx_type_size(v->type) * (v->vec ? v->vec : 1) * v->count;
	uint32_t a = v->align ? v->align : ptx_type_size(v->type), i;

	memset(&s, 0, sizeof(s));
	s.name = v->name;
	s.type = v->type;
	s.var = v;
	s.size = bytes;
	s.id = t->ndecl++;
	switch (v->space) {
	case PTX_SPACE_REG:
		if (v->vec > 1 || v->is_array)
			return tr_fail(t, v->line, "vector or array register '%s' is not supported",
				       v->name);
		s.kind = TK_REG;
		s.type = tr_storage(v->type);
		if (!tr_ctype(s.type))
			return tr_fail(t, v->line, "register '%s' of type .%s is not supported",
				       v->name, ptx_type_name(v->type));
		s.range = v->range;
		if (t->scalar)
			tr_fast_locals(t, &s);
		else
			frame_field(t, tr_ctype(s.type), "r", s.id, v->range, 0, 0);
		break;
	case PTX_SPACE_PARAM:
		s.kind = TK_PARAM;
		frame_field(t, "unsigned char", "q", s.id, 0, (uint64_t)tr_row(bytes), 16);
		break;
	case PTX_SPACE_LOCAL:
		if (a < 1)
			a = 1;
		s.kind = TK_LOCAL;
		frame_field(t, "unsigned char", "d", s.id, 0, (bytes + a - 1) / a * a, a);
		if (!t->scalar)
			t->fi[t->fidx].local_bytes += (uint32_t)bytes;
		break;
	case PTX_SPACE_SHARED:
		if (a < 1)
			a = 1;
		if (v->unsized || v->is_extern) {
			s.kind = TK_DYNSHARED;
			break;
		}
		s.kind = TK_SHARED;
		/* a device function's are laid out with the module's */
		for (i = 0; i < t->fi[t->fidx].nshared_at; i++)
			if (t->fi[t->fidx].shared_at[i].v == v)
				break;
		if (i < t->fi[t->fidx].nshared_at) {
			s.off = t->fi[t->fidx].shared_at[i].off;
			break;
		}
		t->shared_size = (t->shared_size + a - 1) / a * a;
		s.off = t->shared_size;
		t->shared_size += (uint32_t)bytes;
		break;
	default:
		return tr_fail(t, v->line, "declaration of '%s' in this state space inside a "
			       "function is not supported", v->name);
	}
	push_sym(t, &s);
	return 0;
}

/* Entry parameters sit in env->params at CUDA's layout; .func parameters
 * and return values are per-lane rows the caller passes in a[]. */
static void declare_params(struct tr *t)
{
	const struct ptx_func *f = t->fn;
	uint32_t n = f->nparams ? f->nparams : 1, i;
	uint32_t *off = xcalloc(n, sizeof(*off)), *size = xcalloc(n, sizeof(*size));
	uint32_t *align = xcalloc(n, sizeof(*align));
	struct tr_sym s;

	if (f->is_entry)
		ptx_param_layout(f, off, size, align, f->nparams);
	for (i = 0; i < f->nrets + f->nparams; i++) {
		const struct ptx_var *v = i < f->nrets ? &f->rets[i] : &f->params[i - f->nrets];

		memset(&s, 0, sizeof(s));
		s.name = v->name;
		s.type = v->type;
		s.var = v;
		s.size = (uint64_t)ptx_type_size(v->type) * (v->vec ? v->vec : 1) * v->count;
		if (f->is_entry) {
			s.kind = TK_EPARAM;
			s.off = off[i];
		} else {
			s.kind = TK_FARG;
			s.off = i;
		}
		push_sym(t, &s);
	}
	free(off);
	free(size);
	free(align);
}

static void add_callee(struct tr *t, uint32_t callee)
{
	struct tr_fninfo *fi = &t->fi[t->fidx];

	fi->callees = xrealloc(fi->callees, (fi->ncallees + 1) * sizeof(*fi->callees));
	fi->callees[fi->ncallees++] = callee;
}

/* The basic block a direct branch (bra{.uni} label) goes to, in *to; -1
 * with an error naming the branch otherwise. */
int tr_branch_target(struct tr *t, const struct ptx_insn *in, uint32_t *to)
{
	if (tr_mods(t, in, ".uni", NULL, 0, NULL) || tr_nops(t, in, 1, 1))
		return -1;
	if (in->ops[0].kind != PTX_OP_SYM)
		return tr_unsupported(t, in, "indirect branch");
	*to = tr_label_bb(t, in->ops[0].name);
	if (*to == UINT32_MAX)
		return tr_fail(t, in->line, "branch to unknown label '%s'", in->ops[0].name);
	return 0;
}

/*
 * A warp whose 32 lanes all ran the block (m) and all go to block to next
 * (when cond, a C condition ending in "&& ", holds) goes on there without
 * the scheduler, which would pick the same block for all lanes.  Testing
 * m, which is in registers, rather than the lanes' pcs just stored one by
 * one, spares the wait for those stores.  Back to an earlier block (a
 * loop's next turn) it does so AG_TURNS - 1 times in AG_TURNS (ag_turn),
 * then lets the block's other warps take their turns: the warps of a
 * block stay close, as on a GPU, and read the same tile or neighbouring
 * lines while they are in the cache (one warp running its whole loop
 * first made a naive SGEMM 40% slower; yielding at every turn cost
 * grid-stride loops a fifth of their time).  Blocks run together
 * (ag_block_run) yield every AG_TURNS_ROWS turns.
 */
static void emit_whole_jump(struct tr *t, const char *cond, uint32_t to)
{
	if (to >= t->nbb)
		return;
	/* a loop of one block: the forms its accesses found stay (steady.c)
	 * when the registers they assume uniform were */
	if (to == t->bb && t->steady) {
		sb_addf(&t->code, "\t\tif (%sag_all(m)) {\n\t\t\tif (ag_turn(w)) {\n"
			"\t\t\t\tag_keep = ag_steady;\n\t\t\t\tgoto ag_k%u;\n\t\t\t}\n"
			"\t\t\tw->kept = ag_steady ? %u : 0;\n\t\t}\n", cond, to, to + 1);
		return;
	}
	if (to <= t->bb) {
		sb_addf(&t->code, "\t\tif (%sag_all(m) && ag_turn(w))\n"
			"\t\t\tgoto ag_b%u;\n", cond, to);
		return;
	}
	/* Lanes that went separate ways and meet again at a forward block
	 * (the end of an if) go on there together; a whole warp cannot have
	 * met others, and would test the pcs it stored for nothing. */
	sb_addf(&t->code, "\t\tif (%sag_all(m))\n\t\t\tgoto ag_b%u;\n"
		"\t\tif (!ag_all(m) && ag_converged(&W->ln, %u, m))\n\t\t\tgoto ag_b%u;\n",
		cond, to, to, to);
}

/* Each active lane (under the guard) to pc 'to'; the others of the block
 * to the next one. */
/* Each lane of the warp's mask stores where a guarded branch takes it. */
static int emit_branch_pcs(struct tr *t, const struct ptx_insn *in, uint32_t to)
{
	tr_lanes_begin(t, NULL);
	sb_adds(&t->code, "W->ln.pc[l] = ");
	if (tr_guard(t, in, &t->code))
		return -1;
	sb_addf(&t->code, " ? %u : %u; }\n", to, t->bb + 1);
	return 0;
}

/*
 * A branch stores each lane's next block in its pc, for the scheduler,
 * and takes a whole warp there itself.  The back edge of a loop that is
 * one block skips the stores when the whole warp goes round again: its
 * pcs already name this block, which the warp entered with them.
 */
static int emit_branch(struct tr *t, const struct ptx_insn *in)
{
	uint32_t to;
	int loop, uniform;

	if (tr_branch_target(t, in, &to))
		return -1;
	loop = to == t->bb;
	if (!in->guard) {
		if (loop)
			emit_whole_jump(t, "", to);
		sb_addf(&t->code, "\t\tfor (l = 0; l < 32; l++) if (m[l]) W->ln.pc[l] = %u;\n", to);
		if (!loop)
			emit_whole_jump(t, "", to);
		return 0;
	}
	if (!loop && emit_branch_pcs(t, in, to))
		return -1;
	/* how many of the 32 lanes branch: all or none keeps the warp whole;
	 * on a uniform predicate a whole warp's lane 0 tells */
	uniform = tr_uniform_reg(t->uniform, in->guard);
	if (t->counter && !strcmp(t->counter->ops[0].name, in->guard)) {
		/* all or none decide only for a whole warp, whose setp
		 * counted all 32 lanes */
		sb_addf(&t->code, "\t\t{\n\t\tconst unsigned ag_n = %sag_cnt;\n",
			in->guard_neg ? "32 - " : "");
	} else {
		sb_adds(&t->code, uniform ? "\t\t{\n\t\tunsigned ag_n;\n\t\tl = 0;\n\t\tag_n = (" :
			"\t\t{\n\t\tunsigned ag_n = 0;\n\t\tfor (l = 0; l < 32; l++) ag_n += (");
		if (tr_guard(t, in, &t->code))
			return -1;
		sb_adds(&t->code, uniform ? ") ? 32 : 0;\n" : ") != 0;\n");
	}
	emit_whole_jump(t, "ag_n == 32 && ", to);
	if (loop && emit_branch_pcs(t, in, to))
		return -1;
	emit_whole_jump(t, "ag_n == 0 && ", t->bb + 1);
	sb_adds(&t->code, "\t\t}\n");
	return 0;
}

/* brx.idx: lane goes to the index'th label of a .branchtargets list
 * (in the scalar version: jumps there). */
static int emit_branch_indexed(struct tr *t, const struct ptx_insn *in)
{
	const struct ptx_func *f = t->fn;
	struct strbuf e = STRBUF_INIT;
	uint32_t i, k, to;

	if (tr_mods(t, in, ".idx .uni", NULL, 0, NULL) || tr_nops(t, in, 2, 2))
		return -1;
	for (i = 0; i < f->nbody; i++)
		if (f->body[i].kind == PTX_STMT_BRANCHTARGETS &&
		    !strcmp(f->body[i].u.targets.name, in->ops[1].name))
			break;
	if (i == f->nbody)
		return tr_fail(t, in->line, "brx.idx to unknown target list '%s'", in->ops[1].name);
	if (tr_src(t, in, &in->ops[0], PTX_T_U32, &e)) {
		sb_free(&e);
		return -1;
	}
	tr_lanes_begin(t, in);
	sb_addf(&t->code, "switch (%s) {\n", e.buf);
	sb_free(&e);
	for (k = 0; k < f->body[i].u.targets.nlabels; k++) {
		to = tr_label_bb(t, f->body[i].u.targets.labels[k]);
		if (to == UINT32_MAX)
			return tr_fail(t, in->line, "unknown label '%s'",
				       f->body[i].u.targets.labels[k]);
		sb_addf(&t->code, t->scalar ? "\t\tcase %u: goto ag_L%u;\n" :
			"\t\tcase %u: W->ln.pc[l] = %u; break;\n", k, to);
	}
	sb_adds(&t->code, "\t\tdefault: ag_fault(w, l, 719, \"brx.idx index out of range\"); return;\n"
		"\t\t}\n");
	tr_lanes_end(t);
	if (in->guard && !t->scalar) {
		sb_addf(&t->code, "\t\tfor (l = 0; l < 32; l++) if (m[l] && !(");
		if (tr_guard(t, in, &t->code))
			return -1;
		sb_addf(&t->code, ")) W->ln.pc[l] = %u;\n", t->bb + 1);
	}
	return 0;
}

/* Lanes under the guard (in NULL: all) take state st (AG_RET or AG_EXIT;
 * exits also leave the warp's live lanes, gathered in a local: w->exited
 * updated lane by lane is a load and a store each, which byte stores to
 * the frame may alias); the others fall through. */
static int emit_lane_state(struct tr *t, const struct ptx_insn *in, const char *st)
{
	int exits = !strcmp(st, "AG_EXIT");

	if (exits)
		sb_adds(&t->code, "\t\t{\n\t\tuint32_t ag_ex = 0;\n");
	sb_adds(&t->code, "\t\tfor (l = 0; l < 32; l++) if (m[l]) { if (");
	if (in && in->guard) {
		if (tr_guard(t, in, &t->code))
			return -1;
	} else {
		sb_adds(&t->code, "1");
	}
	sb_addf(&t->code, ") { W->ln.st[l] = %s;%s }", st, exits ? " ag_ex |= 1u << l;" : "");
	sb_addf(&t->code, " else W->ln.pc[l] = %u; }\n", t->bb + 1);
	if (exits)
		sb_adds(&t->code, "\t\tw->exited |= ag_ex;\n\t\t}\n");
	return 0;
}

static int emit_ret(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, ".uni", NULL, 0, NULL) || tr_nops(t, in, 0, 0))
		return -1;
	return emit_lane_state(t, in, t->fn->is_entry ? "AG_EXIT" : "AG_RET");
}

static int emit_exit(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, "", NULL, 0, NULL) || tr_nops(t, in, 0, 0))
		return -1;
	return emit_lane_state(t, in, "AG_EXIT");
}

/* The resumption block of bar.red, written to the tail: released lanes
 * read the reduction of the generation they arrived in and go on. */
static int emit_barrier_red_resume(struct tr *t, const struct ptx_insn *in, const char *op,
				   uint32_t resume)
{
	struct strbuf code = t->code, p = STRBUF_INIT;
	int rc;

	t->code = t->tail;
	sb_addf(&t->code, "\tcase %u:\n", resume);
	tr_lanes_begin(t, NULL);
	sb_addf(&p, "w->bar->%s[W->ln.bid[l]][W->ln.bgen[l] & 1]", op);
	rc = tr_dst(t, in, &in->ops[0], op[0] == 'p' ? PTX_T_U32 : PTX_T_PRED, p.buf);
	sb_addf(&t->code, "\t\t\tW->ln.pc[l] = %u;\n", t->bb + 1);
	tr_lanes_end(t);
	sb_adds(&t->code, "\t\tbreak;\n");
	t->tail = t->code;
	t->code = code;
	sb_free(&p);
	return rc;
}

/* The barrier operands a{, b} starting at ops[first] as C expressions of
 * lane l; *has_n says whether b is there. */
static int barrier_operands(struct tr *t, const struct ptx_insn *in, uint32_t first,
			    uint32_t nops, struct strbuf *a, struct strbuf *n, int *has_n)
{
	*has_n = nops > first + 1;
	if (tr_src(t, in, &in->ops[first], PTX_T_U32, a))
		return -1;
	if (!*has_n) {
		sb_adds(n, "0");
		return 0;
	}
	return tr_src(t, in, &in->ops[first + 1], PTX_T_U32, n);
}

/* bar.sync id (a constant, no thread count, no guard) for a whole warp:
 * the lanes wait together, without the per-lane checks of the general
 * form that follows it; the branch ends the block. */
static void emit_whole_barrier(struct tr *t, unsigned id, uint32_t resume)
{
	sb_addf(&t->code, "\t\tif (ag_all(m)) {\n\t\tconst uint32_t g = w->bar->gen[%u];\n"
		"\t\tfor (l = 0; l < 32; l++) {\n"
		"\t\t\tW->ln.st[l] = AG_WAIT;\n\t\t\tW->ln.pc[l] = %u;\n"
		"\t\t\tW->ln.bid[l] = %u;\n\t\t\tW->ln.bgen[l] = g;\n\t\t}\n"
		"\t\tag_bar_arrive_at(w, %u, 0, 0xffffffffu);\n\t\tbreak;\n\t\t}\n",
		id, resume, id, id);
}

/*
 * bar{.cta}.sync / barrier{.cta}.sync / bar a{, b}, bar.arrive a, b and
 * bar.red.{popc,and,or} d, a{, b}, {!}c: the lanes under the guard
 * arrive at barrier a (with b threads, or all) and, except for arrive,
 * wait, resuming at the next block (bar.red: at a block that reads the
 * result); ag_bar_arrive counts the warp's arrival and may complete the
 * barrier at once.  barrier.cluster.arrive{.relaxed} and
 * barrier.cluster.wait{.acquire} are the arrival at AG_CLUSTER_BAR (a
 * cluster is one block) and the wait for the generation the lane arrived
 * in.
 */
static int emit_barrier(struct tr *t, const struct ptx_insn *in)
{
	const int red = tr_has(in, ".red"), wait = !tr_has(in, ".arrive");
	const int cluster = tr_has(in, ".cluster");
	const char *op = !red ? NULL : tr_has(in, ".popc") ? "popc" : tr_has(in, ".and") ? "and_" :
		tr_has(in, ".or") ? "or_" : NULL;
	const char *acc = !red ? NULL : op && op[0] == 'p' ? "+=" : op && op[0] == 'a' ? "&=" : "|=";
	uint32_t first = red, nops = in->nops - red, resume = t->bb + 1, n;
	struct strbuf a = STRBUF_INIT, cnt = STRBUF_INIT, p = STRBUF_INIT;
	enum ptx_type ty;
	int has_n, rc = -1;

	t->fi[t->fidx].flags |= AG_KF_BARRIER;
	if (!t->fn->is_entry && !t->fi[t->fidx].barrier_line)
		t->fi[t->fidx].barrier_line = in->line;
	if (tr_mods(t, in, cluster ? ".cluster .arrive .wait .relaxed .acquire .aligned" :
		    ".sync .arrive .red .popc .and .or .aligned .cta", &ty, 1, &n) ||
	    tr_nops(t, in, cluster ? 0 : 1 + 2 * red, cluster ? 0 : 2 + 2 * red))
		return -1;
	if (red && (!op || n != 1 || ty != (op[0] == 'p' ? PTX_T_U32 : PTX_T_PRED)))
		return tr_unsupported(t, in, "bar.red needs .popc.u32, .and.pred or .or.pred");
	if (!red && n)
		return tr_unsupported(t, in, "type");
	if (!wait && nops < 2 && !cluster)
		return tr_fail(t, in->line, "bar.arrive needs a thread count");
	if (red)
		resume = t->nbb + t->nextra++;
	if (cluster) {
		sb_adds(&a, "AG_CLUSTER_BAR");
		sb_adds(&cnt, "0u");
		has_n = 0;
	} else if (barrier_operands(t, in, first, red ? nops - 1 : nops, &a, &cnt, &has_n) ||
	    (red && tr_src(t, in, &in->ops[in->nops - 1], PTX_T_PRED, &p)))
		goto out;
	if (wait && !red && !cluster && !has_n && !in->guard && in->ops[0].kind == PTX_OP_IMM &&
	    in->ops[0].i >= 0 && in->ops[0].i < 16)
		emit_whole_barrier(t, (unsigned)in->ops[0].i, resume);
	sb_addf(&t->code, "\t\t{\n\t\tuint32_t ba[32], bn[32], bl = 0;\n"
		"\t\tfor (l = 0; l < 32; l++) if (m[l]) {\n\t\t\tW->ln.pc[l] = %u;\n\t\t\tif (",
		t->bb + 1);
	if (in->guard) {
		if (tr_guard(t, in, &t->code))
			goto out;
	} else {
		sb_adds(&t->code, "1");
	}
	sb_addf(&t->code, ") {\n\t\t\t\tba[l] = %s;\n\t\t\t\tbn[l] = %s;\n", a.buf, cnt.buf);
	if (!cluster)
		sb_addf(&t->code, "\t\t\t\tif (ag_bar_bad(w, l, ba[l], bn[l], %d)) return;\n", has_n);
	sb_addf(&t->code, "\t\t\t\tbl |= %du << l;\n", !cluster || !wait);
	if (cluster && !wait)
		sb_adds(&t->code, "\t\t\t\tW->ln.cgen[l] = w->bar->gen[ba[l]];\n");
	if (red)
		sb_addf(&t->code, "\t\t\t\tw->bar->%s[ba[l]][w->bar->gen[ba[l]] & 1] %s (%s);\n",
			op, acc, p.buf);
	if (wait)
		/* a cluster wait whose barrier already completed runs on: a
		 * round of waiting lanes only would be a deadlock */
		sb_addf(&t->code, "\t\t\t\tW->ln.st[l] = %s;\n\t\t\t\tW->ln.pc[l] = %u;\n"
			"\t\t\t\tW->ln.bid[l] = (uint8_t)ba[l];\n"
			"\t\t\t\tW->ln.bgen[l] = %s;\n",
			cluster ? "w->bar->gen[ba[l]] == W->ln.cgen[l] ? AG_WAIT : AG_RUN" : "AG_WAIT",
			resume, cluster ? "W->ln.cgen[l]" : "w->bar->gen[ba[l]]");
	sb_adds(&t->code, "\t\t\t}\n\t\t}\n\t\tag_bar_arrive(w, ba, bn, bl);\n\t\t}\n");
	rc = red ? emit_barrier_red_resume(t, in, op, resume) : 0;
out:
	sb_free(&a);
	sb_free(&cnt);
	sb_free(&p);
	return rc;
}

/* The per-lane storage of a call argument: a callseq .param. */
int tr_call_arg(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		const struct ptx_var *want, struct strbuf *sb)
{
	const struct tr_sym *s = o->kind == PTX_OP_SYM || o->kind == PTX_OP_REG ?
		tr_lookup(t, o->name) : NULL;

	if (!s || s->kind != TK_PARAM)
		return tr_unsupported(t, in, "call arguments must be .param variables");
	if (want && tr_row(s->size) != tr_row((uint64_t)ptx_type_size(want->type) *
					     (want->vec ? want->vec : 1) * want->count))
		return tr_fail(t, in->line, "call argument '%s' does not match the callee's "
			       "parameter size", o->name);
	sb_addf(sb, "W->q%u", s->id);
	return 0;
}

struct call {
	const struct ptx_operand *rets, *target, *args;
};

static int parse_call(struct tr *t, const struct ptx_insn *in, struct call *c)
{
	uint32_t i = 0;

	memset(c, 0, sizeof(*c));
	if (i < in->nops && in->ops[i].kind == PTX_OP_LIST)
		c->rets = &in->ops[i++];
	if (i >= in->nops)
		return tr_fail(t, in->line, "call without a target");
	c->target = &in->ops[i++];
	if (i < in->nops && in->ops[i].kind == PTX_OP_LIST)
		c->args = &in->ops[i++];
	return 0;
}

static int nth_arg(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *list,
		   uint32_t k, struct strbuf *sb)
{
	if (!list || k >= list->nelems)
		return tr_fail(t, in->line, "call has too few arguments");
	return tr_call_arg(t, in, &list->elems[k], NULL, sb);
}

/* trap: the block stops and the launch fails with cudaErrorLaunchFailure
 * (719), as a GPU reports __trap(). */
static int emit_trap(struct tr *t, const struct ptx_insn *in)
{
	if (tr_mods(t, in, "", NULL, 0, NULL) || tr_nops(t, in, 0, 0))
		return -1;
	tr_lanes_begin(t, in);
	sb_adds(&t->code, "ag_set_tid(w, l);\n\t\t\tb->env->svc->fault(b, 719, \"trap\");\n"
		"\t\t\treturn;\n");
	tr_lanes_end(t);
	return 0;
}

/* vprintf, __assertfail, malloc, free: the executor's services, lane by
 * lane in lane order. */
static int emit_extern_call(struct tr *t, const struct ptx_insn *in, const struct call *c,
			    const char *name)
{
	struct strbuf a0 = STRBUF_INIT, a1 = STRBUF_INIT, a2 = STRBUF_INIT;
	struct strbuf a3 = STRBUF_INIT, r = STRBUF_INIT;
	int rc = 0;

	if (c->rets && c->rets->nelems && tr_call_arg(t, in, &c->rets->elems[0], NULL, &r)) {
		rc = -1;
	} else if (!strcmp(name, "vprintf")) {
		if (nth_arg(t, in, c->args, 0, &a0) || nth_arg(t, in, c->args, 1, &a1)) {
			rc = -1;
			goto out;
		}
		tr_lanes_begin(t, in);
		sb_addf(&t->code, "int32_t rv = b->env->svc->vprintf(b, (const char *)(uintptr_t)"
			"ag_ld(uint64_t, %s[l]), (const void *)(uintptr_t)ag_ld(uint64_t, %s[l]));\n"
			"\t\t\t(void)rv;%s%s%s if (b->error) return;\n", a0.buf, a1.buf,
			r.len ? " ag_st(int32_t, " : "", r.len ? r.buf : "", r.len ? "[l], rv);" : "");
		tr_lanes_end(t);
	} else if (!strcmp(name, "__assertfail")) {
		if (nth_arg(t, in, c->args, 0, &a0) || nth_arg(t, in, c->args, 1, &a1) ||
		    nth_arg(t, in, c->args, 2, &a2) || nth_arg(t, in, c->args, 3, &a3)) {
			rc = -1;
			goto out;
		}
		tr_lanes_begin(t, in);
		sb_addf(&t->code, "ag_set_tid(w, l);\n\t\t\tb->env->svc->assertfail(b, "
			"(const char *)(uintptr_t)ag_ld(uint64_t, %s[l]), "
			"(const char *)(uintptr_t)ag_ld(uint64_t, %s[l]), ag_ld(uint32_t, %s[l]), "
			"(const char *)(uintptr_t)ag_ld(uint64_t, %s[l]));\n\t\t\treturn;\n",
			a0.buf, a1.buf, a2.buf, a3.buf);
		tr_lanes_end(t);
	} else if (!strcmp(name, "malloc")) {
		if (nth_arg(t, in, c->args, 0, &a0) || !r.len) {
			rc = r.len ? -1 : tr_fail(t, in->line, "malloc without a result");
			goto out;
		}
		tr_lanes_begin(t, in);
		sb_addf(&t->code, "ag_st(uint64_t, %s[l], (uint64_t)(uintptr_t)b->env->svc->malloc("
			"b, ag_ld(uint64_t, %s[l])));\n", r.buf, a0.buf);
		tr_lanes_end(t);
	} else if (!strcmp(name, "free")) {
		if (nth_arg(t, in, c->args, 0, &a0)) {
			rc = -1;
			goto out;
		}
		tr_lanes_begin(t, in);
		sb_addf(&t->code, "b->env->svc->free(b, (void *)(uintptr_t)ag_ld(uint64_t, %s[l]));\n",
			a0.buf);
		tr_lanes_end(t);
	} else {
		rc = tr_fail(t, in->line, "call to unknown extern function '%s' at line %d",
			     name, in->line);
	}
out:
	sb_free(&a0);
	sb_free(&a1);
	sb_free(&a2);
	sb_free(&a3);
	sb_free(&r);
	return rc;
}

/* The a[] array of a call: return rows, then parameter rows. */
static int emit_call_args(struct tr *t, const struct ptx_insn *in, const struct call *c,
			  const struct ptx_func *callee)
{
	uint32_t nr = c->rets ? c->rets->nelems : 0, na = c->args ? c->args->nelems : 0, i;

	if (callee && (nr != callee->nrets || na != callee->nparams))
		return tr_fail(t, in->line, "call to '%s' with %u results and %u arguments; it "
			       "takes %u and %u", callee->name, nr, na, callee->nrets,
			       callee->nparams);
	sb_adds(&t->code, "\t\t{\n\t\tunsigned char *const ca[] = { ");
	for (i = 0; i < nr + na; i++) {
		const struct ptx_operand *o = i < nr ? &c->rets->elems[i] : &c->args->elems[i - nr];
		const struct ptx_var *want = !callee ? NULL : i < nr ? &callee->rets[i] :
			&callee->params[i - nr];

		if (tr_call_arg(t, in, o, want, &t->code))
			return -1;
		sb_adds(&t->code, "[0], ");
	}
	sb_adds(&t->code, "NULL };\n\t\tuint8_t cm[32], cin[32];\n\t\t(void)ca;\n");
	sb_adds(&t->code, "\t\tfor (l = 0; l < 32; l++) cin[l] = m[l]");
	if (in->guard) {
		sb_adds(&t->code, " && ");
		if (tr_guard(t, in, &t->code))
			return -1;
	}
	sb_adds(&t->code, ";\n");
	return 0;
}

/* After a callee returns: lanes that exited inside leave this function. */
static void emit_call_exits(struct tr *t)
{
	sb_adds(&t->code, "\t\tif (b->error) return;\n"
		"\t\tfor (l = 0; l < 32; l++) if (cin[l] && !cm[l]) { W->ln.st[l] = AG_EXIT; m[l] = 0; }\n");
}

/* Through a pointer: the lanes that agree on a target call it together,
 * target by target in lane order. */
static int emit_indirect_call(struct tr *t, const struct ptx_insn *in, const struct call *c)
{
	struct strbuf e = STRBUF_INIT;

	if (tr_src(t, in, c->target, PTX_T_U64, &e) || emit_call_args(t, in, c, NULL)) {
		sb_free(&e);
		return -1;
	}
	t->fi[t->fidx].indirect = 1;
	sb_addf(&t->code, "\t\tuint64_t tv[32]; uint8_t todo[32], grp[32]; unsigned k, j;\n"
		"\t\tfor (l = 0; l < 32; l++) { tv[l] = %s; todo[l] = cin[l]; }\n"
		"\t\tfor (k = 0; k < 32; k++) {\n"
		"\t\t\tif (!todo[k]) continue;\n"
		"\t\t\tfor (j = 0; j < 32; j++) { grp[j] = cm[j] = todo[j] && tv[j] == tv[k]; "
		"if (grp[j]) todo[j] = 0; }\n"
		"\t\t\t((ag_func_fn)(uintptr_t)tv[k])(w, cm, ca);\n"
		"\t\t\tif (b->error) return;\n"
		"\t\t\tfor (j = 0; j < 32; j++) if (grp[j] && !cm[j]) { W->ln.st[j] = AG_EXIT; m[j] = 0; }\n"
		"\t\t}\n\t\t}\n", e.buf);
	sb_free(&e);
	return 0;
}

static int emit_call(struct tr *t, const struct ptx_insn *in)
{
	struct call c;
	uint32_t fi;
	const struct ptx_func *callee;

	if (tr_mods(t, in, ".uni", NULL, 0, NULL) || parse_call(t, in, &c))
		return -1;
	if (c.target->kind == PTX_OP_REG && t->scalar)
		return tr_fast_call(t, in, c.rets, c.args, c.target, UINT32_MAX);
	if (c.target->kind == PTX_OP_REG)
		return emit_indirect_call(t, in, &c);
	fi = c.target->kind == PTX_OP_SYM ? tr_func_index(t, c.target->name) : UINT32_MAX;
	if (fi == UINT32_MAX)
		return tr_fail(t, in->line, "call to unknown function at line %d", in->line);
	callee = &t->m->funcs[fi];
	if (callee->is_decl)
		return emit_extern_call(t, in, &c, callee->name);
	if (callee->is_entry)
		return tr_fail(t, in->line, "call to kernel '%s'", callee->name);
	if (t->scalar)
		return tr_fast_call(t, in, c.rets, c.args, c.target, fi);
	add_callee(t, fi);
	if (emit_call_args(t, in, &c, callee))
		return -1;
	sb_addf(&t->code, "\t\tmemcpy(cm, cin, 32);\n\t\tag_f%u(w, cm, ca);\n", fi);
	emit_call_exits(t);
	sb_adds(&t->code, "\t\t}\n");
	return 0;
}

/* The emitter of an instruction that only reads and writes its lane's own
 * registers and memory, or NULL: arithmetic, conversions, and the memory
 * operations named here (not the ones that wait for other threads). */
static tr_emit_fn lane_local_emitter(const struct ptx_insn *in)
{
	static const char *const mem[] = {
		"ld", "ldu", "st", "cvta", "atom", "red", "membar", "fence",
		"prefetch", "prefetchu", "isspacep",
	};
	tr_emit_fn fn = tr_arith_emitter(in->opcode);
	size_t i;

	if (!fn)
		fn = tr_cvt_emitter(in->opcode);
	for (i = 0; i < sizeof(mem) / sizeof(mem[0]) && !fn; i++)
		if (!strcmp(in->opcode, mem[i]))
			fn = tr_mem_emitter(in->opcode);
	return fn;
}

/* Whether a lane-local instruction loads or stores memory. */
static int reaches_memory(const struct ptx_insn *in)
{
	return !tr_arith_emitter(in->opcode) && !tr_cvt_emitter(in->opcode) &&
		strcmp(in->opcode, "cvta") && strcmp(in->opcode, "isspacep");
}

int tr_emit_insn(struct tr *t, const struct ptx_insn *in)
{
	static const struct {
		const char *op;
		tr_emit_fn fn;
	} flow[] = {
		{ "bra", emit_branch }, { "brx", emit_branch_indexed }, { "ret", emit_ret },
		{ "exit", emit_exit }, { "call", emit_call }, { "trap", emit_trap },
	};
	tr_emit_fn fn = NULL;
	size_t i;
	int rc;

	if ((rc = tr_stride_scalar(t, in)))
		return rc < 0 ? -1 : 0;
	if (t->shape && tr_fast_flow(in->opcode)) {
		sb_addf(&t->code, "\t\t/* %d: %s */\n", in->line, in->opcode);
		return tr_group_flow(t, in);
	}
	if (t->scalar && (fn = tr_fast_flow(in->opcode))) {
		sb_addf(&t->code, "\t\t/* %d: %s */\n", in->line, in->opcode);
		return fn(t, in);
	}
	if (t->shape && tr_warp_op(in->opcode)) {
		/* a call that runs a warp (emit_warp.c ends its loop) */
		sb_addf(&t->code, "\t\t/* %d: %s */\n", in->line, in->opcode);
		return tr_warp_emitter(in->opcode)(t, in);
	}
	if (t->shape) {
		size_t from = t->code.len;

		tr_group_begin(t, in);
		sb_addf(&t->code, "\t\t/* %d: %s */\n", in->line, in->opcode);
		fn = lane_local_emitter(in);
		rc = fn ? fn(t, in) : tr_unsupported(t, in, "in a group of threads");
		if (!rc)
			tr_group_end(t, in, from);
		return rc;
	}
	for (i = 0; i < sizeof(flow) / sizeof(flow[0]) && !fn; i++)
		if (!strcmp(in->opcode, flow[i].op))
			fn = flow[i].fn;
	if (!fn && !is_block_barrier(in) && (fn = lane_local_emitter(in))) {
		/* volatile: the mark of warp-synchronous shared-memory code */
		tr_fuse(t, !tr_has(in, ".volatile"));
		tr_seg(t, in, reaches_memory(in));
	} else {
		tr_fuse(t, 0);
	}
	sb_addf(&t->code, "\t\t/* %d: %s */\n", in->line, in->opcode);
	rc = tr_aff_insn(t, in);
	if (rc)
		return rc < 0 ? -1 : 0;
	if (is_block_barrier(in))
		return emit_barrier(t, in);
	if (!fn)
		fn = tr_mem_emitter(in->opcode);
	if (!fn)
		fn = tr_warp_emitter(in->opcode);
	if (!fn)
		fn = tr_tex_emitter(in->opcode);
	if (!fn)
		return tr_unsupported(t, in, NULL);
	if (tr_stride_guard(t, in))
		return -1;
	return fn(t, in);
}

/* The block's end when no terminator ended it: on to the next block, or
 * past the function's end, which returns. */
static void emit_fallthrough(struct tr *t, int terminated)
{
	if (t->shape)
		tr_group_close(t);
	if (t->scalar)
		return;
	tr_fuse(t, 0);
	if (!terminated) {
		if (t->bb + 1 < t->nbb) {
			sb_addf(&t->code, "\t\tfor (l = 0; l < 32; l++) if (m[l]) W->ln.pc[l] = %u;\n",
				t->bb + 1);
			emit_whole_jump(t, "", t->bb + 1);
		} else if (t->fn->is_entry) {
			emit_lane_state(t, NULL, "AG_EXIT");
		} else {
			sb_adds(&t->code, "\t\tfor (l = 0; l < 32; l++) if (m[l]) W->ln.st[l] = AG_RET;\n");
		}
	}
	sb_adds(&t->code, "\t\tbreak;\n");
}

/* The start of basic block n: a case of the warp loop's switch, or a
 * label of the scalar version. */
static void block_label(struct tr *t, uint32_t n)
{
	sb_addf(&t->code, t->scalar ? "ag_L%u:;\n" : "\tcase %u: ag_b%u:\n", n, n);
}

/*
 * The unguarded setp that is the one write, in a block of n instructions,
 * of the predicate of the conditional branch that ends it, when nothing
 * else in the block reads the predicate and it may differ between lanes:
 * the setp then counts the lanes where it holds as it writes them
 * (ag_cnt), and the branch takes the count from there instead of counting
 * the stored bytes again (reduce 9.1-9.6 -> 8.6-9.1 ms, the histogram
 * 35.6-36.1 -> 33.1-33.4, saxpy 12.8-13.7 -> 11.6-12.5, one thread, six
 * processes each).  Read by nothing else, the setp feeds no address, and
 * a run computes it once per lane.
 */
static const struct ptx_insn *lane_counter(const struct tr *t, const struct ptx_insn *const *ins,
					   uint32_t n)
{
	const struct ptx_insn *last = n ? ins[n - 1] : NULL, *w = NULL;
	uint32_t j;

	if (!last || strcmp(last->opcode, "bra") || !last->guard ||
	    tr_uniform_reg(t->uniform, last->guard))
		return NULL;
	for (j = 0; j + 1 < n; j++) {
		if (tr_writes(ins[j], last->guard)) {
			if (w)
				return NULL;
			w = ins[j];
		} else if (tr_mentions(ins[j], last->guard, 0)) {
			return NULL;
		}
	}
	if (!w || w->guard || strcmp(w->opcode, "setp") || w->ops[0].kind != PTX_OP_REG ||
	    w->ops[0].component || strcmp(w->ops[0].name, last->guard))
		return NULL;
	return w;
}

/*
 * The start of basic block n, whose statements start at body[i].  In the
 * lockstep version a loop of one block gets a second start, ag_kN, which
 * only its back edge jumps to, with ag_keep set when the forms its
 * accesses found on this turn hold on the next (vector.c, steady.c).  A
 * warp that yielded at that back edge (AG_TURNS) comes back to the first
 * start for its next turn, with w->kept saying that they still hold:
 * nothing but the warp itself changes its registers meanwhile, and the
 * first block it runs is that one (a device function's loop: at once).
 */
static int block_start(struct tr *t, const uint32_t *bb, uint32_t i)
{
	const struct ptx_func *f = t->fn;
	const struct ptx_insn **ins;
	uint32_t j, n = 0;

	block_label(t, t->bb);
	tr_steady_free(t->steady);
	t->steady = NULL;
	t->counter = NULL;
	if (t->scalar)
		return bb[i] == t->bb ? tr_stride_block(t, i) : 0;
	for (j = i; j < f->nbody && bb[j] == t->bb; j++)
		n += f->body[j].kind == PTX_STMT_INSN;
	ins = xcalloc(n + 1, sizeof(*ins));
	for (n = 0, j = i; j < f->nbody && bb[j] == t->bb; j++)
		if (f->body[j].kind == PTX_STMT_INSN)
			ins[n++] = &f->body[j].u.insn;
	t->steady = tr_steady_scan(t, ins, n);
	t->counter = lane_counter(t, ins, n);
	free(ins);
	if (t->counter && !t->has_cnt) {
		sb_adds(&t->vars, "\tunsigned ag_cnt = 0;\n");
		t->has_cnt = 1;
	}
	if (t->steady) {
		if (!t->has_keep) {
			sb_adds(&t->vars, "\tint ag_keep = 0, ag_steady = 0;\n");
			t->has_keep = 1;
		}
		sb_addf(&t->code, "\t\tag_keep = w->kept == %u;\n\t\tw->kept = 0;\n"
			"\t\tag_steady = 1;\n\tag_k%u:;\n", t->bb + 1, t->bb);
	}
	if (t->counter)
		sb_adds(&t->code, "\t\tag_cnt = 0;\n");
	return 0;
}

/* Pass 2: declarations and blocks, in order. */
static int emit_body(struct tr *t, const uint32_t *bb)
{
	const struct ptx_func *f = t->fn;
	const struct ptx_insn **ins = xcalloc(f->nbody + 1, sizeof(*ins));
	uint32_t i, nins = 0;
	size_t at;
	int terminated = 0, rc = 0;

	t->bb = 0;
	rc = block_start(t, bb, 0);
	at = t->code.len;
	for (i = 0; i < f->nbody && !rc; i++) {
		const struct ptx_stmt *s = &f->body[i];

		if (bb[i] != t->bb) {
			emit_fallthrough(t, terminated);
			tr_localize(t, ins, nins, at);
			nins = 0;
			while (t->bb < bb[i] && !rc) {
				t->bb++;
				rc = block_start(t, bb, i);
			}
			at = t->code.len;
			terminated = 0;
		}
		switch (s->kind) {
		case PTX_STMT_INSN: {
			size_t from = t->code.len;

			ins[nins++] = &s->u.insn;
			rc = tr_emit_insn(t, &s->u.insn);
			if (!rc)
				tr_remat_note(t, &s->u.insn, from);
			terminated = ends_block(&s->u.insn);
			break;
		}
		case PTX_STMT_DECL:
			rc = declare(t, &s->u.decl);
			break;
		case PTX_STMT_OPEN:
			t->scopes = xrealloc(t->scopes, (t->nscopes + 1) * sizeof(*t->scopes));
			t->scopes[t->nscopes++] = t->nsyms;
			break;
		case PTX_STMT_CLOSE:
			if (!t->nscopes)
				rc = tr_fail(t, s->line, "unbalanced '}'");
			else
				t->nsyms = t->scopes[--t->nscopes];
			break;
		default:
			break;
		}
	}
	if (!rc) {
		emit_fallthrough(t, terminated);
		tr_localize(t, ins, nins, at);
		tr_steady_free(t->steady);
		t->steady = NULL;
		while (t->bb + 1 < t->nbb) {
			block_label(t, ++t->bb);
			emit_fallthrough(t, 0);
		}
		if (t->tail.len)
			sb_add(&t->code, t->tail.buf, t->tail.len);
	}
	free(ins);
	return rc ? -1 : 0;
}

/* The frame is reached only through W when the function has no .local
 * memory (whose addresses registers may hold) and makes no calls (which
 * get pointers into it): 'restrict' then tells the C compiler that device
 * memory is not the frame, which lets it turn loops over the lanes into
 * vector instructions.  GCC honours it on parameters, not on W. */
static const char *frame_qualifier(const struct tr *t, uint32_t fidx)
{
	const struct tr_fninfo *fi = &t->fi[fidx];

	return fi->local_bytes || fi->ncallees || fi->indirect ? "" : "restrict ";
}

static void emit_run(struct tr *t, uint32_t fidx, struct strbuf *out)
{
	sb_addf(out, "/* %s %s */\nstruct ag_fr%u {\n\tstruct ag_lanes ln;\n%s%s};\n\n",
		t->fn->is_entry ? ".entry" : ".func", t->fn->name, fidx,
		t->frame.buf ? t->frame.buf : "", t->kept.buf ? t->kept.buf : "");
	sb_addf(out, "AG_RUN_FN %svoid ag_run%u(struct ag_warp *w, "
		"void *%sframe, unsigned char *const *a)\n{\n"
		"\tstruct ag_fr%u *W = frame;\n"
		"\tstruct ag_block *const b = w->b;\n"
		"\tunsigned char *const sh = b->shared;\n"
		"\tconst unsigned char *const prm = b->env->params;\n"
		"\tuint8_t m[32];\n\tunsigned l;\n%s\n"
		"\t(void)sh; (void)prm; (void)a;\n"
		"\tfor (;;) {\n\tswitch (ag_pick(w, &W->ln, m)) {\n%s"
		"\tdefault:\n%s\t\treturn;\n\t}\n%s\t}\n}\n\n",
		t->fn->is_entry && tr_lockstep_wide(t, fidx) ? "AG_WIDE " : "", fidx,
		frame_qualifier(t, fidx), fidx, t->vars.buf ? t->vars.buf : "", t->code.buf,
		/* lanes waiting at a barrier inside a device function: the warp
		 * stops here until the barrier completes */
		t->fn->is_entry || !t->fi[fidx].barrier_line ? "" :
		"\t\tif (ag_waiting(&W->ln)) {\n\t\t\tif (ag_yield(w))\n\t\t\t\tcontinue;\n"
		"\t\t\tb->env->svc->fault(b, 719, \"barrier in a device function called "
		"without a warp stack\");\n\t\t}\n",
		/* a kernel's warps take turns, a basic block at a time */
		t->fn->is_entry ? "\tif (w->step)\n\t\treturn;\n" : "");
	if (t->fn->is_entry)
		return;
	/* a function with barriers tells them which lanes are not in it */
	sb_addf(out, "static void ag_f%u(struct ag_warp *w, uint8_t *m, "
		"unsigned char *const *a)\n{\n\tstruct ag_fr%u fr;\n%s\n"
		"\tag_enter(&fr.ln, m);\n\tag_run%u(w, &fr, a);\n\tag_leave(&fr.ln, m);\n%s}\n\n",
		fidx, fidx, t->fi[fidx].barrier_line ? "\tconst uint32_t out = w->outside;\n\n"
		"\tw->outside |= ~ag_mask_bits(m);\n" : "", fidx,
		t->fi[fidx].barrier_line ? "\tw->outside = out;\n" : "");
}

int tr_function(struct tr *t, uint32_t fidx, struct strbuf *out)
{
	uint32_t *bb;
	uint32_t shared_start = t->shared_size;
	int own = t->m->funcs[fidx].is_entry, rc;

	/* The scalar version lays out the function's .shared declarations
	 * again, at the offsets the lockstep one gave them; a kernel's own
	 * start where every kernel's do (translate.c, layout_shared). */
	if (t->scalar || own)
		t->shared_size = t->fi[fidx].shared_base;
	else
		t->fi[fidx].shared_base = shared_start;
	t->fidx = fidx;
	t->fn = &t->m->funcs[fidx];
	t->nsyms = 0;
	t->nscopes = 0;
	t->ndecl = 0;
	t->nextra = 0;
	sb_reset(&t->tail);
	sb_reset(&t->frame);
	sb_reset(&t->kept);
	sb_reset(&t->code);
	sb_reset(&t->locals);
	sb_reset(&t->vars);
	t->has_cnt = t->has_keep = 0;
	t->nregs = 0;
	t->nresume = 0;
	t->records = t->scalar && t->fn->is_entry && !t->shape && tr_fast_straight(t->fn);
	t->stride = t->fi[fidx].stride;
	t->past_loop = 0;
	t->nrec[0] = t->nrec[1] = 0;
	declare_params(t);
	t->consts = tr_consts_scan(t->fn);
	if (t->scalar && t->fn->is_entry && !t->shape) {
		t->aff = tr_aff_scan(t->fn, t->stride ? t->stride->step : NULL,
				     t->stride ? t->stride->end : t->fn->nbody);
		/* the lockstep translation, done first, saw its barriers */
		if (t->fi[fidx].flags & AG_KF_BARRIER)
			t->remat = tr_remat_scan(t->fn, t->consts);
	}
	if (!t->scalar) {
		t->forms = tr_forms_scan(t->fn);
		t->uniform = tr_uniform_scan(t->m, t->fn);
	}
	bb = split_blocks(t);
	rc = emit_body(t, bb);
	free(bb);
	if (!rc && t->shared_size > t->fi[fidx].shared_base &&
	    t->shared_size > t->fi[fidx].shared_end)
		t->fi[fidx].shared_end = t->shared_size;
	if (!rc && t->shape) {
		t->shared_size = shared_start;
		tr_group_function(t, fidx, out);
	} else if (!rc && t->scalar) {
		t->shared_size = shared_start;
		tr_fast_function(t, fidx, out);
	} else if (!rc) {
		emit_run(t, fidx, out);
	}
	if (own)
		t->shared_size = shared_start;
	tr_aff_free(t->aff);
	t->aff = NULL;
	tr_remat_free(t->remat);
	t->remat = NULL;
	tr_live_free(t->live);
	t->live = NULL;
	t->lived = 0;
	tr_forms_free(t->forms);
	t->forms = NULL;
	tr_consts_free(t->consts);
	t->consts = NULL;
	tr_uniform_free(t->uniform);
	t->uniform = NULL;
	tr_group_free(t);
	return rc ? -1 : 0;
}

const struct tr_live *tr_liveness(struct tr *t)
{
	if (!t->lived) {
		t->live = tr_live_scan(t->fn);
		t->lived = 1;
	}
	return t->live;
}
