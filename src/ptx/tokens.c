/*
 * tokens.c - the parser's cursor over the token stream: one token of
 * lookahead, matching, the first error with its place, and literal values.
 */
#include "ptx/parser.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void p_next(struct parser *p)
{
	if (p->have_ahead) {
		p->tok = p->ahead;
		p->have_ahead = false;
	} else {
		lex_next(&p->lx, &p->tok);
	}
}

const struct token *p_peek(struct parser *p)
{
	if (!p->have_ahead) {
		lex_next(&p->lx, &p->ahead);
		p->have_ahead = true;
	}
	return &p->ahead;
}

void p_skip_line(struct parser *p)
{
	/* The current token is on the line to skip; a lookahead token
	 * would already be past it, so none may be pending. */
	if (p->have_ahead && p->ahead.line != p->tok.line) {
		p->tok = p->ahead;
		p->have_ahead = false;
		return;
	}
	p->have_ahead = false;
	lex_skip_line(&p->lx);
	p_next(p);
}

bool tok_is(const struct token *t, char c)
{
	return t->kind == T_PUNCT && t->s[0] == c;
}

static bool tok_text_is(const struct token *t, const char *s)
{
	return t->len == strlen(s) && !memcmp(t->s, s, t->len);
}

bool tok_is_dir(const struct token *t, const char *dir)
{
	return t->kind == T_DIR && tok_text_is(t, dir);
}

bool tok_is_ident(const struct token *t, const char *name)
{
	return t->kind == T_IDENT && tok_text_is(t, name);
}

bool p_accept(struct parser *p, char c)
{
	if (!tok_is(&p->tok, c))
		return false;
	p_next(p);
	return true;
}

static void set_error(struct parser *p, const struct token *t, const char *fmt, va_list ap)
{
	if (p->err->msg[0])
		return;
	p->err->line = t->line;
	p->err->col = t->col;
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
}

int p_fail(struct parser *p, const struct token *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_error(p, t, fmt, ap);
	va_end(ap);
	return -1;
}

/* How the current token reads in "got ..." (at most 32 characters). */
static int fail_got(struct parser *p, const char *what, const char *where)
{
	const struct token *t = &p->tok;
	int n = t->len > 32 ? 32 : (int)t->len;

	if (t->kind == T_BAD && t->why && t->len == 0)
		return p_fail(p, t, "%s", t->why);
	if (t->kind == T_BAD)
		return p_fail(p, t, "%s '%.*s'", t->why, n, t->s);
	if (t->kind == T_EOF)
		return p_fail(p, t, "expected %s%s, got end of input", what, where);
	return p_fail(p, t, "expected %s%s, got '%.*s'", what, where, n, t->s);
}

int p_expect(struct parser *p, char c, const char *where)
{
	char what[4] = { '\'', c, '\'', 0 };
	char in[64];

	if (p_accept(p, c))
		return 0;
	snprintf(in, sizeof(in), "%s%s", where ? " " : "", where ? where : "");
	return fail_got(p, what, in);
}

int p_expected(struct parser *p, const char *what)
{
	return fail_got(p, what, "");
}

/* Interned: opcodes, modifiers and register names repeat on every line,
 * and share one copy. */
const char *p_tok_str(struct parser *p, const struct token *t)
{
	bool added;
	struct name *e = nametab_add(p->names, t->s, t->len, &added);

	if (added)
		e->s = arena_strndup(p->arena, t->s, t->len);
	return e->s;
}

static int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Value of an integer token: hex, binary, octal (leading 0) or decimal,
 * with an optional U.  Wider than 64 bits is an error. */
static int int_value(const struct token *t, uint64_t *v)
{
	const char *s = t->s, *e = t->s + t->len;
	unsigned base = 10;
	uint64_t x = 0;

	if (e > s && (e[-1] == 'U' || e[-1] == 'u'))
		e--;
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		base = 16, s += 2;
	else if (e - s > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B'))
		base = 2, s += 2;
	else if (e - s > 1 && s[0] == '0')
		base = 8, s++;
	if (s == e)
		return -1;
	for (; s < e; s++) {
		unsigned d = digit_value(*s);

		if (d >= base || x > (UINT64_MAX - d) / base)
			return -1;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

int p_uint(struct parser *p, uint64_t *v, const char *what)
{
	if (p->tok.kind != T_INT)
		return p_expected(p, what);
	if (int_value(&p->tok, v))
		return p_fail(p, &p->tok, "bad integer '%.*s'",
			      p->tok.len > 32 ? 32 : (int)p->tok.len, p->tok.s);
	p_next(p);
	return 0;
}

int p_uint32(struct parser *p, uint32_t *v, const char *what)
{
	struct token t = p->tok;
	uint64_t x;

	if (p_uint(p, &x, what))
		return -1;
	if (x > UINT32_MAX)
		return p_fail(p, &t, "%s too large", what);
	*v = (uint32_t)x;
	return 0;
}

int p_int(struct parser *p, int64_t *v, const char *what)
{
	bool neg = p_accept(p, '-');
	uint64_t x;

	if (p_uint(p, &x, what))
		return -1;
	*v = (int64_t)(neg ? -x : x);
	return 0;
}

static int hex_bits(const char *s, size_t n, uint64_t *bits)
{
	uint64_t x = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned d = digit_value(s[i]);

		if (d >= 16)
			return -1;
		x = x << 4 | d;
	}
	*bits = x;
	return 0;
}

int p_float_bits(struct parser *p, const struct token *t, uint64_t *bits, int *size)
{
	char buf[80];
	char *end;
	double d;

	if (t->len >= 2 && t->s[0] == '0' && (t->s[1] == 'f' || t->s[1] == 'F')) {
		*size = 4;
		if (t->len != 10 || hex_bits(t->s + 2, 8, bits))
			goto bad;
		return 0;
	}
	if (t->len >= 2 && t->s[0] == '0' && (t->s[1] == 'd' || t->s[1] == 'D')) {
		*size = 8;
		if (t->len != 18 || hex_bits(t->s + 2, 16, bits))
			goto bad;
		return 0;
	}
	if (t->len >= sizeof(buf))
		goto bad;
	memcpy(buf, t->s, t->len);
	buf[t->len] = 0;
	errno = 0;
	d = strtod(buf, &end);
	if (end != buf + t->len)
		goto bad;
	memcpy(bits, &d, 8);
	*size = 8;
	return 0;
bad:
	return p_fail(p, t, "bad float literal '%.*s'", t->len > 32 ? 32 : (int)t->len, t->s);
}
