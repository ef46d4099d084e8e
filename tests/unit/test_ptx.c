/*
 * test_ptx.c - the PTX parser: tree contents for hand-written snippets,
 * parameter layout, error messages with their places, and robustness: every
 * fixture (committed and nvcc-generated) parses, prefixes of real modules
 * parse or fail cleanly, deep nesting and large modules cost no stack and
 * linear time.  Inputs are copied into buffers of their exact size, without
 * a NUL, so that AddressSanitizer sees any read past the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

static int parse_buf(const char *text, size_t len, struct ptx_module **m, struct ptx_error *err)
{
	char *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, text, len);
	ret = ptx_parse(copy, len, m, err);
	free(copy);
	return ret;
}

static struct ptx_module *parse_ok(const char *text)
{
	struct ptx_module *m;
	struct ptx_error err;

	if (parse_buf(text, strlen(text), &m, &err)) {
		print_error("unexpected error: line %d:%d: %s\n", err.line, err.col, err.msg);
		fail();
	}
	return m;
}

static void parse_err(const char *text, int line, int col, const char *msg)
{
	struct ptx_module *m = (void *)1;
	struct ptx_error err;

	assert_int_equal(parse_buf(text, strlen(text), &m, &err), -1);
	assert_null(m);
	if (!strstr(err.msg, msg) || err.line != line || err.col != col)
		print_error("got line %d:%d: %s\n", err.line, err.col, err.msg);
	assert_non_null(strstr(err.msg, msg));
	assert_int_equal(err.line, line);
	assert_int_equal(err.col, col);
}

#define HEAD ".version 9.0\n.target sm_75\n.address_size 64\n"

/* The body of the only function of a module made of HEAD + text. */
static const struct ptx_stmt *body_of(struct ptx_module *m, uint32_t *n)
{
	assert_true(m->nfuncs >= 1);
	*n = m->funcs[m->nfuncs - 1].nbody;
	return m->funcs[m->nfuncs - 1].body;
}

static const struct ptx_insn *nth_insn(struct ptx_module *m, uint32_t k)
{
	uint32_t n;
	const struct ptx_stmt *s = body_of(m, &n);

	for (uint32_t i = 0; i < n; i++)
		if (s[i].kind == PTX_STMT_INSN && k-- == 0)
			return &s[i].u.insn;
	fail();
	return NULL;
}

static const struct ptx_var *var_named(struct ptx_module *m, const char *name)
{
	for (uint32_t i = 0; i < m->nvars; i++)
		if (!strcmp(m->vars[i].name, name))
			return &m->vars[i];
	fail_msg("no variable %s", name);
	return NULL;
}

static void test_header(void **state)
{
	struct ptx_module *m = parse_ok("//\n// Generated\n//\n\n.version 8.5\n"
					".target sm_90a, texmode_independent, debug\n"
					".address_size 64\n");

	assert_int_equal(m->version_major, 8);
	assert_int_equal(m->version_minor, 5);
	assert_string_equal(m->target, "sm_90a");
	assert_int_equal(m->ntarget_opts, 2);
	assert_string_equal(m->target_opts[0], "texmode_independent");
	assert_string_equal(m->target_opts[1], "debug");
	assert_int_equal(m->address_size, 64);
	assert_int_equal(m->nfuncs, 0);
	ptx_free(m);
}

static void test_module_vars(void **state)
{
	struct ptx_module *m = parse_ok(HEAD
		".extern .shared .align 16 .b8 dyn[];\n"
		".visible .global .align 4 .v4 .f32 v4s[2][3];\n"
		".shared .align 4 .b8 _ZZ1kE1s[1024];\n"
		".global .attribute(.managed) .align 4 .u32 mg = 5;\n"
		".const .align 8 .b8 cd[16] = {24, 45, 68, 84, 251, 33, 9, 64};\n"
		".global .texref t;\n"
		"/* a comment */ .global .u32 a, b = 7, c[2];\n");
	const struct ptx_var *v;

	assert_int_equal(m->nvars, 9);
	v = var_named(m, "dyn");
	assert_int_equal(v->space, PTX_SPACE_SHARED);
	assert_true(v->is_extern && v->unsized && v->is_array);
	assert_int_equal(v->align, 16);
	assert_int_equal(v->count, 0);
	v = var_named(m, "v4s");
	assert_true(v->is_visible);
	assert_int_equal(v->vec, 4);
	assert_int_equal(v->type, PTX_T_F32);
	assert_int_equal(v->count, 6);
	v = var_named(m, "_ZZ1kE1s");
	assert_int_equal(v->count, 1024);
	assert_int_equal(v->type, PTX_T_B8);
	assert_null(v->init);
	v = var_named(m, "mg");
	assert_true(v->is_managed);
	assert_int_equal(v->init_size, 4);
	assert_memory_equal(v->init, "\5\0\0\0", 4);
	v = var_named(m, "cd");
	assert_int_equal(v->space, PTX_SPACE_CONST);
	assert_int_equal(v->init_size, 8);
	assert_int_equal(v->init[4], 251);
	assert_int_equal(var_named(m, "t")->type, PTX_T_TEXREF);
	assert_null(var_named(m, "a")->init);
	assert_int_equal(var_named(m, "b")->init[0], 7);
	assert_int_equal(var_named(m, "c")->count, 2);
	ptx_free(m);
}

