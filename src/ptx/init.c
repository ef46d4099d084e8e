/*
 * init.c - variable initializers: "= 5", "= {1, 2, 3}", nested braces for
 * arrays of several dimensions and vectors, floats, and addresses of
 * symbols ("{gv, generic(gv)+8}", or byte by byte: "0xFF(generic(gv))",
 * "0xFF00(generic(gv))" ...), which become relocations.  The bytes are laid
 * out little-endian; bytes not given stay zero.
 */
#include "ptx/parser.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* A bigger initializer is refused rather than materialized: a few bytes of
 * text such as "x[1000000000][2] = {{0},{1}}" must not cost gigabytes. */
#define MAX_INIT_BYTES (256u << 20)

struct init {
	struct ptx_var *v;
	uint32_t es;                /* bytes per element */
	const uint64_t *dims;       /* elements per level; dims[0] 0 if unsized */
	int ndims;
	uint64_t stride[PTX_MAX_DIMS + 1];  /* elements per item of each level */
	unsigned char *buf;         /* malloc'ed while parsing */
	uint64_t cap, used;         /* bytes */
	struct list relocs;
};

/* An address: [generic(]sym[)] [+-off]. */
struct addr {
	const char *sym;
	int generic;
	int64_t addend;
};

static unsigned char *slot(struct parser *p, struct init *st, uint64_t idx)
{
	uint64_t end;

	if (!st->v->unsized && idx / st->v->vec >= st->v->count) {
		p_fail(p, &p->tok, "too many initializers for '%s'", st->v->name);
		return NULL;
	}
	if (idx >= MAX_INIT_BYTES / st->es) {
		p_fail(p, &p->tok, "initializer of '%s' too large", st->v->name);
		return NULL;
	}
	end = (idx + 1) * st->es;
	if (end > st->cap) {
		uint64_t cap = st->cap ? st->cap : 64;

		while (cap < end)
			cap *= 2;
		st->buf = xrealloc(st->buf, cap);
		memset(st->buf + st->cap, 0, cap - st->cap);
		st->cap = cap;
	}
	if (end > st->used)
		st->used = end;
	return st->buf + idx * st->es;
}

static void store_le(unsigned char *d, uint64_t x, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, x >>= 8)
		d[i] = (unsigned char)x;
}

static bool is_float_type(enum ptx_type t)
{
	return t == PTX_T_F32 || t == PTX_T_F64;
}

