/*
 * translate_operand.c - operands as C: the C type of each PTX type, how a
 * register's storage is read as an instruction's type (bits reinterpreted,
 * integers truncated or extended), immediates, symbol addresses in every
 * state space, destinations, guards, lane loops, and the check that every
 * modifier of an instruction is one its emitter understands.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

const char *tr_ctype(enum ptx_type ty)
{
	switch (ty) {
	case PTX_T_PRED: case PTX_T_B8: case PTX_T_U8:
		return "uint8_t";
	case PTX_T_S8:
		return "int8_t";
	case PTX_T_B16: case PTX_T_U16: case PTX_T_F16: case PTX_T_BF16:
		return "uint16_t";
	case PTX_T_S16:
		return "int16_t";
	case PTX_T_B32: case PTX_T_U32: case PTX_T_F16X2: case PTX_T_BF16X2:
		return "uint32_t";
	case PTX_T_S32:
		return "int32_t";
	case PTX_T_B64: case PTX_T_U64:
		return "uint64_t";
	case PTX_T_S64:
		return "int64_t";
	case PTX_T_F32:
		return "float";
	case PTX_T_F64:
		return "double";
	default:
		return NULL;
	}
}

uint32_t tr_size(enum ptx_type ty)
{
	return ptx_type_size(ty);
}

enum ptx_type tr_uint(uint32_t bytes)
{
	switch (bytes) {
	case 1: return PTX_T_U8;
	case 2: return PTX_T_U16;
	case 4: return PTX_T_U32;
	case 8: return PTX_T_U64;
	default: return PTX_T_NONE;
	}
}

enum ptx_type tr_sint(uint32_t bytes)
{
	switch (bytes) {
	case 1: return PTX_T_S8;
	case 2: return PTX_T_S16;
	case 4: return PTX_T_S32;
	case 8: return PTX_T_S64;
	default: return PTX_T_NONE;
	}
}

/* Registers keep floats as C floats, predicates as bytes, everything else
 * as unsigned bits of its size. */
enum ptx_type tr_storage(enum ptx_type declared)
{
	if (declared == PTX_T_F32 || declared == PTX_T_F64 || declared == PTX_T_PRED)
		return declared;
	return tr_uint(ptx_type_size(declared));
}

int tr_is_float(enum ptx_type ty)
{
	return ty == PTX_T_F32 || ty == PTX_T_F64;
}

int tr_is_signed(enum ptx_type ty)
{
	return ty == PTX_T_S8 || ty == PTX_T_S16 || ty == PTX_T_S32 || ty == PTX_T_S64;
}

/* e, a value of type from, as type to: the same bits where the sizes
 * agree, integers truncated or extended (by from's signedness). */
void tr_conv(struct strbuf *sb, enum ptx_type from, enum ptx_type to, const char *e)
{
	const char *ct = tr_ctype(to);

	if (!strcmp(tr_ctype(from), ct))
		sb_addf(sb, "(%s)", e);
	else if (to == PTX_T_PRED)
		sb_addf(sb, "((%s) != 0)", e);
	else if (tr_is_float(to) && tr_is_float(from))
		sb_addf(sb, "((%s)(%s))", ct, e);
	else if (to == PTX_T_F32)
		sb_addf(sb, "ag_bits_f32((uint32_t)(%s))", e);
	else if (to == PTX_T_F64)
		sb_addf(sb, "ag_bits_f64((uint64_t)(%s))", e);
	else if (from == PTX_T_F32)
		sb_addf(sb, "((%s)ag_f32_bits(%s))", ct, e);
	else if (from == PTX_T_F64)
		sb_addf(sb, "((%s)ag_f64_bits(%s))", ct, e);
	else
		sb_addf(sb, "((%s)(%s))", ct, e);
}

void tr_wrap(struct strbuf *e, const char *fn)
{
	struct strbuf w = STRBUF_INIT;

	sb_addf(&w, "%s(%s)", fn, e->buf);
	sb_free(e);
	*e = w;
}