static uint32_t u32_at(const struct ptx_var *v, uint64_t off)
{
	uint32_t x;

	assert_true(off + 4 <= v->init_size);
	memcpy(&x, v->init + off, 4);
	return x;
}

static void test_initializers(void **state)
{
	struct ptx_module *m = parse_ok(HEAD
		".global .align 4 .u32 t[2][3] = {{1, 2, 3}, {4, 5}};\n"
		".global .align 4 .u32 flat[4] = {1, 2};\n"
		".const .v2 .f32 pairs[2] = {{1.0, 0f40000000}, {-2.5, 3}};\n"
		".global .align 8 .f64 d[2] = {0d3FF0000000000000, -1};\n"
		".global .u8 bytes[] = {1, 0b101, 017, 0x1FU, -1};\n"
		".global .s16 neg = -2;\n"
		".global .align 8 .u64 tbl[3] = {f, generic(bytes)+4, 9};\n"
		".global .align 8 .u64 gp = generic(t)+-8;\n");
	const struct ptx_var *v;
	float f;
	double d;

	v = var_named(m, "t");
	assert_int_equal(v->init_size, 20);
	assert_int_equal(u32_at(v, 8), 3);
	assert_int_equal(u32_at(v, 12), 4);
	assert_int_equal(u32_at(v, 16), 5);
	assert_int_equal(var_named(m, "flat")->init_size, 8);
	v = var_named(m, "pairs");
	assert_int_equal(v->init_size, 16);
	memcpy(&f, v->init + 4, 4);
	assert_true(f == 2.0f);
	memcpy(&f, v->init + 8, 4);
	assert_true(f == -2.5f);
	memcpy(&f, v->init + 12, 4);
	assert_true(f == 3.0f);
	v = var_named(m, "d");
	memcpy(&d, v->init, 8);
	assert_true(d == 1.0);
	memcpy(&d, v->init + 8, 8);
	assert_true(d == -1.0);
	v = var_named(m, "bytes");
	assert_int_equal(v->count, 5);
	assert_memory_equal(v->init, "\1\5\17\37\377", 5);
	assert_memory_equal(var_named(m, "neg")->init, "\376\377", 2);
	v = var_named(m, "tbl");
	assert_int_equal(v->nrelocs, 2);
	assert_int_equal(v->relocs[0].offset, 0);
	assert_int_equal(v->relocs[0].size, 8);
	assert_false(v->relocs[0].generic);
	assert_string_equal(v->relocs[0].symbol, "f");
	assert_int_equal(v->relocs[1].offset, 8);
	assert_true(v->relocs[1].generic);
	assert_string_equal(v->relocs[1].symbol, "bytes");
	assert_int_equal(v->relocs[1].addend, 4);
	assert_int_equal(v->init[16], 9);
	v = var_named(m, "gp");
	assert_int_equal(v->nrelocs, 1);
	assert_int_equal(v->relocs[0].addend, -8);
	ptx_free(m);
}

