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

/* Module variables become symbols; static .shared ones get their offsets. */
static void collect_module_syms(struct tr *t)
{
	const struct ptx_module *m = t->m;
	uint32_t i;

	t->msyms = xcalloc(m->nvars + m->nfuncs + 1, sizeof(*t->msyms));
	for (i = 0; i < m->nvars; i++) {
		const struct ptx_var *v = &m->vars[i];
		uint32_t a = var_align(v);

		if (v->space == PTX_SPACE_SHARED && (v->unsized || v->is_extern)) {
			add_msym(t, v->name, TK_DYNSHARED, i, 0, v);
		} else if (v->space == PTX_SPACE_SHARED) {
			t->shared_size = (t->shared_size + a - 1) / a * a;
			add_msym(t, v->name, TK_SHARED, i, t->shared_size, v);
			t->shared_size += (uint32_t)var_bytes(v);
		} else if ((v->space == PTX_SPACE_GLOBAL || v->space == PTX_SPACE_CONST) &&
			   !v->is_extern) {
			add_msym(t, v->name, TK_GVAR, i, 0, v);
		}
	}
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
