/*
 * translate.c - a PTX module to one C translation unit: the prelude
 * (kernel_abi.h and translate_rt.h), the storage of module variables with
 * their initializers and relocations, the static .shared layout, every
 * function (translate_func.c), and the tables kernel_abi.h asks for.  It
 * also owns error reporting for the whole translator.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/kernel_abi.h"
#include "cpu/translate_int.h"

int tr_fail(struct tr *t, int line, const char *fmt, ...)
{
	va_list ap;

	t->err->line = line;
	t->err->col = 0;
	va_start(ap, fmt);
	vsnprintf(t->err->msg, sizeof(t->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

/* "unsupported instruction 'tex.2d.v4.f32.f32' at line 123" */
int tr_unsupported(struct tr *t, const struct ptx_insn *in, const char *why)
{
	char name[160];
	size_t n;
	uint32_t i;

	n = (size_t)snprintf(name, sizeof(name), "%s", in->opcode);
	for (i = 0; i < in->nmods && n < sizeof(name); i++)
		n += (size_t)snprintf(name + n, sizeof(name) - n, "%s", in->mods[i]);
	if (why)
		return tr_fail(t, in->line, "unsupported instruction '%s' at line %d (%s)",
			       name, in->line, why);
	return tr_fail(t, in->line, "unsupported instruction '%s' at line %d", name, in->line);
}

const struct tr_sym *tr_msym(const struct tr *t, const char *name)
{
	uint32_t i;

	for (i = 0; i < t->nmsyms; i++)
		if (!strcmp(t->msyms[i].name, name))
			return &t->msyms[i];
	return NULL;
}

/* The function with a body of that name, else its declaration; UINT32_MAX
 * when there is none. */
uint32_t tr_func_index(const struct tr *t, const char *name)
{
	uint32_t i, found = UINT32_MAX;

	for (i = 0; i < t->m->nfuncs; i++) {
		if (strcmp(t->m->funcs[i].name, name))
			continue;
		if (!t->m->funcs[i].is_decl)
			return i;
		found = i;
	}
	return found;
}

static uint64_t var_bytes(const struct ptx_var *v)
{
	return (uint64_t)ptx_type_size(v->type) * (v->vec ? v->vec : 1) * v->count;
}

static uint32_t var_align(const struct ptx_var *v)
{
	uint32_t a = v->align ? v->align : ptx_type_size(v->type) * (v->vec ? v->vec : 1);

	return a ? a : 1;
}

static void add_msym(struct tr *t, const char *name, enum tr_kind kind, uint32_t id,
		     uint64_t off, const struct ptx_var *v)
{
	struct tr_sym *s = &t->msyms[t->nmsyms++];

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->kind = kind;
	s->id = id;
	s->off = off;
	s->var = v;
	if (v) {
		s->type = v->type;
		s->size = var_bytes(v);
	}
}

static int static_shared(const struct ptx_var *v)
{
	return v->space == PTX_SPACE_SHARED && !v->unsized && !v->is_extern;
}

/* Module items by name, for names_used: variables first, then functions. */
struct item {
	const char *name;
	uint32_t k;
};

static int cmp_item(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->name, ((const struct item *)b)->name);
}

/* Whether in calls through a register: `call (ret), %rd5, (args)`. */
static int indirect_call(const struct ptx_insn *in)
{
	uint32_t i = in->nops && in->ops[0].kind == PTX_OP_LIST;

	return !strcmp(in->opcode, "call") && i < in->nops && in->ops[i].kind == PTX_OP_REG;
}

/*
 * What each function names (uses[f * n + k], n = nvars + nfuncs: module
 * variable k when k < nvars, else function k - nvars), through whatever
 * operand: a load's address, a mov of its address, a call.  A call
 * through a register may reach any function.
 */