static void test_masked_address(void **state)
{
	struct ptx_module *m = parse_ok(HEAD
		".global .align 1 .b8 s[6] = {7, 0xFF(generic(x)+2), 0xFF00(generic(x)+2),"
		" 0xFF0000(generic(x)+2), 0xFF000000(generic(x)+2), 9};\n");
	const struct ptx_var *v = var_named(m, "s");

	assert_int_equal(v->nrelocs, 1);
	assert_int_equal(v->relocs[0].offset, 1);
	assert_int_equal(v->relocs[0].size, 4);
	assert_true(v->relocs[0].generic);
	assert_int_equal(v->relocs[0].addend, 2);
	assert_int_equal(v->init[5], 9);
	ptx_free(m);
	parse_err(HEAD ".global .b8 s[4] = {0xFF00(x), 0xFF(x)};\n",
		  4, 21, "byte 1 of the address of 'x' out of order");
}

static void test_functions(void **state)
{
	struct ptx_module *m = parse_ok(HEAD
		".extern .func (.param .b32 r) vprintf(.param .b64 a, .param .b64 b);\n"
		".weak .func (.param .align 8 .b8 ret[24]) mk(.reg .b32 k) .noreturn;\n"
		".visible .entry k(\n"
		"\t.param .u64 .ptr .global .align 16 k_param_0,\n"
		"\t.param .align 8 .b8 k_param_1[24]\n)\n"
		".maxntid 256, 2\n.reqntid 64\n.minnctapersm 2\n.maxnreg 32\n"
		".explicitcluster\n.reqnctapercluster 2, 1, 1\n.maxclusterrank 8\n"
		"{\n\tret;\n}\n"
		".entry noparams\n{\n\tret;\n}\n");
	const struct ptx_func *f;

	assert_int_equal(m->nfuncs, 4);
	f = ptx_find_func(m, "vprintf");
	assert_true(f->is_extern && f->is_decl && !f->is_entry);
	assert_int_equal(f->nrets, 1);
	assert_string_equal(f->rets[0].name, "r");
	assert_int_equal(f->nparams, 2);
	f = ptx_find_func(m, "mk");
	assert_true(f->is_weak && f->noreturn);
	assert_int_equal(f->rets[0].align, 8);
	assert_int_equal(f->rets[0].count, 24);
	assert_int_equal(f->params[0].space, PTX_SPACE_REG);
	f = ptx_find_func(m, "k");
	assert_true(f->is_entry && f->is_visible && !f->is_decl);
	assert_int_equal(f->params[0].type, PTX_T_U64);
	assert_int_equal(f->params[0].ptr_space, PTX_SPACE_GLOBAL);
	assert_int_equal(f->params[0].ptr_align, 16);
	assert_int_equal(f->params[0].align, 0);
	assert_int_equal(f->maxntid[0], 256);
	assert_int_equal(f->maxntid[1], 2);
	assert_int_equal(f->maxntid[2], 0);
	assert_int_equal(f->reqntid[0], 64);
	assert_int_equal(f->minnctapersm, 2);
	assert_int_equal(f->maxnreg, 32);
	assert_int_equal(f->maxclusterrank, 8);
	assert_int_equal(f->nbody, 1);
	assert_int_equal(ptx_find_func(m, "noparams")->nparams, 0);
	assert_null(ptx_find_func(m, "nope"));
	ptx_free(m);
}

/* Registers passed as .reg parameters are registers in the body, plain
 * names or not; a return list "()_" declares none. */
static void test_reg_params(void **state)
{
	struct ptx_module *m = parse_ok(HEAD
		".func (.reg .b32 r) g(.reg .b32 k)\n{\n\tadd.u32 r, k, 1;\n\tret;\n}\n"
		".entry e()\n{\n"
		"\tp0 : .callprototype ()_ (.param .b64 _, .param .align 8 .b8 _[16]);\n"
		"\tadd.u32 r, k, 1;\n\tret;\n}\n");
	const struct ptx_insn *in = &m->funcs[0].body[0].u.insn;
	const struct ptx_stmt *s = &m->funcs[1].body[0];

	assert_int_equal(in->ops[0].kind, PTX_OP_REG);
	assert_int_equal(in->ops[1].kind, PTX_OP_REG);
	assert_int_equal(s->kind, PTX_STMT_PROTO);
	assert_int_equal(s->u.proto.nrets, 0);
	assert_int_equal(s->u.proto.nparams, 2);
	assert_int_equal(s->u.proto.params[1].count, 16);
	/* A name is a register only in the function that declares it. */
	in = &m->funcs[1].body[1].u.insn;
	assert_int_equal(in->ops[0].kind, PTX_OP_SYM);
	ptx_free(m);
}

