/*
 * body.c - a function's parameter lists and its body: declarations, labels,
 * nested "{ }" scopes (flat OPEN/CLOSE statements, so depth costs no
 * stack), guarded instructions, .pragma, .callprototype and .branchtargets.
 */
#include "ptx/parser.h"

/* One "( .param ... , ... )" list, as in function headers and
 * .callprototype. */
int parse_params(struct parser *p, const struct ptx_var **out, uint32_t *n)
{
	struct list params;

	if (p_expect(p, '(', "before parameters"))
		return -1;
	list_begin(p, &params);
	if (!tok_is(&p->tok, ')')) {
		do {
			struct ptx_var v = { 0 };

			if (parse_decl_spec(p, &v, "in parameter list") ||
			    parse_declarator(p, &v, false))
				return -1;
			*(struct ptx_var *)list_push(p, &params, sizeof(v)) = v;
		} while (p_accept(p, ','));
	}
	*out = list_done(p, &params, sizeof(struct ptx_var));
	*n = params.n;
	return p_expect(p, ')', "after parameters");
}

static struct ptx_stmt *push_stmt(struct parser *p, struct list *body,
				  enum ptx_stmt_kind kind, int line)
{
	struct ptx_stmt *s = list_push(p, body, sizeof(*s));

	s->kind = kind;
	s->line = line;
	return s;
}

/* ".reg .b32 %r<5>, %r9;": one DECL statement per declarator. */
static int parse_decls(struct parser *p, struct list *body)
{
	struct ptx_var spec = { 0 };

	if (parse_decl_spec(p, &spec, "in function body"))
		return -1;
	do {
		struct ptx_var v = spec;

		if (parse_declarator(p, &v, true))
			return -1;
		push_stmt(p, body, PTX_STMT_DECL, v.line)->u.decl = v;
	} while (p_accept(p, ','));
	return p_expect(p, ';', "after declaration");
}

/* name: .callprototype (.param .b32 _) _ (.param .b64 _); the return
 * list may be "()" or missing. */
static int parse_proto(struct parser *p, struct ptx_proto *pr)
{
	p_next(p);
	if (tok_is(&p->tok, '(') && parse_params(p, &pr->rets, &pr->nrets))
		return -1;
	if (!tok_is_ident(&p->tok, "_"))
		return p_expected(p, "'_' in .callprototype");
	p_next(p);
	if (tok_is(&p->tok, '(') && parse_params(p, &pr->params, &pr->nparams))
		return -1;
	while (tok_is_dir(&p->tok, ".noreturn"))
		p_next(p);
	return p_expect(p, ';', "after .callprototype");
}

static int parse_targets(struct parser *p, struct ptx_stmt *s)
{
	struct list labels;

	p_next(p);
	list_begin(p, &labels);
	do {
		if (p->tok.kind != T_IDENT)
			return p_expected(p, "a label in .branchtargets");
		*(const char **)list_push(p, &labels, sizeof(char *)) =
			p_tok_str(p, &p->tok);
		p_next(p);
	} while (p_accept(p, ','));
	s->u.targets.labels = list_done(p, &labels, sizeof(char *));
	s->u.targets.nlabels = labels.n;
	return p_expect(p, ';', "after .branchtargets");
}

/* "name:" then a label, a .callprototype or a .branchtargets. */
static int parse_label(struct parser *p, struct list *body)
{
	const char *name = p_tok_str(p, &p->tok);
	int line = p->tok.line;
	struct ptx_stmt *s;

	p_next(p);
	p_next(p);
	if (tok_is_dir(&p->tok, ".callprototype")) {
		struct ptx_proto pr = { .name = name };

		if (parse_proto(p, &pr))
			return -1;
		push_stmt(p, body, PTX_STMT_PROTO, line)->u.proto = pr;
		return 0;
	}
	if (tok_is_dir(&p->tok, ".branchtargets")) {
		struct ptx_stmt tmp = { .kind = PTX_STMT_BRANCHTARGETS, .line = line };

		tmp.u.targets.name = name;
		if (parse_targets(p, &tmp))
			return -1;
		*(struct ptx_stmt *)list_push(p, body, sizeof(tmp)) = tmp;
		return 0;
	}
	s = push_stmt(p, body, PTX_STMT_LABEL, line);
	s->u.label = name;
	return 0;
}

