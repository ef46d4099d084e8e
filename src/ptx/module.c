/*
 * module.c - the top of the parser: ptx_parse() and ptx_free(), module
 * directives (.version, .target, .address_size), module-scope variables
 * and function headers with their performance directives.  Debug
 * sections and line information are read past: nothing downstream uses
 * them.
 */
#include "ptx/parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Inputs are bounded so that counts of tokens and elements fit in 32 bits. */
#define MAX_INPUT ((size_t)1 << 31)

static int parse_version(struct parser *p, struct ptx_module *m)
{
	const struct token *t = &p->tok;
	uint32_t *part = &m->version_major;
	size_t i;

	p_next(p);
	m->version_major = m->version_minor = 0;
	if (t->kind != T_FLOAT || t->s[t->len - 1] == '.')
		return p_expected(p, "a version such as 9.0 after .version");
	for (i = 0; i < t->len; i++) {
		if (t->s[i] == '.' && part == &m->version_major) {
			part = &m->version_minor;
			continue;
		}
		if (t->s[i] < '0' || t->s[i] > '9' || *part > 1000)
			return p_expected(p, "a version such as 9.0 after .version");
		*part = *part * 10 + (uint32_t)(t->s[i] - '0');
	}
	p_next(p);
	return 0;
}

/* ".target sm_90a, texmode_independent, debug" */
static int parse_target(struct parser *p, struct ptx_module *m)
{
	struct list opts;

	p_next(p);
	if (p->tok.kind != T_IDENT)
		return p_expected(p, "a target such as sm_75 after .target");
	m->target = p_tok_str(p, &p->tok);
	p_next(p);
	list_begin(p, &opts);
	while (p_accept(p, ',')) {
		if (p->tok.kind != T_IDENT)
			return p_expected(p, "a target option");
		*(const char **)list_push(p, &opts, sizeof(char *)) = p_tok_str(p, &p->tok);
		p_next(p);
	}
	m->target_opts = list_done(p, &opts, sizeof(char *));
	m->ntarget_opts = opts.n;
	return 0;
}

/* ".section .debug_info { ... }": skipped to its matching brace. */
static int skip_section(struct parser *p)
{
	uint32_t depth = 0;

	p_next(p);
	while (p->tok.kind == T_DIR || p->tok.kind == T_IDENT)
		p_next(p);
	if (!tok_is(&p->tok, '{'))
		return p_expected(p, "'{' after .section");
	do {
		if (p->tok.kind == T_EOF || p->tok.kind == T_BAD)
			return p_expected(p, "'}' to close .section");
		if (tok_is(&p->tok, '{'))
			depth++;
		else if (tok_is(&p->tok, '}'))
			depth--;
		p_next(p);
	} while (depth);
	return 0;
}

/* ".maxntid 256, 1, 1": up to three numbers. */
static int parse_dim3(struct parser *p, uint32_t d[3])
{
	int i = 0;

	p_next(p);
	do {
		if (i == 3)
			return p_fail(p, &p->tok, "more than three dimensions");
		if (p_uint32(p, &d[i++], "a number"))
			return -1;
	} while (p_accept(p, ','));
	return 0;
}

static int parse_perf(struct parser *p, struct ptx_func *f)
{
	const struct token *t = &p->tok;

	if (tok_is_dir(t, ".maxntid"))
		return parse_dim3(p, f->maxntid);
	if (tok_is_dir(t, ".reqntid"))
		return parse_dim3(p, f->reqntid);
	if (tok_is_dir(t, ".reqnctapercluster"))
		return parse_dim3(p, f->reqnctapercluster);
	if (tok_is_dir(t, ".minnctapersm") || tok_is_dir(t, ".maxnctapersm")) {
		p_next(p);
		return p_uint32(p, &f->minnctapersm, "a number");
	}
	if (tok_is_dir(t, ".maxnreg")) {
		p_next(p);
		return p_uint32(p, &f->maxnreg, "a number");
	}
	if (tok_is_dir(t, ".maxclusterrank")) {
		p_next(p);
		return p_uint32(p, &f->maxclusterrank, "a number");
	}
	if (tok_is_dir(t, ".noreturn")) {
		f->noreturn = 1;
	} else if (tok_is_dir(t, ".pragma")) {
		/* Function-scope pragmas ("nounroll") tune an optimizer
		 * this translation does not have. */
		const char *text;

		return parse_pragma(p, &text);
	} else if (!tok_is_dir(t, ".explicitcluster") && !tok_is_dir(t, ".blocksareclusters")) {
		return p_fail(p, t, "unknown directive '%.*s' in function header",
			      t->len > 32 ? 32 : (int)t->len, t->s);
	}
	p_next(p);
	return 0;
}