static uint8_t *names_used(const struct ptx_module *m)
{
	uint32_t n = m->nvars + m->nfuncs, f, i, j, e;
	uint8_t *uses = xcalloc((size_t)m->nfuncs * n + 1, 1);
	struct item *items = xcalloc(n + 1, sizeof(*items)), key, *hit;

	for (i = 0; i < m->nvars; i++)
		items[i] = (struct item){ m->vars[i].name, i };
	for (i = 0; i < m->nfuncs; i++)
		items[m->nvars + i] = (struct item){ m->funcs[i].name, m->nvars + i };
	qsort(items, n, sizeof(*items), cmp_item);
	for (f = 0; f < m->nfuncs; f++) {
		uint8_t *row = uses + (size_t)f * n;

		for (i = 0; i < m->funcs[f].nbody; i++) {
			const struct ptx_insn *in = tr_insn_at(&m->funcs[f], i);

			if (in && indirect_call(in))
				memset(row + m->nvars, 1, m->nfuncs);
			for (j = 0; in && j < in->nops; j++) {
				const struct ptx_operand *o = &in->ops[j];
				int many = o->kind == PTX_OP_VEC || o->kind == PTX_OP_LIST;

				for (e = 0; e < (many ? o->nelems : 1); e++) {
					const struct ptx_operand *x = many ? &o->elems[e] : o;

					if (!x->name || (x->kind != PTX_OP_SYM &&
							 (x->kind != PTX_OP_ADDR || x->base_is_reg)))
						continue;
					key.name = x->name;
					/* a name both a variable and a function counts as both */
					hit = bsearch(&key, items, n, sizeof(*items), cmp_item);
					while (hit && hit > items && !strcmp(hit[-1].name, x->name))
						hit--;
					for (; hit && hit < items + n && !strcmp(hit->name, x->name); hit++)
						row[hit->k] = 1;
				}
			}
		}
	}
	free(items);
	return uses;
}

/* Adds to reached (one byte per module variable) what function f names,
 * and what the functions it names do. */
static void reach_vars(const struct ptx_module *m, const uint8_t *uses, uint32_t f,
		       uint8_t *seen, uint8_t *reached)
{
	uint32_t n = m->nvars + m->nfuncs, k;

	if (seen[f])
		return;
	seen[f] = 1;
	for (k = 0; k < m->nvars; k++)
		reached[k] |= uses[(size_t)f * n + k];
	for (k = 0; k < m->nfuncs; k++)
		if (uses[(size_t)f * n + m->nvars + k])
			reach_vars(m, uses, k, seen, reached);
}

/* A static .shared variable to place: the module's (func UINT32_MAX), or
 * one declared in device function func's body. */
struct slot {
	const struct ptx_var *v;
	uint32_t func;
};

/* The module's static .shared variables, then those in device functions'
 * bodies, in body order. */
static struct slot *shared_slots(const struct ptx_module *m, uint32_t *n)
{
	struct slot *v = NULL;
	uint32_t f, i, cap = 0;

	*n = 0;
	for (f = 0; f <= m->nfuncs; f++) {
		const struct ptx_func *fn = f ? &m->funcs[f - 1] : NULL;
		uint32_t count = fn ? (fn->is_entry ? 0 : fn->nbody) : m->nvars;

		for (i = 0; i < count; i++) {
			const struct ptx_var *x = fn ? &fn->body[i].u.decl : &m->vars[i];

			if ((fn && fn->body[i].kind != PTX_STMT_DECL) || !static_shared(x))
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 16;
				v = xrealloc(v, cap * sizeof(*v));
			}
			v[(*n)++] = (struct slot){ x, fn ? f - 1 : UINT32_MAX };
		}
	}
	return v;
}

/* Where slot i may go, at or past at, clear of the slots placed before it
 * that some kernel reaches with it (reach: a row of n bytes a kernel,
 * nk rows). */