static int parse_insn(struct parser *p, struct ptx_insn *in)
{
	struct list mods, ops;

	in->line = p->tok.line;
	if (p_accept(p, '@')) {
		in->guard_neg = p_accept(p, '!');
		if (p->tok.kind != T_IDENT)
			return p_expected(p, "a predicate after '@'");
		in->guard = p_tok_str(p, &p->tok);
		p_next(p);
	}
	if (p->tok.kind != T_IDENT)
		return p_expected(p, "an instruction");
	in->opcode = p_tok_str(p, &p->tok);
	p_next(p);
	list_begin(p, &mods);
	while (p->tok.kind == T_DIR) {
		*(const char **)list_push(p, &mods, sizeof(char *)) = p_tok_str(p, &p->tok);
		p_next(p);
	}
	in->mods = list_done(p, &mods, sizeof(char *));
	in->nmods = mods.n;
	list_begin(p, &ops);
	if (!tok_is(&p->tok, ';')) {
		do {
			struct ptx_operand op = { 0 };

			if (parse_operand(p, &op))
				return -1;
			*(struct ptx_operand *)list_push(p, &ops, sizeof(op)) = op;
		} while (p_accept(p, ','));
	}
	in->ops = list_done(p, &ops, sizeof(struct ptx_operand));
	in->nops = ops.n;
	return p_expect(p, ';', "after instruction");
}

int parse_pragma(struct parser *p, const char **text)
{
	p_next(p);
	if (p->tok.kind != T_STRING)
		return p_expected(p, "a string after .pragma");
	*text = arena_strndup(p->arena, p->tok.s + 1, p->tok.len - 2);
	p_next(p);
	return p_expect(p, ';', "after .pragma");
}

static int parse_stmt(struct parser *p, struct list *body)
{
	const struct token *t = &p->tok;
	int line = t->line;

	if (is_space_dir(t) || tok_is_dir(t, ".align"))
		return parse_decls(p, body);
	if (tok_is_dir(t, ".pragma")) {
		const char *text;

		if (parse_pragma(p, &text))
			return -1;
		push_stmt(p, body, PTX_STMT_PRAGMA, line)->u.text = text;
		return 0;
	}
	if (tok_is_dir(t, ".loc") || tok_is_dir(t, ".file")) {
		p_skip_line(p);
		return 0;
	}
	if (t->kind == T_IDENT && tok_is(p_peek(p), ':'))
		return parse_label(p, body);
	if (t->kind == T_IDENT || tok_is(t, '@')) {
		struct ptx_insn in = { 0 };

		if (parse_insn(p, &in))
			return -1;
		push_stmt(p, body, PTX_STMT_INSN, line)->u.insn = in;
		return 0;
	}
	return p_expected(p, "a statement");
}

int parse_body(struct parser *p, struct ptx_func *f)
{
	struct list body;
	uint32_t depth = 0;

	p_next(p);
	list_begin(p, &body);
	for (;;) {
		int line = p->tok.line;

		if (tok_is(&p->tok, '}')) {
			p_next(p);
			if (!depth)
				break;
			depth--;
			push_stmt(p, &body, PTX_STMT_CLOSE, line);
		} else if (tok_is(&p->tok, '{')) {
			p_next(p);
			depth++;
			push_stmt(p, &body, PTX_STMT_OPEN, line);
		} else if (p->tok.kind == T_EOF) {
			return p_fail(p, &p->tok, "end of input inside the body of '%s'", f->name);
		} else if (parse_stmt(p, &body)) {
			return -1;
		}
	}
	f->body = list_done(p, &body, sizeof(struct ptx_stmt));
	f->nbody = body.n;
	return 0;
}