static void test_param_layout(void **state)
{
	struct ptx_module *m = parse_ok(HEAD
		".entry k(.param .u32 a, .param .align 8 .b8 s[24], .param .u64 p,\n"
		"\t.param .u8 c, .param .f32 f, .param .b8 odd[3], .param .align 16 .b8 v[16],"
		" .param .v2 .f32 two)\n{\n\tret;\n}\n");
	uint32_t off[8], size[8], align[8];
	static const uint32_t want_off[8] = { 0, 8, 32, 40, 44, 48, 64, 80 };
	static const uint32_t want_size[8] = { 4, 24, 8, 1, 4, 3, 16, 8 };

	assert_int_equal(ptx_param_layout(&m->funcs[0], off, size, align, 8), 88);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(off[i], want_off[i]);
		assert_int_equal(size[i], want_size[i]);
	}
	assert_int_equal(align[1], 8);
	assert_int_equal(align[5], 1);
	assert_int_equal(align[7], 8);
	/* Fewer slots than parameters: the total is still the whole block. */
	assert_int_equal(ptx_param_layout(&m->funcs[0], off, size, align, 2), 88);
	ptx_free(m);
}

/* What nvcc 13 writes for (char, short, bool, __half, float2, double2,
 * struct {char}, struct __align__(16) {float}, int *, long long, float3). */
static void test_param_layout_nvcc(void **state)
{
	struct ptx_module *m = parse_ok(HEAD ".visible .entry pl(\n"
		"\t.param .u8 pl_param_0,\n"
		"\t.param .u16 pl_param_1,\n"
		"\t.param .u8 pl_param_2,\n"
		"\t.param .align 2 .b8 pl_param_3[2],\n"
		"\t.param .align 8 .b8 pl_param_4[8],\n"
		"\t.param .align 16 .b8 pl_param_5[16],\n"
		"\t.param .align 1 .b8 pl_param_6[1],\n"
		"\t.param .align 16 .b8 pl_param_7[16],\n"
		"\t.param .u64 pl_param_8,\n"
		"\t.param .u64 pl_param_9,\n"
		"\t.param .align 4 .b8 pl_param_10[12]\n"
		")\n{\n\tret;\n}\n");
	static const uint32_t want[11] = { 0, 2, 4, 6, 8, 16, 32, 48, 64, 72, 80 };
	uint32_t off[11], size[11], align[11];

	assert_int_equal(ptx_param_layout(&m->funcs[0], off, size, align, 11), 92);
	for (int i = 0; i < 11; i++)
		assert_int_equal(off[i], want[i]);
	assert_int_equal(size[10], 12);
	assert_int_equal(align[10], 4);
	ptx_free(m);
}