static uint64_t free_offset(const struct slot *sl, const uint8_t *reach, uint32_t n,
			    uint32_t nk, const uint64_t *off, uint32_t i, uint64_t at)
{
	uint64_t a = var_align(sl[i].v), size = var_bytes(sl[i].v);
	uint32_t j, k;
	int moved = 1;

	while (moved) {
		moved = 0;
		at = (at + a - 1) / a * a;
		for (j = 0; j < i && !moved; j++) {
			if (off[j] + var_bytes(sl[j].v) <= at || at + size <= off[j])
				continue;
			for (k = 0; k < nk && !moved; k++)
				moved = reach[(size_t)k * n + i] && reach[(size_t)k * n + j];
			if (moved)
				at = off[j] + var_bytes(sl[j].v);
		}
	}
	return at;
}

/*
 * The offsets of the static .shared variables: the module's (off, by
 * variable) and those declared in device functions' bodies (their
 * shared_at), and where each kernel's own declarations start.  A kernel
 * gets the memory of the variables it reaches (through the functions it
 * calls), as on a GPU, where a module's other kernels' variables take
 * none of it: two variables that no kernel reaches both may lie at the
 * same offset.  Laid out one after the other instead, Thrust's sort
 * (CUB's many kernels a module) asked 104 KiB of each block, more than a
 * block has.  Each goes, in turn, to the lowest offset that overlaps no
 * variable already placed that a kernel reaches with it; a kernel's own
 * (nvcc puts a template's `static __shared__` there) follow what it
 * reaches.
 */
static void layout_shared(struct tr *t, uint64_t *off)
{
	const struct ptx_module *m = t->m;
	uint32_t n, nk = 0, f, i, *row = xcalloc(m->nfuncs + 1, sizeof(*row));
	struct slot *sl = shared_slots(m, &n);
	uint8_t *uses = names_used(m), *seen = xcalloc(m->nfuncs + 1, 1);
	uint8_t *vars = xcalloc(m->nvars + 1, 1), *reach;
	uint64_t *at = xcalloc(n + 1, sizeof(*at)), end;

	for (f = 0; f < m->nfuncs; f++)
		row[f] = m->funcs[f].is_entry ? nk++ : UINT32_MAX;
	reach = xcalloc((size_t)nk * n + 1, 1);
	for (f = 0; f < m->nfuncs; f++) {
		if (row[f] == UINT32_MAX)
			continue;
		memset(seen, 0, m->nfuncs);
		memset(vars, 0, m->nvars);
		reach_vars(m, uses, f, seen, vars);
		for (i = 0; i < n; i++) {
			if (sl[i].func == UINT32_MAX)
				reach[(size_t)row[f] * n + i] = vars[sl[i].v - m->vars];
			else
				reach[(size_t)row[f] * n + i] = seen[sl[i].func];
		}
	}
	for (i = 0; i < n; i++) {
		at[i] = free_offset(sl, reach, n, nk, at, i, 0);
		if (sl[i].func == UINT32_MAX) {
			off[sl[i].v - m->vars] = at[i];
		} else {
			struct tr_fninfo *fi = &t->fi[sl[i].func];

			fi->shared_at = xrealloc(fi->shared_at, (fi->nshared_at + 1) *
						 sizeof(*fi->shared_at));
			fi->shared_at[fi->nshared_at++] = (struct tr_shared_at){ sl[i].v,
										(uint32_t)at[i] };
		}
		if (at[i] + var_bytes(sl[i].v) > t->shared_size)
			t->shared_size = (uint32_t)(at[i] + var_bytes(sl[i].v));
	}
	for (f = 0; f < m->nfuncs; f++) {
		for (i = 0, end = 0; row[f] != UINT32_MAX && i < n; i++)
			if (reach[(size_t)row[f] * n + i] && at[i] + var_bytes(sl[i].v) > end)
				end = at[i] + var_bytes(sl[i].v);
		t->fi[f].shared_base = (uint32_t)end;
	}
	free(row);
	free(sl);
	free(uses);
	free(seen);
	free(vars);
	free(reach);
	free(at);
}

