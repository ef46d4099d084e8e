/*
 * parser.h - state and token helpers shared by the parser's files
 * (module.c, decl.c, init.c, body.c, operand.c).  Every parse function
 * returns 0 or -1; the first error is recorded in p->err and the rest of the
 * parse unwinds without touching the tree again.
 */
#ifndef AG_PTX_PARSER_H
#define AG_PTX_PARSER_H

#include "ptx/arena.h"
#include "ptx/lex.h"
#include "ptx/ptx.h"

#include <stdbool.h>

/* Nested braces in an initializer, and array dimensions, deeper than this
 * are refused: PTX has no use for them and the stack stays bounded. */
#define PTX_MAX_DIMS 8

struct nametab;

struct parser {
	struct lexer lx;
	struct token tok;           /* the current token */
	struct token ahead;         /* one token of lookahead, if have_ahead */
	bool have_ahead;
	struct ptx_arena *arena;
	struct ptx_error *err;
	struct nametab *regs;       /* .reg names of the function being parsed */
	struct nametab *names;      /* every name, once (p_tok_str) */
	unsigned char *scratch;     /* the stack lists are built on (list.c) */
	size_t scratch_len, scratch_cap;
};

/* list.c: an array being built; see there. */
struct list {
	size_t start;               /* offset in p->scratch */
	uint32_t n;
};

void list_begin(struct parser *p, struct list *l);
/* A zeroed new element, good until the next push. */
void *list_push(struct parser *p, struct list *l, size_t elsize);
void *list_last(struct parser *p, const struct list *l, size_t elsize);
/* The finished list copied to the arena (NULL when empty); l->n counts it. */
const void *list_done(struct parser *p, struct list *l, size_t elsize);

/* nametab.c: names with a value each. */
struct name {
	const char *s;              /* NULL: an empty slot */
	size_t len, hash;
	uint64_t value;
};

struct nametab *nametab_new(void);
void nametab_free(struct nametab *t);
void nametab_clear(struct nametab *t);
struct name *nametab_find(const struct nametab *t, const char *s, size_t len);
/* The entry for s, added with value 0 when missing (*added set): then it
 * points to s, which the caller must keep alive or replace. */
struct name *nametab_add(struct nametab *t, const char *s, size_t len, bool *added);

void p_next(struct parser *p);
const struct token *p_peek(struct parser *p);
bool tok_is(const struct token *t, char c);
bool tok_is_dir(const struct token *t, const char *dir);
bool tok_is_ident(const struct token *t, const char *name);
bool p_accept(struct parser *p, char c);
/* "expected ';' after instruction, got 'foo'" at the current token. */
int p_expect(struct parser *p, char c, const char *where);
/* "expected <what>, got 'foo'" at the current token. */
int p_expected(struct parser *p, const char *what);
int p_fail(struct parser *p, const struct token *t, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Skips the rest of the line: .loc and .file end there, not at ';'. */
void p_skip_line(struct parser *p);

const char *p_tok_str(struct parser *p, const struct token *t);
/* Integer literal (no sign) at the current token; advances. */
int p_uint(struct parser *p, uint64_t *v, const char *what);
int p_uint32(struct parser *p, uint32_t *v, const char *what);
/* Optional '-' then an integer literal; advances. */
int p_int(struct parser *p, int64_t *v, const char *what);
/* A float token's raw bits and size: 4 for 0f, 8 for 0d and decimal. */
int p_float_bits(struct parser *p, const struct token *t, uint64_t *bits, int *size);

/* decl.c: declaration specifiers (.reg .align 8 .v2 .f32 ...) then one
 * declarator (name, <N>, [N]..., = init).  'where' names the context. */
int parse_decl_spec(struct parser *p, struct ptx_var *spec, const char *where);
int parse_declarator(struct parser *p, struct ptx_var *v, bool allow_init);
bool is_space_dir(const struct token *t);

/* init.c: "= ..." after a declarator with dims[0..ndims). */
int parse_init(struct parser *p, struct ptx_var *v, const uint64_t *dims, int ndims);

/* body.c: statements between a function's braces, '{' current. */
int parse_body(struct parser *p, struct ptx_func *f);
/* '.pragma "text";' with .pragma current: the text without quotes. */
int parse_pragma(struct parser *p, const char **text);
/* Parameter list "( .param ..., ... )": '(' current. */
int parse_params(struct parser *p, const struct ptx_var **out, uint32_t *n);

/* operand.c */
int parse_operand(struct parser *p, struct ptx_operand *op);

/* regnames.c: which plain names (no '%') are registers in this function. */
void reg_names_add(struct nametab *r, const char *name, uint32_t range);
bool reg_names_has(const struct nametab *r, const char *s, size_t len);

#endif