static void test_operands(void **state)
{
	struct ptx_module *m = parse_ok(HEAD ".entry k()\n{\n"
		"\t.reg .b32 %r<20>;\n\t.reg .pred %p<5>;\n\t.reg .f32 %f<3>;\n"
		"\tmov.u32 \t%r1, %tid.x;\n"
		"\tadd.s32 %r2, %r1, -3;\n"
		"\tmov.b32 %r3, 0x7fffffffU;\n"
		"\tor.b32 %r4, 017, 0b101;\n"
		"\tmov.f32 %f1, 0f3F800000;\n"
		"\tmov.f64 %fd1, 0d4000000000000000;\n"
		"\tmov.f32 %f2, -0f3F800000;\n"
		"\tld.global.v4.u32 {%r5, %r6, _, %r7}, [%rd1+-8];\n"
		"\tld.shared.u32 %r8, [s+12];\n"
		"\tst.global.u32 [256], %r1;\n"
		"\tshfl.sync.down.b32 %r19|%p4, %r18, 1, 31, -1;\n"
		"\tselp.b32 %r9, 1, 0, !%p1;\n"
		"\t@!%p2 bra.uni $L__BB0_2;\n"
		"\tmov.u64 %rd2, $str+4;\n"
		"\tret;\n}\n");
	const struct ptx_insn *in;

	in = nth_insn(m, 0);
	assert_string_equal(in->opcode, "mov");
	assert_int_equal(in->nmods, 1);
	assert_string_equal(in->mods[0], ".u32");
	assert_int_equal(in->ops[1].kind, PTX_OP_REG);
	assert_string_equal(in->ops[1].name, "%tid");
	assert_string_equal(in->ops[1].component, "x");
	assert_null(in->ops[0].component);
	assert_int_equal(nth_insn(m, 1)->ops[2].i, -3);
	assert_int_equal(nth_insn(m, 2)->ops[1].i, 0x7fffffff);
	in = nth_insn(m, 3);
	assert_int_equal(in->ops[1].i, 15);
	assert_int_equal(in->ops[2].i, 5);
	in = nth_insn(m, 4);
	assert_int_equal(in->ops[1].kind, PTX_OP_FIMM);
	assert_int_equal(in->ops[1].fsize, 4);
	assert_int_equal(in->ops[1].fbits, 0x3F800000);
	in = nth_insn(m, 5);
	assert_int_equal(in->ops[1].fsize, 8);
	assert_int_equal(in->ops[1].fbits, 0x4000000000000000ull);
	assert_int_equal(nth_insn(m, 6)->ops[1].fbits, 0xBF800000);
	in = nth_insn(m, 7);
	assert_int_equal(in->ops[0].kind, PTX_OP_VEC);
	assert_int_equal(in->ops[0].nelems, 4);
	assert_int_equal(in->ops[0].elems[2].kind, PTX_OP_SINK);
	assert_string_equal(in->ops[0].elems[3].name, "%r7");
	assert_int_equal(in->ops[1].kind, PTX_OP_ADDR);
	assert_true(in->ops[1].base_is_reg);
	assert_string_equal(in->ops[1].name, "%rd1");
	assert_int_equal(in->ops[1].i, -8);
	in = nth_insn(m, 8);
	assert_false(in->ops[1].base_is_reg);
	assert_string_equal(in->ops[1].name, "s");
	assert_int_equal(in->ops[1].i, 12);
	in = nth_insn(m, 9);
	assert_null(in->ops[0].name);
	assert_int_equal(in->ops[0].i, 256);
	in = nth_insn(m, 10);
	assert_int_equal(in->nmods, 3);
	assert_string_equal(in->ops[0].name, "%r19");
	assert_non_null(in->ops[0].pair);
	assert_string_equal(in->ops[0].pair->name, "%p4");
	assert_int_equal(in->ops[4].i, -1);
	in = nth_insn(m, 11);
	assert_true(in->ops[3].neg);
	assert_string_equal(in->ops[3].name, "%p1");
	in = nth_insn(m, 12);
	assert_string_equal(in->guard, "%p2");
	assert_true(in->guard_neg);
	assert_int_equal(in->ops[0].kind, PTX_OP_SYM);
	assert_string_equal(in->ops[0].name, "$L__BB0_2");
	in = nth_insn(m, 13);
	assert_int_equal(in->ops[1].kind, PTX_OP_SYM);
	assert_int_equal(in->ops[1].i, 4);
	assert_int_equal(nth_insn(m, 14)->nops, 0);
	ptx_free(m);
}

static void test_calls(void **state)
{
	struct ptx_module *m = parse_ok(HEAD ".entry k()\n{\n"
		"\t{ // callseq 0, 0\n"
		"\t.param .b32 param0;\n"
		"\t.param .b32 retval0;\n"
		"\tcall.uni (retval0), \n\t_Z4facti, \n\t(\n\tparam0\n\t);\n"
		"\t} // callseq 0\n"
		"\t{ // callseq 1, 0\n"
		"\t.param .b32 param0;\n"
		"\tprototype_1 : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
		"\tcall (retval0), %rd11, (param0), prototype_1;\n"
		"\tcall.uni f, ();\n"
		"\t}\n"
		"\tret;\n}\n");
	uint32_t n;
	const struct ptx_stmt *s = body_of(m, &n);
	const struct ptx_insn *in;

	assert_int_equal(n, 12);
	assert_int_equal(s[0].kind, PTX_STMT_OPEN);
	assert_int_equal(s[1].kind, PTX_STMT_DECL);
	assert_string_equal(s[1].u.decl.name, "param0");
	assert_int_equal(s[1].u.decl.space, PTX_SPACE_PARAM);
	assert_int_equal(s[4].kind, PTX_STMT_CLOSE);
	assert_int_equal(s[7].kind, PTX_STMT_PROTO);
	assert_string_equal(s[7].u.proto.name, "prototype_1");
	assert_int_equal(s[7].u.proto.nrets, 1);
	assert_int_equal(s[7].u.proto.nparams, 1);
	assert_int_equal(s[7].u.proto.params[0].type, PTX_T_B32);
	in = &s[3].u.insn;
	assert_string_equal(in->opcode, "call");
	assert_string_equal(in->mods[0], ".uni");
	assert_int_equal(in->nops, 3);
	assert_int_equal(in->ops[0].kind, PTX_OP_LIST);
	assert_string_equal(in->ops[0].elems[0].name, "retval0");
	assert_int_equal(in->ops[1].kind, PTX_OP_SYM);
	assert_string_equal(in->ops[1].name, "_Z4facti");
	assert_int_equal(in->ops[2].nelems, 1);
	in = &s[8].u.insn;
	assert_int_equal(in->nops, 4);
	assert_int_equal(in->ops[1].kind, PTX_OP_REG);
	assert_string_equal(in->ops[3].name, "prototype_1");
	in = &s[9].u.insn;
	assert_int_equal(in->nops, 2);
	assert_int_equal(in->ops[1].kind, PTX_OP_LIST);
	assert_int_equal(in->ops[1].nelems, 0);
	assert_int_equal(s[10].kind, PTX_STMT_CLOSE);
	ptx_free(m);
}