int tr_row(uint64_t size)
{
	return (int)((size + 7) / 8 * 8);
}

/* The index of "%r17" in its "%r<N>" declaration (0 for a name
 * declared alone). */
uint32_t tr_reg_index(const struct tr_sym *s, const char *name)
{
	return s->range ? (uint32_t)strtoul(name + strlen(s->name), NULL, 10) : 0;
}

/* The PTX name of register i of declaration s, and its C local in the
 * fast path's translations: r3_17 for %r17 of the third declaration. */
void tr_ptx_name(const struct tr_sym *s, uint32_t i, struct strbuf *sb)
{
	if (s->range)
		sb_addf(sb, "%s%u", s->name, i);
	else
		sb_adds(sb, s->name);
}

void tr_local_name(const struct tr_sym *s, uint32_t i, struct strbuf *sb)
{
	if (s->range)
		sb_addf(sb, "r%u_%u", s->id, i);
	else
		sb_addf(sb, "r%u", s->id);
}

/* Register name as C; write: as the destination (a group translation's
 * linear register is then lane 0's value, group.c). */
static void reg_lvalue(const struct tr *t, const struct tr_sym *s, const char *name, int write,
		       struct strbuf *sb)
{
	if (s->local && t->shape) {
		struct strbuf c = STRBUF_INIT;

		tr_local_name(s, tr_reg_index(s, name), &c);
		tr_group_reg(t, s, name, c.buf, write, sb);
		sb_free(&c);
	} else if (s->local)
		tr_local_name(s, tr_reg_index(s, name), sb);
	else if (s->range)
		sb_addf(sb, "W->r%u[%u][l]", s->id, tr_reg_index(s, name));
	else
		sb_addf(sb, "W->r%u[l]", s->id);
}

int tr_reg_lvalue(struct tr *t, const char *name, struct strbuf *sb)
{
	const struct tr_sym *s = tr_lookup(t, name);

	if (!s || s->kind != TK_REG)
		return -1;
	reg_lvalue(t, s, name, 1, sb);
	return 0;
}

static void note_shared(struct tr *t, const struct tr_sym *s)
{
	struct tr_fninfo *fi = &t->fi[t->fidx];

	if (s->kind == TK_SHARED && s->off + s->size > fi->shared_end)
		fi->shared_end = (uint32_t)(s->off + s->size);
}

/* The address a symbol names, as a C expression of type uint64_t: host
 * addresses for global, constant, local and parameter storage, offsets
 * into the block's shared memory for .shared. */
static int sym_value(struct tr *t, const struct ptx_insn *in, const struct tr_sym *s,
		     struct strbuf *sb)
{
	note_shared(t, s);
	switch (s->kind) {
	case TK_GVAR:
		sb_addf(sb, "(uint64_t)(uintptr_t)ag_v%u", s->id);
		return 0;
	case TK_SHARED:
		sb_addf(sb, "(uint64_t)%lluu", (unsigned long long)s->off);
		return 0;
	case TK_DYNSHARED:
		sb_adds(sb, "(uint64_t)w->dyn");
		return 0;
	case TK_LOCAL:
		sb_addf(sb, "(uint64_t)(uintptr_t)W->d%u[l]", s->id);
		return 0;
	case TK_EPARAM:
		sb_addf(sb, "(uint64_t)(uintptr_t)(prm + %llu)", (unsigned long long)s->off);
		return 0;
	case TK_PARAM:
		sb_addf(sb, "(uint64_t)(uintptr_t)W->q%u[l]", s->id);
		return 0;
	case TK_FARG:
		sb_addf(sb, "(uint64_t)(uintptr_t)(a[%llu] + l * %d)", (unsigned long long)s->off,
			tr_row(s->size));
		return 0;
	case TK_FUNC:
		sb_addf(sb, "(uint64_t)(uintptr_t)&ag_f%u", s->id);
		return 0;
	default:
		return tr_unsupported(t, in, "register used as an address");
	}
}