static uint64_t f32_bits(double d)
{
	float f = (float)d;
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static double bits_value(uint64_t bits, int size)
{
	if (size == 4) {
		uint32_t u = (uint32_t)bits;
		float f;

		memcpy(&f, &u, 4);
		return f;
	}
	double d;

	memcpy(&d, &bits, 8);
	return d;
}

/* A number element: integers convert to a float variable's type; float
 * literals convert between f32 and f64, and go in bit for bit where the
 * sizes agree (".b32 x = 0f3F800000"). */
static int put_number(struct parser *p, struct init *st, uint64_t idx,
		      bool is_float, uint64_t bits, int fsize, bool neg)
{
	enum ptx_type t = st->v->type;
	unsigned char *d = slot(p, st, idx);
	double val;

	if (!d)
		return -1;
	if (!is_float_type(t)) {
		if (is_float && (uint32_t)fsize != st->es)
			return p_fail(p, &p->tok, "float literal in .%s initializer",
				      ptx_type_name(t));
		store_le(d, is_float && neg ? bits ^ (1ull << (fsize * 8 - 1)) : bits, st->es);
		return 0;
	}
	if (is_float)
		val = bits_value(bits, fsize);
	else
		val = neg ? (double)(int64_t)bits : (double)bits;
	if (is_float && neg)
		val = -val;
	if (t == PTX_T_F32) {
		store_le(d, f32_bits(val), 4);
	} else {
		uint64_t u;

		memcpy(&u, &val, 8);
		store_le(d, u, 8);
	}
	return 0;
}

static int parse_addr(struct parser *p, struct addr *a)
{
	a->generic = tok_is_ident(&p->tok, "generic") && tok_is(p_peek(p), '(');
	if (a->generic)
		p_next(p), p_next(p);
	if (p->tok.kind != T_IDENT)
		return p_expected(p, "a symbol in address initializer");
	a->sym = p_tok_str(p, &p->tok);
	p_next(p);
	if (a->generic && p_expect(p, ')', "after generic(symbol"))
		return -1;
	a->addend = 0;
	if (tok_is(&p->tok, '+') || tok_is(&p->tok, '-')) {
		bool minus = tok_is(&p->tok, '-');

		p_next(p);
		if (p_int(p, &a->addend, "offset after symbol"))
			return -1;
		if (minus)
			a->addend = -a->addend;
	}
	return 0;
}

static int put_addr(struct parser *p, struct init *st, uint64_t idx, const struct addr *a)
{
	struct ptx_reloc *r;

	if (st->es != 4 && st->es != 8)
		return p_fail(p, &p->tok, "address of '%s' in a %u-byte element",
			      a->sym, st->es);
	if (!slot(p, st, idx))
		return -1;
	r = list_push(p, &st->relocs, sizeof(*r));
	r->offset = idx * st->es;
	r->size = st->es;
	r->generic = a->generic;
	r->symbol = a->sym;
	r->addend = a->addend;
	return 0;
}

/* "0xFF00(generic(gv))": byte k of an address, in a byte array.  Bytes
 * 0, 1, 2 ... of one address in a row make one relocation. */
static int put_masked(struct parser *p, struct init *st, uint64_t idx,
		      uint64_t mask, const struct token *at)
{
	struct ptx_reloc *r;
	struct addr a;
	uint32_t k;

	for (k = 0; k < 8 && mask != 0xFFull << (8 * k); k++)
		;
	if (k == 8)
		return p_fail(p, at, "mask must select one byte of an address");
	if (st->es != 1)
		return p_fail(p, at, "masked address in a %u-byte element", st->es);
	p_next(p);
	if (parse_addr(p, &a) || p_expect(p, ')', "after masked address"))
		return -1;
	if (!slot(p, st, idx))
		return -1;
	r = list_last(p, &st->relocs, sizeof(*r));
	if (k == 0) {
		r = list_push(p, &st->relocs, sizeof(*r));
		r->offset = idx;
		r->generic = a.generic;
		r->symbol = a.sym;
		r->addend = a.addend;
	} else if (!r || r->offset + r->size != idx || r->size != k ||
		   strcmp(r->symbol, a.sym) || r->generic != a.generic ||
		   r->addend != a.addend) {
		return p_fail(p, at, "byte %u of the address of '%s' out of order", k, a.sym);
	}
	r->size++;
	return 0;
}

static int parse_element(struct parser *p, struct init *st, uint64_t idx)
{
	bool neg = p_accept(p, '-');
	uint64_t bits;
	int fsize;

	if (p->tok.kind == T_FLOAT) {
		if (p_float_bits(p, &p->tok, &bits, &fsize) ||
		    put_number(p, st, idx, true, bits, fsize, neg))
			return -1;
		p_next(p);
		return 0;
	}
	if (p->tok.kind == T_INT) {
		if (!neg && tok_is(p_peek(p), '(')) {
			struct token at = p->tok;

			if (p_uint(p, &bits, "mask"))
				return -1;
			return put_masked(p, st, idx, bits, &at);
		}
		if (p_uint(p, &bits, "a value"))
			return -1;
		return put_number(p, st, idx, false, neg ? -bits : bits, 0, neg);
	}
	if (!neg && p->tok.kind == T_IDENT) {
		struct addr a;

		return parse_addr(p, &a) || put_addr(p, st, idx, &a) ? -1 : 0;
	}
	return p_expected(p, "a value in initializer");
}

/* "{ item, item, ... }" at the given level, starting at element base. */
static int parse_list(struct parser *p, struct init *st, int level, uint64_t base)
{
	uint64_t inner = st->stride[level + 1];
	uint64_t limit = st->dims[level] * st->stride[level + 1];
	uint64_t pos = 0;

	if (level >= st->ndims)
		return p_fail(p, &p->tok, "too many braces in initializer of '%s'", st->v->name);
	p_next(p);
	if (tok_is(&p->tok, '}'))
		return p_expected(p, "a value in initializer");
	for (;;) {
		if (st->dims[level] && pos >= limit)
			return p_fail(p, &p->tok, "too many initializers for '%s'", st->v->name);
		if (tok_is(&p->tok, '{')) {
			pos = (pos + inner - 1) / inner * inner;
			if (parse_list(p, st, level + 1, base + pos))
				return -1;
			pos += inner;
		} else {
			if (parse_element(p, st, base + pos))
				return -1;
			pos++;
		}
		if (!p_accept(p, ','))
			break;
	}
	return p_expect(p, '}', "after initializer list");
}

static int set_strides(struct parser *p, struct init *st)
{
	st->stride[st->ndims] = 1;
	for (int i = st->ndims - 1; i >= 0; i--) {
		uint64_t d = st->dims[i] ? st->dims[i] : 1;

		if (st->stride[i + 1] > UINT64_MAX / d)
			return p_fail(p, &p->tok, "'%s' too large", st->v->name);
		st->stride[i] = st->stride[i + 1] * d;
	}
	return 0;
}

static void finish(struct parser *p, struct init *st)
{
	struct ptx_var *v = st->v;
	unsigned char *bytes = arena_alloc(p->arena, st->used);

	memcpy(bytes, st->buf, st->used);
	v->init = bytes;
	v->init_size = st->used;
	v->relocs = list_done(p, &st->relocs, sizeof(struct ptx_reloc));
	v->nrelocs = st->relocs.n;
	if (v->unsized) {
		uint64_t elems = st->used / st->es, per = st->stride[1];
		uint64_t items = elems / per + (elems % per != 0);

		v->count = items * (per / v->vec);
	}
}

int parse_init(struct parser *p, struct ptx_var *v, const uint64_t *dims, int ndims)
{
	struct init st = { .v = v, .dims = dims, .ndims = ndims };
	int ret;

	st.es = ptx_type_size(v->type);
	if (!st.es || v->type == PTX_T_PRED || v->type >= PTX_T_TEXREF)
		return p_fail(p, &p->tok, "'%s' of type .%s cannot be initialized",
			      v->name, ptx_type_name(v->type));
	if (set_strides(p, &st))
		return -1;
	list_begin(p, &st.relocs);
	if (ndims == 0)
		ret = tok_is(&p->tok, '{') ?
			p_fail(p, &p->tok, "braces in initializer of scalar '%s'", v->name) :
			parse_element(p, &st, 0);
	else if (!tok_is(&p->tok, '{'))
		ret = p_expected(p, "'{' to initialize an array or vector");
	else
		ret = parse_list(p, &st, 0, 0);
	if (!ret)
		finish(p, &st);
	free(st.buf);
	return ret;
}