static void test_body_forms(void **state)
{
	struct ptx_module *m = parse_ok(HEAD ".global .texref tref;\n.entry k()\n{\n"
		"\t.reg .b32 r<4>, acc;\n"
		"\t.reg .v2 .b32 %v;\n"
		"\t.local .align 8 .b8 __local_depot0[24];\n"
		"\tbrx.idx r1, $Lt;\n"
		"$Lt: .branchtargets $L0, $L1;\n"
		"$L0:\n"
		"\t.pragma \"nounroll\";\n"
		"\t.loc 1 15 5\n"
		"\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f1, %f2}];\n"
		"\tadd.u32 acc, r3, r4;\n"
		"$L1:\n\tret;\n}\n");
	uint32_t n;
	const struct ptx_stmt *s = body_of(m, &n);
	const struct ptx_insn *in;

	assert_int_equal(n, 12);
	assert_string_equal(s[0].u.decl.name, "r");
	assert_int_equal(s[0].u.decl.range, 4);
	assert_string_equal(s[1].u.decl.name, "acc");
	assert_int_equal(s[2].u.decl.vec, 2);
	assert_int_equal(s[3].u.decl.space, PTX_SPACE_LOCAL);
	assert_int_equal(s[3].u.decl.count, 24);
	in = &s[4].u.insn;
	assert_int_equal(in->ops[0].kind, PTX_OP_REG);
	assert_string_equal(in->ops[0].name, "r1");
	assert_int_equal(in->ops[1].kind, PTX_OP_SYM);
	assert_int_equal(s[5].kind, PTX_STMT_BRANCHTARGETS);
	assert_string_equal(s[5].u.targets.name, "$Lt");
	assert_int_equal(s[5].u.targets.nlabels, 2);
	assert_string_equal(s[5].u.targets.labels[1], "$L1");
	assert_int_equal(s[6].kind, PTX_STMT_LABEL);
	assert_string_equal(s[6].u.label, "$L0");
	assert_int_equal(s[7].kind, PTX_STMT_PRAGMA);
	assert_string_equal(s[7].u.text, "nounroll");
	in = &s[8].u.insn;
	assert_int_equal(s[8].line, 15);
	assert_int_equal(in->ops[1].kind, PTX_OP_ADDR);
	assert_string_equal(in->ops[1].name, "tref");
	assert_false(in->ops[1].base_is_reg);
	assert_int_equal(in->ops[1].nelems, 1);
	assert_int_equal(in->ops[1].elems[0].kind, PTX_OP_VEC);
	assert_int_equal(in->ops[1].elems[0].nelems, 2);
	in = &s[9].u.insn;
	assert_int_equal(in->ops[0].kind, PTX_OP_REG);
	assert_int_equal(in->ops[1].kind, PTX_OP_REG);   /* r3: inside r<4> */
	assert_int_equal(in->ops[2].kind, PTX_OP_SYM);   /* r4: outside it */
	ptx_free(m);
}

