/*
 * lex.h - PTX tokens.  The lexer reads len bytes (no NUL needed), skips
 * white space and comments, and never reads past the end.
 */
#ifndef AG_PTX_LEX_H
#define AG_PTX_LEX_H

#include <stddef.h>

enum tok_kind {
	T_EOF,
	T_IDENT,        /* add, %r1, $L__BB0_1, _Z3fooi, _ */
	T_DIR,          /* .reg, .f32, .x, .2d: the dot included */
	T_INT,          /* 12, 0x1F, 017, 0b101, with an optional U */
	T_FLOAT,        /* 0f3F800000, 0d3FF0000000000000, 1.5, 2e10 */
	T_STRING,       /* "nounroll": quotes included */
	T_PUNCT,        /* one character: ; , : { } [ ] ( ) < > + - ! @ | = */
	T_BAD,          /* a character or construct PTX does not have */
};

struct token {
	enum tok_kind kind;
	const char *s;
	size_t len;
	int line, col;
	const char *why;        /* T_BAD: what is wrong */
};

struct lexer {
	const char *p, *end;
	const char *line_start;
	int line;
};

void lex_init(struct lexer *lx, const char *text, size_t len);
void lex_next(struct lexer *lx, struct token *t);
/* Skips the rest of the current line (for .loc and .file, which end at
 * the newline rather than at a ';'). */
void lex_skip_line(struct lexer *lx);

#endif