static int parse_func(struct parser *p, struct ptx_func *f, const struct ptx_var *link)
{
	f->is_extern = link->is_extern;
	f->is_visible = link->is_visible;
	f->is_weak = link->is_weak;
	f->line = p->tok.line;
	f->is_entry = tok_is_dir(&p->tok, ".entry");
	/* .reg parameters name registers of the body too. */
	nametab_clear(p->regs);
	p_next(p);
	if (!f->is_entry && tok_is(&p->tok, '(') && parse_params(p, &f->rets, &f->nrets))
		return -1;
	if (p->tok.kind != T_IDENT)
		return p_expected(p, "a function name");
	f->name = p_tok_str(p, &p->tok);
	p_next(p);
	if (tok_is(&p->tok, '(') && parse_params(p, &f->params, &f->nparams))
		return -1;
	while (p->tok.kind == T_DIR)
		if (parse_perf(p, f))
			return -1;
	if (p_accept(p, ';')) {
		f->is_decl = 1;
		return 0;
	}
	if (!tok_is(&p->tok, '{'))
		return p_expected(p, "'{' or ';' after function header");
	return parse_body(p, f);
}

static bool is_linkage(const struct token *t)
{
	return tok_is_dir(t, ".extern") || tok_is_dir(t, ".visible") ||
	       tok_is_dir(t, ".weak") || tok_is_dir(t, ".common");
}

/* Linkage, then a function or variables. */
static int parse_global(struct parser *p, struct vec *vars, struct vec *funcs)
{
	struct ptx_var spec = { 0 };

	while (is_linkage(&p->tok)) {
		spec.is_extern |= tok_is_dir(&p->tok, ".extern");
		spec.is_visible |= tok_is_dir(&p->tok, ".visible");
		spec.is_weak |= tok_is_dir(&p->tok, ".weak");
		spec.is_common |= tok_is_dir(&p->tok, ".common");
		p_next(p);
	}
	if (tok_is_dir(&p->tok, ".entry") || tok_is_dir(&p->tok, ".func")) {
		struct ptx_func f = { 0 };

		if (parse_func(p, &f, &spec))
			return -1;
		*(struct ptx_func *)vec_push(p->arena, funcs, sizeof(f)) = f;
		return 0;
	}
	if (parse_decl_spec(p, &spec, "at module scope"))
		return -1;
	do {
		struct ptx_var v = spec;

		if (parse_declarator(p, &v, true))
			return -1;
		*(struct ptx_var *)vec_push(p->arena, vars, sizeof(v)) = v;
	} while (p_accept(p, ','));
	return p_expect(p, ';', "after declaration");
}

static int parse_directive(struct parser *p, struct ptx_module *m,
			   struct vec *vars, struct vec *funcs)
{
	const struct token *t = &p->tok;

	if (tok_is_dir(t, ".version"))
		return parse_version(p, m);
	if (tok_is_dir(t, ".target"))
		return parse_target(p, m);
	if (tok_is_dir(t, ".address_size")) {
		p_next(p);
		return p_uint32(p, &m->address_size, "32 or 64 after .address_size");
	}
	if (tok_is_dir(t, ".file") || tok_is_dir(t, ".loc")) {
		p_skip_line(p);
		return 0;
	}
	if (tok_is_dir(t, ".section"))
		return skip_section(p);
	if (tok_is_dir(t, ".pragma")) {
		const char *text;

		return parse_pragma(p, &text);
	}
	return parse_global(p, vars, funcs);
}

static int parse_module(struct parser *p, struct ptx_module *m)
{
	struct vec vars = { 0 }, funcs = { 0 };

	p_next(p);
	while (p->tok.kind != T_EOF) {
		if (p->tok.kind != T_DIR)
			return p_expected(p, "a directive");
		if (parse_directive(p, m, &vars, &funcs))
			return -1;
	}
	m->vars = vars.data;
	m->nvars = vars.n;
	m->funcs = funcs.data;
	m->nfuncs = funcs.n;
	return 0;
}

int ptx_parse(const char *text, size_t len, struct ptx_module **out, struct ptx_error *err)
{
	struct parser p = { 0 };
	struct ptx_error ignored;
	struct ptx_module *m;
	struct ptx_arena *arena;
	int ret;

	if (!err)
		err = &ignored;
	memset(err, 0, sizeof(*err));
	*out = NULL;
	if (len >= MAX_INPUT) {
		snprintf(err->msg, sizeof(err->msg), "PTX text too large (%zu bytes)", len);
		return -1;
	}
	arena = arena_new();
	m = arena_alloc(arena, sizeof(*m));
	m->arena = arena;
	lex_init(&p.lx, text, len);
	p.arena = arena;
	p.err = err;
	p.regs = nametab_new();
	p.names = nametab_new();
	ret = parse_module(&p, m);
	nametab_free(p.regs);
	nametab_free(p.names);
	free(p.scratch);
	if (ret) {
		arena_free(arena);
		if (!err->msg[0])
			snprintf(err->msg, sizeof(err->msg), "malformed PTX");
		return -1;
	}
	*out = m;
	return 0;
}

void ptx_free(struct ptx_module *m)
{
	if (m)
		arena_free(m->arena);
}