static void test_scoped_modifiers(void **state)
{
	struct ptx_module *m = parse_ok(HEAD ".entry k()\n{\n"
		"\tmbarrier.arrive.shared::cta.b64 %rd6, [%r7], %r8;\n"
		"\tcp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
		" [%r1], [%rd1], 16, [%r2];\n}\n");
	const struct ptx_insn *in = nth_insn(m, 0);

	assert_int_equal(in->nmods, 3);
	assert_string_equal(in->mods[1], ".shared::cta");
	in = nth_insn(m, 1);
	assert_string_equal(in->opcode, "cp");
	assert_int_equal(in->nmods, 5);
	assert_string_equal(in->mods[4], ".mbarrier::complete_tx::bytes");
	assert_int_equal(in->nops, 4);
	ptx_free(m);
}

static void test_types(void **state)
{
	assert_int_equal(ptx_type_size(PTX_T_PRED), 1);
	assert_int_equal(ptx_type_size(PTX_T_B128), 16);
	assert_int_equal(ptx_type_size(PTX_T_F16X2), 4);
	assert_int_equal(ptx_type_size(PTX_T_NONE), 0);
	assert_string_equal(ptx_type_name(PTX_T_BF16X2), "bf16x2");
	assert_int_equal(ptx_type_from_mod(".f32"), PTX_T_F32);
	assert_int_equal(ptx_type_from_mod(".s64"), PTX_T_S64);
	assert_int_equal(ptx_type_from_mod(".rn"), PTX_T_NONE);
	assert_int_equal(ptx_type_from_mod("f32"), PTX_T_NONE);
	for (int t = PTX_T_PRED; t <= PTX_T_SURFREF; t++) {
		char mod[16];

		snprintf(mod, sizeof(mod), ".%s", ptx_type_name(t));
		assert_int_equal(ptx_type_from_mod(mod), t);
	}
}