/* Whether symbol name's address is one number for the whole launch, the
 * same in every lane and every function (a shared or global variable's). */
static int fixed_address(struct tr *t, const char *name)
{
	const struct tr_sym *s = tr_lookup(t, name);

	return s && (s->kind == TK_SHARED || s->kind == TK_GVAR);
}

/* The value of a register that only ever holds one constant (consts.c),
 * in its storage type: 1 when it is one, 0 when not, -1 on error. */
static int const_value(struct tr *t, const struct ptx_operand *o, const struct tr_sym *s,
		       struct strbuf *e)
{
	struct strbuf v = STRBUF_INIT;
	const struct ptx_insn *def;
	enum ptx_type ty;

	if (o->component || !(def = tr_const_def(t->consts, o->name, &ty)))
		return 0;
	if (def->ops[1].kind == PTX_OP_SYM && !fixed_address(t, def->ops[1].name))
		return 0;
	if (tr_src(t, def, &def->ops[1], ty, &v)) {
		sb_free(&v);
		return -1;
	}
	tr_conv(e, ty, s->type, v.buf);
	sb_free(&v);
	return 1;
}

int tr_src(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	   enum ptx_type ty, struct strbuf *sb)
{
	struct strbuf e = STRBUF_INIT;
	enum ptx_type from;
	const struct tr_sym *s;
	int rc = 0;

	switch (o->kind) {
	case PTX_OP_IMM:
		if (tr_is_float(ty))
			sb_addf(sb, "((%s)INT64_C(%" PRId64 "))", tr_ctype(ty), o->i);
		else
			sb_addf(sb, "((%s)UINT64_C(0x%" PRIx64 "))", tr_ctype(ty), (uint64_t)o->i);
		return 0;
	case PTX_OP_FIMM:
		if (o->fsize == 4)
			sb_addf(&e, "ag_bits_f32(0x%08" PRIx64 "u)", o->fbits);
		else
			sb_addf(&e, "ag_bits_f64(UINT64_C(0x%016" PRIx64 "))", o->fbits);
		from = o->fsize == 4 ? PTX_T_F32 : PTX_T_F64;
		if (tr_is_float(ty) || tr_size(ty) == tr_size(from))
			tr_conv(sb, from, ty, e.buf);
		else
			rc = tr_unsupported(t, in, "float literal of another size");
		break;
	case PTX_OP_REG:
	case PTX_OP_SYM:
		s = tr_lookup(t, o->name);
		if (!s) {
			rc = tr_sreg(t, in, o, &e, &from) ? -1 : 0;
		} else if (s->kind == TK_REG) {
			rc = const_value(t, o, s, &e);
			if (!rc)
				reg_lvalue(t, s, o->name, 0, &e);
			rc = rc < 0 ? -1 : 0;
			from = s->type;
		} else {
			rc = sym_value(t, in, s, &e) ? -1 : 0;
			if (!rc && o->i)
				sb_addf(&e, " + (uint64_t)%" PRId64, o->i);
			from = PTX_T_U64;
		}
		if (rc)
			break;
		if (o->neg && from != PTX_T_PRED)
			rc = tr_unsupported(t, in, "'!' on a non-predicate");
		else if (o->neg && ty != PTX_T_PRED)
			rc = tr_unsupported(t, in, "predicate as a value");
		else if (o->neg)
			sb_addf(sb, "(!%s)", e.buf);
		else
			tr_conv(sb, from, ty, e.buf);
		break;
	default:
		rc = tr_unsupported(t, in, "operand kind");
		break;
	}
	sb_free(&e);
	return rc;
}

/* Appends "dst = expr;" converting expr, of type ty, to the register's
 * storage; a sink evaluates expr only. */
