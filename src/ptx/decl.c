/*
 * decl.c - declarations: ".global .align 4 .v2 .f32 name[8][2] = {...}",
 * ".reg .b32 %r<10>", ".param .u64 .ptr .global .align 16 p".  The
 * specifiers may come in any order, as PTX allows; the declarator is the
 * name with its range, array dimensions and initializer.
 */
#include "ptx/parser.h"

#include <string.h>

static const struct {
	const char *dir;
	enum ptx_space space;
} spaces[] = {
	{ ".reg", PTX_SPACE_REG }, { ".sreg", PTX_SPACE_SREG },
	{ ".const", PTX_SPACE_CONST }, { ".global", PTX_SPACE_GLOBAL },
	{ ".local", PTX_SPACE_LOCAL }, { ".param", PTX_SPACE_PARAM },
	{ ".shared", PTX_SPACE_SHARED }, { ".tex", PTX_SPACE_TEX },
	{ ".shared::cta", PTX_SPACE_SHARED },
};

static enum ptx_space space_from_dir(const struct token *t)
{
	for (size_t i = 0; i < sizeof(spaces) / sizeof(spaces[0]); i++)
		if (tok_is_dir(t, spaces[i].dir))
			return spaces[i].space;
	return PTX_SPACE_NONE;
}

bool is_space_dir(const struct token *t)
{
	return space_from_dir(t) != PTX_SPACE_NONE;
}

static enum ptx_type type_from_tok(const struct token *t)
{
	char buf[16];

	if (t->kind != T_DIR || t->len >= sizeof(buf))
		return PTX_T_NONE;
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
	return ptx_type_from_mod(buf);
}

/* ".ptr [.space] [.align N]" after a parameter's type. */
static int parse_ptr(struct parser *p, struct ptx_var *v)
{
	p_next(p);
	if (is_space_dir(&p->tok)) {
		v->ptr_space = (uint8_t)space_from_dir(&p->tok);
		p_next(p);
	}
	if (tok_is_dir(&p->tok, ".align")) {
		p_next(p);
		return p_uint32(p, &v->ptr_align, "alignment after .align");
	}
	return 0;
}

/* ".attribute(.managed)": the only attribute nvcc writes on variables. */
static int parse_attribute(struct parser *p, struct ptx_var *v)
{
	p_next(p);
	if (p_expect(p, '(', "after .attribute"))
		return -1;
	while (p->tok.kind == T_DIR) {
		if (tok_is_dir(&p->tok, ".managed"))
			v->is_managed = 1;
		else if (!tok_is_dir(&p->tok, ".unified"))
			return p_expected(p, "'.managed' or '.unified'");
		p_next(p);
		if (p_accept(p, '(')) {
			/* .unified(uuid_hi, uuid_lo): identifies, no layout */
			while (p->tok.kind == T_INT || tok_is(&p->tok, ','))
				p_next(p);
			if (p_expect(p, ')', "after .unified arguments"))
				return -1;
		}
		if (!p_accept(p, ','))
			break;
	}
	return p_expect(p, ')', "after attribute");
}

static int parse_one_spec(struct parser *p, struct ptx_var *v)
{
	const struct token *t = &p->tok;
	enum ptx_type type;

	if (is_space_dir(t)) {
		v->space = space_from_dir(t);
	} else if (tok_is_dir(t, ".extern")) {
		v->is_extern = 1;
	} else if (tok_is_dir(t, ".visible")) {
		v->is_visible = 1;
	} else if (tok_is_dir(t, ".weak")) {
		v->is_weak = 1;
	} else if (tok_is_dir(t, ".common")) {
		v->is_common = 1;
	} else if (tok_is_dir(t, ".align")) {
		p_next(p);
		return p_uint32(p, &v->align, "alignment after .align");
	} else if (tok_is_dir(t, ".v2") || tok_is_dir(t, ".v4") || tok_is_dir(t, ".v8")) {
		v->vec = (uint32_t)(t->s[2] - '0');
	} else if (tok_is_dir(t, ".ptr")) {
		return parse_ptr(p, v);
	} else if (tok_is_dir(t, ".attribute")) {
		return parse_attribute(p, v);
	} else if ((type = type_from_tok(t)) != PTX_T_NONE) {
		if (v->type != PTX_T_NONE)
			return p_fail(p, t, "two types in one declaration");
		v->type = type;
	} else {
		return p_fail(p, t, "unexpected '%.*s' in declaration",
			      t->len > 32 ? 32 : (int)t->len, t->s);
	}
	p_next(p);
	return 0;
}

int parse_decl_spec(struct parser *p, struct ptx_var *spec, const char *where)
{
	spec->line = p->tok.line;
	while (p->tok.kind == T_DIR)
		if (parse_one_spec(p, spec))
			return -1;
	if (spec->space == PTX_SPACE_NONE)
		return p_fail(p, &p->tok, "declaration %s without a state space", where);
	if (spec->type == PTX_T_NONE)
		return p_fail(p, &p->tok, "declaration %s without a type", where);
	if (!spec->vec)
		spec->vec = 1;
	return 0;
}

/* "[N]" repeated, or "[]" first (unsized); counts multiply. */
static int parse_dims(struct parser *p, struct ptx_var *v, uint64_t *dims, int *ndims)
{
	v->count = 1;
	while (tok_is(&p->tok, '[')) {
		uint64_t n = 0;
		struct token at = p->tok;

		if (*ndims == PTX_MAX_DIMS)
			return p_fail(p, &at, "too many array dimensions");
		p_next(p);
		v->is_array = 1;
		if (tok_is(&p->tok, ']')) {
			if (*ndims)
				return p_fail(p, &at, "only the first dimension may be unsized");
			v->unsized = 1;
		} else if (p_uint(p, &n, "array size")) {
			return -1;
		} else if (n && v->count > UINT64_MAX / n) {
			return p_fail(p, &at, "array too large");
		}
		if (p_expect(p, ']', "after array size"))
			return -1;
		dims[(*ndims)++] = n;
		if (!v->unsized)
			v->count *= n;
	}
	if (v->unsized)
		v->count = 0;
	return 0;
}

int parse_declarator(struct parser *p, struct ptx_var *v, bool allow_init)
{
	uint64_t dims[PTX_MAX_DIMS + 1];
	int ndims = 0;

	if (p->tok.kind != T_IDENT)
		return p_expected(p, "a name in declaration");
	v->name = p_tok_str(p, &p->tok);
	v->line = p->tok.line;
	p_next(p);
	if (p_accept(p, '<')) {
		if (p_uint32(p, &v->range, "register count"))
			return -1;
		if (p_expect(p, '>', "after register count"))
			return -1;
	}
	if (parse_dims(p, v, dims, &ndims))
		return -1;
	if (v->space == PTX_SPACE_REG && p->regs && v->name[0] != '%')
		reg_names_add(p->regs, v->name, v->range);
	if (!tok_is(&p->tok, '='))
		return 0;
	if (!allow_init)
		return p_fail(p, &p->tok, "initializer not allowed here");
	p_next(p);
	if (v->vec > 1)
		dims[ndims++] = v->vec;
	return parse_init(p, v, dims, ndims);
}
