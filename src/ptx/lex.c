/*
 * lex.c - the PTX tokenizer.  Tokens point into the caller's text; a token
 * knows its line and column for error messages.  Every read checks the end
 * pointer first: the text is not NUL-terminated.
 */
#include "ptx/lex.h"

#include <stdbool.h>

void lex_init(struct lexer *lx, const char *text, size_t len)
{
	lx->p = text;
	lx->end = text + len;
	lx->line_start = text;
	lx->line = 1;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_xdigit(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* PTX's "followsym": what may follow the first character of a name. */
static bool is_follow(char c)
{
	return is_alpha(c) || is_digit(c) || c == '_' || c == '$';
}

static bool more(const struct lexer *lx, size_t n)
{
	return (size_t)(lx->end - lx->p) >= n;
}

static void newline(struct lexer *lx)
{
	lx->line++;
	lx->line_start = lx->p;
}

void lex_skip_line(struct lexer *lx)
{
	while (lx->p < lx->end && *lx->p != '\n')
		lx->p++;
}

/* Skips blanks and comments.  An unterminated block comment becomes a bad
 * token placed where the comment opens. */
static bool skip_space(struct lexer *lx, struct token *t)
{
	while (lx->p < lx->end) {
		char c = *lx->p;

		if (c == '\n') {
			lx->p++;
			newline(lx);
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			lx->p++;
		} else if (c == '/' && more(lx, 2) && lx->p[1] == '/') {
			lex_skip_line(lx);
		} else if (c == '/' && more(lx, 2) && lx->p[1] == '*') {
			t->s = lx->p;
			t->line = lx->line;
			t->col = (int)(lx->p - lx->line_start) + 1;
			lx->p += 2;
			for (;;) {
				if (!more(lx, 2)) {
					lx->p = lx->end;
					return false;
				}
				if (lx->p[0] == '*' && lx->p[1] == '/')
					break;
				if (*lx->p++ == '\n')
					newline(lx);
			}
			lx->p += 2;
		} else {
			break;
		}
	}
	return true;
}

static void scan_while(struct lexer *lx, bool (*ok)(char))
{
	while (lx->p < lx->end && ok(*lx->p))
		lx->p++;
}

/* Qualified modifiers: ".shared::cta", ".L2::cache_hint",
 * ".mbarrier::complete_tx::bytes". */
static void scan_scoped(struct lexer *lx)
{
	while (more(lx, 3) && lx->p[0] == ':' && lx->p[1] == ':' && is_follow(lx->p[2])) {
		lx->p += 2;
		scan_while(lx, is_follow);
	}
}

static bool is_bdigit(char c)
{
	return c == '0' || c == '1';
}

static void scan_exponent(struct lexer *lx)
{
	const char *save = lx->p;

	if (lx->p < lx->end && (*lx->p == 'e' || *lx->p == 'E')) {
		lx->p++;
		if (lx->p < lx->end && (*lx->p == '+' || *lx->p == '-'))
			lx->p++;
		if (lx->p < lx->end && is_digit(*lx->p))
			scan_while(lx, is_digit);
		else
			lx->p = save;
	}
}

/* Numbers: 0f/0d raw floats, 0x/0b integers, decimal (or octal) integers and
 * decimal floats.  A trailing U marks an unsigned integer. */
static enum tok_kind scan_number(struct lexer *lx)
{
	enum tok_kind kind = T_INT;
	char c1 = more(lx, 2) ? lx->p[1] : 0;

	if (lx->p[0] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
		lx->p += 2;
		scan_while(lx, is_xdigit);
		return T_FLOAT;
	}
	if (lx->p[0] == '0' && (c1 == 'x' || c1 == 'X')) {
		lx->p += 2;
		scan_while(lx, is_xdigit);
	} else if (lx->p[0] == '0' && (c1 == 'b' || c1 == 'B')) {
		lx->p += 2;
		scan_while(lx, is_bdigit);
	} else {
		scan_while(lx, is_digit);
		if (lx->p < lx->end && *lx->p == '.') {
			kind = T_FLOAT;
			lx->p++;
			scan_while(lx, is_digit);
		}
		if (lx->p < lx->end && (*lx->p == 'e' || *lx->p == 'E')) {
			const char *before = lx->p;

			scan_exponent(lx);
			if (lx->p != before)
				kind = T_FLOAT;
		}
		if (kind == T_FLOAT)
			return kind;
	}
	if (lx->p < lx->end && (*lx->p == 'U' || *lx->p == 'u'))
		lx->p++;
	return kind;
}

/* Strings: "..." on one line, with backslash escapes. */
static bool scan_string(struct lexer *lx)
{
	lx->p++;
	while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
		if (*lx->p == '\\' && more(lx, 2))
			lx->p++;
		lx->p++;
	}
	if (lx->p >= lx->end || *lx->p != '"')
		return false;
	lx->p++;
	return true;
}

static const char punct[] = ";,:{}[]()<>+-!@|=";

static bool is_punct(char c)
{
	for (const char *q = punct; *q; q++)
		if (*q == c)
			return true;
	return false;
}

void lex_next(struct lexer *lx, struct token *t)
{
	char c;

	t->why = NULL;
	if (!skip_space(lx, t)) {
		t->kind = T_BAD;
		t->why = "unterminated comment";
		t->len = 0;
		return;
	}
	t->s = lx->p;
	t->line = lx->line;
	t->col = (int)(lx->p - lx->line_start) + 1;
	if (lx->p >= lx->end) {
		t->kind = T_EOF;
		t->len = 0;
		return;
	}
	c = *lx->p;
	if (is_alpha(c) || ((c == '_' || c == '$' || c == '%') &&
			    (c == '_' || (more(lx, 2) && is_follow(lx->p[1]))))) {
		lx->p++;
		scan_while(lx, is_follow);
		t->kind = T_IDENT;
	} else if (c == '.' && more(lx, 2) && is_follow(lx->p[1])) {
		lx->p++;
		scan_while(lx, is_follow);
		scan_scoped(lx);
		t->kind = T_DIR;
	} else if (is_digit(c)) {
		t->kind = scan_number(lx);
	} else if (c == '"') {
		t->kind = T_STRING;
		if (!scan_string(lx)) {
			t->kind = T_BAD;
			t->why = "unterminated string";
		}
	} else if (is_punct(c)) {
		lx->p++;
		t->kind = T_PUNCT;
	} else {
		lx->p++;
		t->kind = T_BAD;
		t->why = "unexpected character";
	}
	t->len = (size_t)(lx->p - t->s);
}