int tr_dst(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	   enum ptx_type ty, const char *expr)
{
	const struct tr_sym *s;

	if (o->kind == PTX_OP_SINK) {
		sb_addf(&t->code, "(void)(%s);\n", expr);
		return 0;
	}
	if (o->kind != PTX_OP_REG)
		return tr_unsupported(t, in, "destination is not a register");
	s = tr_lookup(t, o->name);
	if (!s || s->kind != TK_REG)
		return tr_fail(t, in->line, "unknown register '%s' at line %d", o->name, in->line);
	reg_lvalue(t, s, o->name, 1, &t->code);
	sb_adds(&t->code, " = ");
	tr_conv(&t->code, ty, s->type, expr);
	sb_adds(&t->code, ";\n");
	return 0;
}

static int addr_of(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		   enum ptx_space space, struct strbuf *sb);

/* A memory operand as an 'unsigned char *' C expression.  Shared
 * addresses are offsets into the block's shared memory; global, generic,
 * constant and local ones are host addresses.  A load of the group
 * translation that runs once for a part of the call reads its address
 * only while the part has a lane left (group.c). */
int tr_addr(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	    enum ptx_space space, struct strbuf *sb)
{
	struct strbuf a = STRBUF_INIT;
	int rc;

	if (!t->shape)
		return addr_of(t, in, o, space, sb);
	rc = addr_of(t, in, o, space, &a);
	if (!rc)
		tr_group_address(t, in, a.buf, sb);
	sb_free(&a);
	return rc;
}

static int addr_of(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		   enum ptx_space space, struct strbuf *sb)
{
	struct strbuf e = STRBUF_INIT;
	const struct tr_sym *s;

	if (o->kind != PTX_OP_ADDR)
		return tr_unsupported(t, in, "expected an address operand");
	if (!o->name) {
		sb_addf(sb, "((unsigned char *)(uintptr_t)UINT64_C(%" PRIu64 "))", (uint64_t)o->i);
		return 0;
	}
	s = tr_lookup(t, o->name);
	if (!s)
		return tr_fail(t, in->line, "unknown symbol '%s' at line %d", o->name, in->line);
	if (s->kind == TK_REG && space == PTX_SPACE_SHARED &&
	    (tr_aff_shared(t, o->name, o->i, sb) || tr_group_shared(t, s, o->name, o->i, sb)))
		return 0;
	if (s->kind == TK_REG) {
		reg_lvalue(t, s, o->name, 0, &e);
		if (space == PTX_SPACE_SHARED)
			sb_adds(sb, "(sh + ");
		else
			sb_adds(sb, "((unsigned char *)(uintptr_t)");
		sb_addf(sb, "(uint64_t)(%s + (%s)%" PRId64 "))", e.buf, tr_ctype(s->type), o->i);
		sb_free(&e);
		return 0;
	}
	note_shared(t, s);
	switch (s->kind) {
	case TK_GVAR:
		sb_addf(sb, "(ag_v%u + %" PRId64 ")", s->id, o->i);
		break;
	case TK_SHARED:
		sb_addf(sb, "(sh + %llu + %" PRId64 ")", (unsigned long long)s->off, o->i);
		break;
	case TK_DYNSHARED:
		sb_addf(sb, "(sh + w->dyn + %" PRId64 ")", o->i);
		break;
	case TK_LOCAL:
		sb_addf(sb, "(W->d%u[l] + %" PRId64 ")", s->id, o->i);
		break;
	case TK_EPARAM:
		sb_addf(sb, "((unsigned char *)prm + %llu + %" PRId64 ")",
			(unsigned long long)s->off, o->i);
		break;
	case TK_PARAM:
		sb_addf(sb, "(W->q%u[l] + %" PRId64 ")", s->id, o->i);
		break;
	case TK_FARG:
		sb_addf(sb, "(a[%llu] + l * %d + %" PRId64 ")", (unsigned long long)s->off,
			tr_row(s->size), o->i);
		break;
	default:
		return tr_unsupported(t, in, "address of a function");
	}
	return 0;
}