static void test_errors(void **state)
{
	parse_err(HEAD ".entry k()\n{\n\tadd.s32 %r1, %r2, 1\n\tret;\n}\n",
		  7, 2, "expected ';' after instruction, got 'ret'");
	parse_err(HEAD ".entry k()\n{\n\tret;\n", 7, 1, "end of input inside the body of 'k'");
	parse_err(HEAD "/* open", 4, 1, "unterminated comment");
	parse_err(HEAD ".global .u32 x = 0x;\n", 4, 18, "bad integer '0x'");
	parse_err(HEAD ".global .u8 x[2] = {1, 2, 3};\n", 4, 27, "too many initializers for 'x'");
	parse_err(HEAD ".global .f32 x = 0f3F80;\n", 4, 18, "bad float literal '0f3F80'");
	parse_err(HEAD ".global x;\n", 4, 9, "declaration at module scope without a type");
	parse_err(HEAD ".align 4 .u32 x;\n", 4, 15, "without a state space");
	parse_err(HEAD ".entry k() .bogus 3 {\n}\n", 4, 12, "unknown directive '.bogus' in function header");
	parse_err(HEAD ".entry k()\n{\n\tmov.u32 %r1, [%rd1+];\n}\n", 6, 21, "expected offset, got ']'");
	parse_err(HEAD ".entry k()\n{\n\tmov.u32 %r1, #;\n}\n", 6, 15, "unexpected character '#'");
	parse_err(HEAD "add.s32 %r1;\n", 4, 1, "expected a directive, got 'add'");
	parse_err(HEAD ".global .u8 x[2][2] = {{{1}}};\n", 4, 25, "too many braces");
	parse_err(HEAD ".pragma \"open;\n", 4, 9, "unterminated string");
	parse_err(".version 9.x\n", 1, 10, "expected a version");
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc(n ? (size_t)n : 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Calls fn on every .ptx file in dir; returns how many. */
static int each_fixture(const char *dir, void (*fn)(const char *path, const char *text, size_t len))
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), len;
		char path[4096];
		char *text;

		if (l < 5 || strcmp(e->d_name + l - 4, ".ptx"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		text = read_file(path, &len);
		fn(path, text, len);
		free(text);
		n++;
	}
	closedir(d);
	return n;
}

static void parses_whole(const char *path, const char *text, size_t len)
{
	struct ptx_module *m;
	struct ptx_error err;

	if (parse_buf(text, len, &m, &err)) {
		print_error("%s: line %d:%d: %s\n", path, err.line, err.col, err.msg);
		fail();
	}
	assert_true(m->nfuncs > 0);
	assert_int_equal(m->address_size, 64);
	for (uint32_t i = 0; i < m->nfuncs; i++)
		assert_true(m->funcs[i].is_decl || m->funcs[i].nbody > 0);
	ptx_free(m);
}

static void test_fixtures(void **state)
{
	int n = each_fixture(PTX_FIXTURES, parses_whole);

	assert_true(n >= 1);
	print_message("%d committed fixtures, %d generated by nvcc\n", n,
		      each_fixture(PTX_GENERATED, parses_whole));
}

/* Every prefix of a module either parses or fails with a placed message:
 * all prefixes of small modules, about 800 of each larger one. */
static void prefixes(const char *path, const char *text, size_t len)
{
	size_t step = len < 4096 ? 1 : len / 800 + 1;

	for (size_t l = 0; l <= len; l += step) {
		struct ptx_module *m;
		struct ptx_error err;

		if (parse_buf(text, l, &m, &err) == 0) {
			ptx_free(m);
			continue;
		}
		assert_null(m);
		assert_true(err.msg[0] != 0);
		assert_true(err.line >= 1);
	}
}

static void test_truncation(void **state)
{
	assert_true(each_fixture(PTX_FIXTURES, prefixes) >= 1);
	each_fixture(PTX_GENERATED, prefixes);
}

/* Braces nested a million deep: the body keeps a counter, not a stack. */
static void test_deep_nesting(void **state)
{
	size_t depth = 1000000, n = 0;
	const char *head = HEAD ".entry k()\n{\n";
	char *text = malloc(strlen(head) + 2 * depth + 16);
	struct ptx_module *m;
	struct ptx_error err;

	n += (size_t)sprintf(text, "%s", head);
	memset(text + n, '{', depth);
	n += depth;
	memset(text + n, '}', depth);
	n += depth;
	n += (size_t)sprintf(text + n, "}\n");
	assert_int_equal(parse_buf(text, n, &m, &err), 0);
	assert_int_equal(m->funcs[0].nbody, 2 * depth);
	ptx_free(m);
	/* Unclosed: an error at the end, not a crash. */
	assert_int_equal(parse_buf(text, strlen(head) + depth, &m, &err), -1);
	/* Deep braces in an initializer stop at the declared dimensions. */
	n = (size_t)sprintf(text, "%s", HEAD ".global .u8 x[1] = ");
	memset(text + n, '{', depth);
	n += depth;
	assert_int_equal(parse_buf(text, n, &m, &err), -1);
	assert_non_null(strstr(err.msg, "too many braces"));
	free(text);
}

/* A module of several MB parses (in linear time: a quadratic parser would
 * not finish this test in its time limit). */
static void test_large_module(void **state)
{
	size_t cap = 8u << 20, n = 0;
	char *text = malloc(cap);
	struct ptx_module *m;
	struct ptx_error err;
	uint32_t i;

	n += (size_t)sprintf(text, "%s", HEAD ".global .align 1 .b8 big[200000] = {");
	for (i = 0; i < 200000; i++)
		n += (size_t)sprintf(text + n, "%u%s", i & 255, i + 1 < 200000 ? ", " : "};\n");
	n += (size_t)sprintf(text + n, ".entry k()\n{\n\t.reg .b32 %%r<9>;\n");
	for (i = 0; n + 200 < cap; i++)
		n += (size_t)sprintf(text + n, "$L%u:\n\tadd.s32 %%r%u, %%r%u, %u;\n"
				     "\t@%%p1 bra $L%u;\n", i, i % 8, (i + 1) % 8, i, i / 2);
	n += (size_t)sprintf(text + n, "}\n");
	assert_int_equal(parse_buf(text, n, &m, &err), 0);
	assert_int_equal(m->vars[0].init_size, 200000);
	assert_int_equal(m->vars[0].init[199999], 199999 & 255);
	assert_int_equal(m->funcs[0].nbody, 1 + 3 * i);
	ptx_free(m);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_module_vars),
		cmocka_unit_test(test_initializers),
		cmocka_unit_test(test_masked_address),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_reg_params),
		cmocka_unit_test(test_param_layout),
		cmocka_unit_test(test_param_layout_nvcc),
		cmocka_unit_test(test_operands),
		cmocka_unit_test(test_calls),
		cmocka_unit_test(test_body_forms),
		cmocka_unit_test(test_scoped_modifiers),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_large_module),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