/* Module variables become symbols; static .shared ones get their offsets. */
static void collect_module_syms(struct tr *t)
{
	const struct ptx_module *m = t->m;
	uint64_t *off = xcalloc(m->nvars + 1, sizeof(*off));
	uint32_t i;

	layout_shared(t, off);
	t->msyms = xcalloc(m->nvars + m->nfuncs + 1, sizeof(*t->msyms));
	for (i = 0; i < m->nvars; i++) {
		const struct ptx_var *v = &m->vars[i];

		if (v->space == PTX_SPACE_SHARED && (v->unsized || v->is_extern)) {
			add_msym(t, v->name, TK_DYNSHARED, i, 0, v);
		} else if (v->space == PTX_SPACE_SHARED) {
			add_msym(t, v->name, TK_SHARED, i, off[i], v);
		} else if ((v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST) &&
			   !v->is_extern) {
			add_msym(t, v->name, TK_GVAR, i, 0, v);
		}
	}
	free(off);
	for (i = 0; i < m->nfuncs; i++)
		if (tr_func_index(t, m->funcs[i].name) == i)
			add_msym(t, m->funcs[i].name, TK_FUNC, i, 0, NULL);
}

static void emit_var_storage(struct tr *t, struct strbuf *out)
{
	uint32_t i;
	uint64_t k;

	for (i = 0; i < t->nmsyms; i++) {
		const struct tr_sym *s = &t->msyms[i];
		uint32_t a;

		if (s->kind != TK_GVAR)
			continue;
		a = var_align(s->var);
		sb_addf(out, "static unsigned char ag_v%u[%llu] __attribute__((aligned(%u)))",
			s->id, (unsigned long long)(s->size ? s->size : 1), a < 16 ? 16 : a);
		if (s->var->init && s->var->init_size) {
			sb_adds(out, " = {");
			for (k = 0; k < s->var->init_size && k < s->size; k++)
				sb_addf(out, "%s%s%u", k ? "," : "", k % 24 ? "" : "\n\t",
					s->var->init[k]);
			sb_adds(out, "\n}");
		}
		sb_adds(out, ";\n");
	}
}

/* Addresses inside initializers are only known once the .so is loaded:
 * a constructor writes them. */
static int emit_relocations(struct tr *t, struct strbuf *out)
{
	uint32_t i, r;

	sb_adds(out, "__attribute__((constructor)) static void ag_relocate(void)\n{\n"
		"\tuint64_t v;\n\t(void)v;\n");
	for (i = 0; i < t->nmsyms; i++) {
		const struct tr_sym *s = &t->msyms[i];

		if (s->kind != TK_GVAR)
			continue;
		for (r = 0; r < s->var->nrelocs; r++) {
			const struct ptx_reloc *rl = &s->var->relocs[r];
			const struct tr_sym *to = tr_msym(t, rl->symbol);

			if (!to || (to->kind != TK_GVAR && to->kind != TK_FUNC))
				return tr_fail(t, s->var->line,
					       "initializer of '%s' takes the address of '%s', "
					       "which is not a global, constant or function here",
					       s->name, rl->symbol);
			if (rl->size > 8 || rl->offset + rl->size > s->size)
				return tr_fail(t, s->var->line, "bad relocation in '%s'", s->name);
			sb_addf(out, "\tv = (uint64_t)(uintptr_t)%sag_%c%u + (uint64_t)%lldLL;\n"
				"\tmemcpy(ag_v%u + %llu, &v, %u);\n",
				to->kind == TK_FUNC ? "&" : "", to->kind == TK_FUNC ? 'f' : 'v',
				to->id, (long long)rl->addend, s->id,
				(unsigned long long)rl->offset, rl->size);
		}
	}
	sb_adds(out, "}\n\n");
	return 0;
}