/* Whether address operand o is the same in every lane: a number, or a
 * variable or kernel parameter plus one (not a register, nor a thread's
 * own local memory or function parameters). */
int tr_addr_shared_by_lanes(const struct tr *t, const struct ptx_operand *o)
{
	const struct tr_sym *s;

	if (o->kind != PTX_OP_ADDR)
		return 0;
	if (!o->name)
		return 1;
	s = tr_lookup(t, o->name);
	return s && (s->kind == TK_GVAR || s->kind == TK_SHARED || s->kind == TK_DYNSHARED ||
		     s->kind == TK_EPARAM);
}

/* The guard predicate of lane l. */
int tr_guard(struct tr *t, const struct ptx_insn *in, struct strbuf *sb)
{
	const struct tr_sym *s = tr_lookup(t, in->guard);

	if (!s || s->kind != TK_REG || s->type != PTX_T_PRED)
		return tr_fail(t, in->line, "guard '%s' is not a predicate register", in->guard);
	sb_adds(sb, in->guard_neg ? "!" : "");
	reg_lvalue(t, s, in->guard, 0, sb);
	return 0;
}

/* "for each active lane (under the guard) {"; the body follows.  The
 * scalar version runs one lane: "if (guard) {". */
void tr_lanes_begin(struct tr *t, const struct ptx_insn *in)
{
	if (t->shape) {
		tr_group_lanes_begin(t, in);
		return;
	}
	if (t->scalar || t->fused) {
		sb_adds(&t->code, "\t\tif (");
		if (in && in->guard) {
			size_t at = t->code.len;

			tr_guard(t, in, &t->code);
			tr_seg_guard(t, at);
		} else {
			sb_adds(&t->code, "1");
		}
		sb_adds(&t->code, ") {\n\t\t\t");
		return;
	}
	sb_adds(&t->code, "\t\tfor (l = 0; l < 32; l++) if (m[l]");
	if (in && in->guard) {
		/* Both are 0 or 1: '&' keeps the loop free of branches. */
		sb_adds(&t->code, " & ");
		tr_guard(t, in, &t->code);
	}
	sb_adds(&t->code, ") {\n\t\t\t");
}

void tr_lanes_end(struct tr *t)
{
	if (t->shape) {
		tr_group_lanes_end(t);
		return;
	}
	sb_adds(&t->code, "\t\t}\n");
}

static int word_in(const char *list, const char *w)
{
	size_t n = strlen(w);
	const char *p = list;

	while ((p = strstr(p, w))) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

int tr_mods(struct tr *t, const struct ptx_insn *in, const char *allowed,
	    enum ptx_type *types, uint32_t ntypes_max, uint32_t *ntypes)
{
	uint32_t i, n = 0;
	enum ptx_type ty;

	for (i = 0; i < in->nmods; i++) {
		if (word_in(allowed, in->mods[i]))
			continue;
		ty = ptx_type_from_mod(in->mods[i]);
		if (ty == PTX_T_NONE || n >= ntypes_max) {
			char why[64];

			snprintf(why, sizeof(why), "modifier '%s'", in->mods[i]);
			return tr_unsupported(t, in, why);
		}
		types[n++] = ty;
	}
	if (ntypes)
		*ntypes = n;
	else if (n)
		return tr_unsupported(t, in, "unexpected type");
	return 0;
}

int tr_has(const struct ptx_insn *in, const char *mod)
{
	return tr_in_list(in->mods, in->nmods, mod);
}

int tr_nops(struct tr *t, const struct ptx_insn *in, uint32_t lo, uint32_t hi)
{
	if (in->nops < lo || in->nops > hi)
		return tr_fail(t, in->line, "'%s' at line %d has %u operands", in->opcode,
			       in->line, in->nops);
	return 0;
}
