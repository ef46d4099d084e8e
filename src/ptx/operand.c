/*
 * operand.c - instruction operands: registers (with ".x" components and
 * "%r19|%p4" pairs), "!%p" predicates, integer and float immediates,
 * symbols, addresses "[base+off]" (with the texture form "[tex, {...}]"),
 * vectors "{a, b, _}" and call lists "(a, b)".  Nesting is fixed by the
 * grammar (a vector inside an address at most), so recursion is bounded.
 */
#include "ptx/parser.h"

#include <string.h>

static bool is_component(const struct token *t)
{
	return t->kind == T_DIR && t->len == 2 && strchr("xyzw", t->s[1]);
}

static bool is_reg_name(struct parser *p, const struct token *t)
{
	return t->s[0] == '%' || (p->regs && reg_names_has(p->regs, t->s, t->len));
}

/* "+off", "-off" or "+-off" after a symbol or address base. */
static int parse_offset(struct parser *p, int64_t *off)
{
	bool minus = tok_is(&p->tok, '-');

	*off = 0;
	if (!minus && !tok_is(&p->tok, '+'))
		return 0;
	p_next(p);
	if (p_int(p, off, "offset"))
		return -1;
	if (minus)
		*off = -*off;
	return 0;
}

static int parse_number(struct parser *p, struct ptx_operand *op, bool neg)
{
	if (p->tok.kind == T_FLOAT) {
		op->kind = PTX_OP_FIMM;
		if (p_float_bits(p, &p->tok, &op->fbits, &op->fsize))
			return -1;
		if (neg)
			op->fbits ^= 1ull << (op->fsize * 8 - 1);
		p_next(p);
		return 0;
	}
	uint64_t v;

	op->kind = PTX_OP_IMM;
	if (p_uint(p, &v, "a number"))
		return -1;
	op->i = (int64_t)(neg ? -v : v);
	return 0;
}

static int parse_name(struct parser *p, struct ptx_operand *op)
{
	const struct token *t = &p->tok;

	if (t->len == 1 && t->s[0] == '_') {
		op->kind = PTX_OP_SINK;
		p_next(p);
		return 0;
	}
	op->name = p_tok_str(p, t);
	if (!is_reg_name(p, t)) {
		op->kind = PTX_OP_SYM;
		p_next(p);
		return parse_offset(p, &op->i);
	}
	op->kind = PTX_OP_REG;
	p_next(p);
	if (is_component(&p->tok)) {
		op->component = arena_strndup(p->arena, p->tok.s + 1, 1);
		p_next(p);
	}
	return 0;
}

/* A register, sink, immediate or symbol, possibly "!" negated or with a
 * "|second" destination. */
static int parse_simple(struct parser *p, struct ptx_operand *op)
{
	if (p_accept(p, '!')) {
		op->neg = 1;
		if (p->tok.kind != T_IDENT)
			return p_expected(p, "a predicate after '!'");
		return parse_name(p, op);
	}
	if (p_accept(p, '-')) {
		if (p->tok.kind != T_INT && p->tok.kind != T_FLOAT)
			return p_expected(p, "a number after '-'");
		return parse_number(p, op, true);
	}
	if (p->tok.kind == T_INT || p->tok.kind == T_FLOAT)
		return parse_number(p, op, false);
	if (p->tok.kind != T_IDENT)
		return p_expected(p, "an operand");
	if (parse_name(p, op))
		return -1;
	if (tok_is(&p->tok, '|')) {
		struct ptx_operand *pair = arena_alloc(p->arena, sizeof(*pair));

		p_next(p);
		if (p->tok.kind != T_IDENT)
			return p_expected(p, "a register after '|'");
		if (parse_name(p, pair))
			return -1;
		op->pair = pair;
	}
	return 0;
}

/* Elements up to the closing character; "()" may be empty. */
static int parse_elems(struct parser *p, struct ptx_operand *op, char close,
		       bool allow_vec, const char *where)
{
	struct list elems;

	list_begin(p, &elems);
	if (!tok_is(&p->tok, close)) {
		do {
			struct ptx_operand tmp = { 0 };

			if (allow_vec && tok_is(&p->tok, '{')) {
				p_next(p);
				tmp.kind = PTX_OP_VEC;
				if (parse_elems(p, &tmp, '}', false, "after vector"))
					return -1;
			} else if (parse_simple(p, &tmp)) {
				return -1;
			}
			*(struct ptx_operand *)list_push(p, &elems, sizeof(tmp)) = tmp;
		} while (p_accept(p, ','));
	}
	op->elems = list_done(p, &elems, sizeof(struct ptx_operand));
	op->nelems = elems.n;
	return p_expect(p, close, where);
}

/* "[reg+off]", "[sym+off]", "[imm]", "[tex, {coords}]", "[tex, smp, {c}]". */
static int parse_address(struct parser *p, struct ptx_operand *op)
{
	op->kind = PTX_OP_ADDR;
	p_next(p);
	if (p->tok.kind == T_INT) {
		uint64_t v;

		if (p_uint(p, &v, "an address"))
			return -1;
		op->i = (int64_t)v;
		return p_expect(p, ']', "after address");
	}
	if (p->tok.kind != T_IDENT)
		return p_expected(p, "a register or symbol in address");
	op->base_is_reg = is_reg_name(p, &p->tok);
	op->name = p_tok_str(p, &p->tok);
	p_next(p);
	if (parse_offset(p, &op->i))
		return -1;
	if (p_accept(p, ','))
		return parse_elems(p, op, ']', true, "after texture operands");
	return p_expect(p, ']', "after address");
}

int parse_operand(struct parser *p, struct ptx_operand *op)
{
	if (tok_is(&p->tok, '[')) {
		return parse_address(p, op);
	} else if (tok_is(&p->tok, '{')) {
		op->kind = PTX_OP_VEC;
		p_next(p);
		return parse_elems(p, op, '}', false, "after vector");
	} else if (tok_is(&p->tok, '(')) {
		op->kind = PTX_OP_LIST;
		p_next(p);
		return parse_elems(p, op, ')', false, "after call arguments");
	}
	return parse_simple(p, op);
}