static void emit_prototypes(struct tr *t, struct strbuf *out)
{
	uint32_t i;

	for (i = 0; i < t->m->nfuncs; i++) {
		const struct ptx_func *f = &t->m->funcs[i];

		if (f->is_decl || tr_func_index(t, f->name) != i)
			continue;
		if (!f->is_entry)
			sb_addf(out, "static void ag_f%u(struct ag_warp *w, uint8_t *m, "
				"unsigned char *const *a);\n", i);
		else
			sb_addf(out, "static void ag_k%u(struct ag_block *b);\n", i);
		if (f->is_entry && t->fi[i].stride && t->fi[i].stride->in_block)
			sb_addf(out, "static int ag_own%u(struct ag_block *b);\n", i);
	}
	sb_adds(out, "\n");
}

/* What a kernel reaches through calls: the largest static .shared end, the
 * union of flags, and whether a barrier sits in a called function. */
static void reach(struct tr *t, uint32_t f, uint8_t *seen, uint32_t *shared_end,
		  unsigned *flags)
{
	const struct tr_fninfo *fi = &t->fi[f];
	uint32_t i;

	if (seen[f])
		return;
	seen[f] = 1;
	if (fi->shared_end > *shared_end)
		*shared_end = fi->shared_end;
	*flags |= fi->flags;
	for (i = 0; i < fi->ncallees; i++)
		reach(t, fi->callees[i], seen, shared_end, flags);
	if (fi->indirect)
		for (i = 0; i < t->m->nfuncs; i++)
			if (!t->m->funcs[i].is_entry && !t->m->funcs[i].is_decl)
				reach(t, i, seen, shared_end, flags);
}

/* The blocks of a cluster that .reqnctapercluster asks for (1 without). */
static uint32_t cluster_blocks(const struct ptx_func *f)
{
	uint32_t n = 1, k;

	for (k = 0; k < 3; k++)
		n *= f->reqnctapercluster[k] ? f->reqnctapercluster[k] : 1;
	return n;
}

static int emit_tables(struct tr *t, struct strbuf *out)
{
	const struct ptx_module *m = t->m;
	uint8_t *seen = xcalloc(m->nfuncs + 1, 1);
	struct strbuf list = STRBUF_INIT;
	uint32_t i, j, sh;
	unsigned flags, nt;
	int rc = 0, co;

	for (i = 0; i < m->nfuncs && rc >= 0; i++) {
		const struct ptx_func *f = &m->funcs[i];

		if (!f->is_entry || f->is_decl)
			continue;
		if (cluster_blocks(f) > 1) {
			rc = tr_fail(t, f->line, "kernel '%s' at line %d asks for thread block clusters "
				     "of %u blocks (__cluster_dims__): the cpu backend runs every block "
				     "as a cluster of its own", f->name, f->line, cluster_blocks(f));
			break;
		}
		memset(seen, 0, m->nfuncs);
		sh = 0;
		flags = 0;
		reach(t, i, seen, &sh, &flags);
		/* device functions with barriers and mbarrier waits need a
		 * stack per warp */
		co = 0;
		for (j = 0; j < m->nfuncs; j++)
			co |= seen[j] && ((j != i && t->fi[j].barrier_line) || t->fi[j].spins);
		nt = f->reqntid[0] ? f->reqntid[0] * (f->reqntid[1] ? f->reqntid[1] : 1) *
			(f->reqntid[2] ? f->reqntid[2] : 1) : 0;
		if (!nt && f->maxntid[0])
			nt = f->maxntid[0] * (f->maxntid[1] ? f->maxntid[1] : 1) *
				(f->maxntid[2] ? f->maxntid[2] : 1);
		/* the fast path when the kernel cannot observe lockstep */
		rc = tr_fast_kernel(t, i, seen, (sh + 15) / 16 * 16, out);
		if (rc == TR_FAST_ROWS || rc == TR_FAST_SWEEP ||
		    (rc == 0 && !co && tr_lockstep_rows(t, i, seen)))
			flags |= AG_KF_ROWS;
		if (rc == TR_FAST_SWEEP)
			flags |= AG_KF_SWEEP;
		sb_addf(&list, "\t{ \"%s\", ag_k%u, %u, %u, %u, %uu },\n", f->name, i,
			(sh + 15) / 16 * 16, t->fi[i].local_bytes, nt, flags);
		if (rc == 0)
			tr_emit_lockstep_block(out, "ag_k", i, (sh + 15) / 16 * 16, co,
					       ptx_param_layout(f, NULL, NULL, NULL, 0));
	}
	free(seen);
	if (rc < 0) {
		sb_free(&list);
		return -1;
	}
	sb_addf(out, "const struct ag_kernel_desc ag_module_kernels[] = {\n%s"
		"\t{ 0, 0, 0, 0, 0, 0 }\n};\n\n", list.buf ? list.buf : "");
	sb_free(&list);

	sb_adds(out, "const struct ag_var_desc ag_module_vars[] = {\n");
	for (i = 0; i < t->nmsyms; i++) {
		const struct tr_sym *s = &t->msyms[i];

		if (s->kind == TK_GVAR)
			sb_addf(out, "\t{ \"%s\", ag_v%u, %lluull, %u },\n", s->name, s->id,
				(unsigned long long)s->size, (unsigned)s->var->space);
	}
	sb_adds(out, "\t{ 0, 0, 0, 0 }\n};\n\n"
		"const unsigned ag_module_abi = AG_KERNEL_ABI;\n");
	return 0;
}

/* The kernels whose grid-stride loop is swept (stride.c), unless the row
 * groups are asked for every kernel that can have them (a test of group.c
 * that such kernels would leave out). */
static void find_strides(struct tr *t)
{
	struct tr_stride s;
	uint32_t i;

	if (t->groups == AG_GROUPS_ALL)
		return;
	for (i = 0; i < t->m->nfuncs; i++)
		if (!t->m->funcs[i].is_decl && tr_stride_scan(&t->m->funcs[i], &s)) {
			t->fi[i].stride = xmalloc(sizeof(s));
			*t->fi[i].stride = s;
		}
}

static void tr_release(struct tr *t)
{
	uint32_t i;

	if (t->fi)
		for (i = 0; i < t->m->nfuncs; i++) {
			free(t->fi[i].callees);
			free(t->fi[i].shared_at);
			free(t->fi[i].stride);
		}
	free(t->fi);
	free(t->msyms);
	free(t->syms);
	free(t->scopes);
	free(t->labels);
	free(t->label_bb);
	sb_free(&t->frame);
	sb_free(&t->kept);
	sb_free(&t->code);
	sb_free(&t->tail);
	sb_free(&t->locals);
	sb_free(&t->vars);
	tr_steady_free(t->steady);
	free(t->regs);
	free(t->scalar_done);
	tr_segs_free(t);
}

int ag_translate(const struct ptx_module *orig, enum ag_groups groups, struct strbuf *out,
		 struct ptx_error *err)
{
	const struct ptx_module *conv = tr_ifconv(orig), *m = conv ? conv : orig;
	struct tr t;
	uint32_t i;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	t.m = m;
	t.err = err;
	t.groups = groups;
	memset(err, 0, sizeof(*err));
	t.fi = xcalloc(m->nfuncs + 1, sizeof(*t.fi));
	collect_module_syms(&t);

	sb_adds(out, ag_translate_prelude);
	sb_adds(out, "\n/* Translated from PTX by anygpu, translator version "
		AG_TRANSLATOR_VERSION ". */\n\n");
	emit_var_storage(&t, out);
	find_strides(&t);
	emit_prototypes(&t, out);
	for (i = 0; i < m->nfuncs && !rc; i++)
		if (!m->funcs[i].is_decl && tr_func_index(&t, m->funcs[i].name) == i)
			rc = tr_function(&t, i, out);
	if (!rc)
		rc = emit_relocations(&t, out);
	if (!rc)
		rc = emit_tables(&t, out);
	tr_release(&t);
	tr_ifconv_free(orig, conv);
	return rc;
}
