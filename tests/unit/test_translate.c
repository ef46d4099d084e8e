/*
 * test_translate.c - semantics of the PTX -> C translator where C and PTX
 * disagree or where ports go wrong: clamped shifts, division by zero and
 * INT_MIN / -1, saturating conversions, rounding modes, half precision,
 * shuffles and votes under divergence, short branches made guards,
 * barriers with exited threads, implicitly warp-synchronous code, and the
 * errors for what is not supported.  Each case is hand-written PTX run through the real pipeline:
 * parse, translate, the JIT (cc, dlopen) and the block executor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cpu/exec.h"
#include "cpu/jit.h"
#include "cpu/translate.h"

#define HEADER ".version 8.0\n.target sm_75\n.address_size 64\n"

static char cache_dir[] = "/tmp/anygpu-test-translate-XXXXXX";

/* Runs kernel k of ptx on nblocks blocks of nx x ny threads with the
 * parameter block params.  The launch's status, with its message in msg. */
static int run_rows(const char *ptx, const char *k, unsigned nblocks, unsigned nx, unsigned ny,
		    const void *params, char *msg, size_t msglen)
{
	struct ptx_module *m;
	struct ptx_error perr;
	struct ag_jit_module jm;
	struct strbuf err = STRBUF_INIT;
	struct ag_kernel_env env;
	struct ag_exec *x;
	const struct ag_kernel_desc *d;
	int rc;

	if (ptx_parse(ptx, strlen(ptx), &m, &perr))
		fail_msg("parse: line %d: %s", perr.line, perr.msg);
	if (ag_jit_load(ptx, strlen(ptx), m, &jm, &err))
		fail_msg("jit: %s", err.buf);
	for (d = jm.kernels; d->name && strcmp(d->name, k); d++)
		;
	assert_non_null(d->name);
	memset(&env, 0, sizeof(env));
	env.nctaid[0] = nblocks;
	env.nctaid[1] = env.nctaid[2] = 1;
	env.ntid[0] = nx;
	env.ntid[1] = ny;
	env.ntid[2] = 1;
	env.params = params;
	x = ag_exec_new(NULL, NULL);
	rc = ag_exec_run(x, d, &env, 0, msg, msglen);
	ag_exec_free(x);
	ag_jit_unload(&jm);
	ptx_free(m);
	sb_free(&err);
	return rc;
}

/* The same on blocks of one row of nthreads. */
static int run_params(const char *ptx, const char *k, unsigned nblocks, unsigned nthreads,
		      const void *params, char *msg, size_t msglen)
{
	return run_rows(ptx, k, nblocks, nthreads, 1, params, msg, msglen);
}

/* The same with one parameter, the address of out. */
static int run_status(const char *ptx, const char *k, unsigned nblocks, unsigned nthreads,
		      void *out, char *msg, size_t msglen)
{
	return run_params(ptx, k, nblocks, nthreads, &out, msg, msglen);
}

static void run_blocks(const char *ptx, const char *k, unsigned nblocks, unsigned nthreads,
		       void *out)
{
	char msg[256];

	if (run_status(ptx, k, nblocks, nthreads, out, msg, sizeof(msg)))
		fail_msg("run: %s", msg);
}

static void run(const char *ptx, const char *k, unsigned nthreads, void *out)
{
	run_blocks(ptx, k, 1, nthreads, out);
}

/* The C that ptx translates to with row groups chosen so, into c. */
static void translate_as(const char *ptx, enum ag_groups groups, struct strbuf *c)
{
	struct ptx_module *m;
	struct ptx_error err;

	if (ptx_parse(ptx, strlen(ptx), &m, &err))
		fail_msg("parse: line %d: %s", err.line, err.msg);
	if (ag_translate(m, groups, c, &err))
		fail_msg("translate: line %d: %s", err.line, err.msg);
	ptx_free(m);
}

static void translate_to(const char *ptx, struct strbuf *c)
{
	translate_as(ptx, AG_GROUPS_AUTO, c);
}

/* The C that ptx translates to holds each of the NULL-terminated want
 * and none of unwanted (NULL: no such list). */
static void translates_with(const char *ptx, const char *const *want,
			    const char *const *unwanted)
{
	struct strbuf c = STRBUF_INIT;

	translate_to(ptx, &c);
	for (; *want; want++)
		if (!strstr(c.buf, *want))
			fail_msg("no '%s' in the translation", *want);
	for (; unwanted && *unwanted; unwanted++)
		if (strstr(c.buf, *unwanted))
			fail_msg("'%s' in the translation", *unwanted);
	sb_free(&c);
}

/* Whether ptx's translation with row groups chosen so (translate.h)
 * runs one, ag_g0. */
static int has_group(const char *ptx, enum ag_groups groups)
{
	struct ptx_module *m;
	struct ptx_error err;
	struct strbuf c = STRBUF_INIT;
	int has;

	if (ptx_parse(ptx, strlen(ptx), &m, &err))
		fail_msg("parse: line %d: %s", err.line, err.msg);
	if (ag_translate(m, groups, &c, &err))
		fail_msg("translate: line %d: %s", err.line, err.msg);
	has = strstr(c.buf, " int ag_g0(") != NULL;
	sb_free(&c);
	ptx_free(m);
	return has;
}

/*
 * Which kernels run as row groups (group.c): a loop over global loads
 * with a bounds test does, unless ANYGPU_CPU_GROUPS says off, and a loop
 * with a barrier in it (a shared-memory tree reduction); a kernel
 * that branches on each thread's own data (not to ret) does not, nor one
 * with a guarded barrier, even when every kernel that can is asked for.
 */
static void test_row_group_choice(void **state)
{
	static const char loop[] = HEADER
		".visible .entry k(.param .u64 a, .param .u32 n)\n{\n"
		"\t.reg .b32 %r<6>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<6>;\n"
		"\t.reg .f32 %f<4>;\n"
		"\tld.param.u64 %rd1, [a];\n\tld.param.u32 %r1, [n];\n"
		"\tmov.u32 %r2, %tid.x;\n"
		"\tsetp.ge.u32 %p1, %r2, %r1;\n"
		"\t@%p1 bra $END;\n"
		"\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tmov.f32 %f1, 0f00000000;\n\tmov.u32 %r3, 0;\n"
		"$LOOP:\n"
		"\tld.global.f32 %f2, [%rd3];\n\tadd.f32 %f1, %f1, %f2;\n"
		"\tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p2, %r3, %r1;\n"
		"\t@%p2 bra $LOOP;\n"
		"\tst.global.f32 [%rd3], %f1;\n"
		"$END:\n\tret;\n}\n";
	static const char diverges[] = HEADER
		".visible .entry k(.param .u64 a, .param .u32 n)\n{\n"
		"\t.reg .b32 %r<6>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<6>;\n"
		"\t.reg .f32 %f<4>;\n"
		"\tld.param.u64 %rd1, [a];\n\tld.param.u32 %r1, [n];\n"
		"\tmov.u32 %r2, %tid.x;\n"
		"\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tmov.u32 %r3, 0;\n"
		"$LOOP:\n"
		"\tld.global.f32 %f2, [%rd3];\n"
		"\tsetp.gt.f32 %p1, %f2, 0f00000000;\n"
		"\t@%p1 bra $SKIP;\n"
		"\tst.global.f32 [%rd3], %f2;\n\tst.global.f32 [%rd3+4], %f2;\n"
		"\tst.global.f32 [%rd3+8], %f2;\n\tst.global.f32 [%rd3+12], %f2;\n"
		"\tst.global.f32 [%rd3+16], %f2;\n\tst.global.f32 [%rd3+20], %f2;\n"
		"\tst.global.f32 [%rd3+24], %f2;\n"
		"$SKIP:\n"
		"\tadd.u32 %r3, %r3, 1;\n\tsetp.lt.u32 %p2, %r3, %r1;\n"
		"\t@%p2 bra $LOOP;\n"
		"\tret;\n}\n";
	/* a shared-memory tree: for (s = ntid / 2; s > 0; s >>= 1) { if (tid
	 * < s) v[tid] += v[tid + s]; __syncthreads(); } */
	static const char tree[] = HEADER
		".visible .entry k(.param .u64 a)\n{\n"
		"\t.reg .b32 %r<12>;\n\t.reg .pred %p<4>;\n\t.reg .b64 %rd<4>;\n"
		"\t.shared .align 4 .b8 v[1024];\n"
		"\tld.param.u64 %rd1, [a];\n"
		"\tmov.u32 %r1, %ntid.x;\n\tmov.u32 %r2, %tid.x;\n"
		"\tshl.b32 %r3, %r2, 2;\n\tmov.u32 %r4, v;\n\tadd.s32 %r5, %r4, %r3;\n"
		"\tst.shared.u32 [%r5], %r2;\n\tbar.sync 0;\n"
		"\tshr.u32 %r6, %r1, 1;\n\tsetp.eq.s32 %p1, %r6, 0;\n\t@%p1 bra $END;\n"
		"$LOOP:\n"
		"\tsetp.ge.u32 %p2, %r2, %r6;\n\t@%p2 bra $WAIT;\n"
		"\tshl.b32 %r7, %r6, 2;\n\tadd.s32 %r8, %r5, %r7;\n"
		"\tld.shared.u32 %r9, [%r8];\n\tld.shared.u32 %r10, [%r5];\n"
		"\tadd.s32 %r11, %r9, %r10;\n\tst.shared.u32 [%r5], %r11;\n"
		"$WAIT:\n"
		"\tbar.sync 0;\n\tshr.u32 %r6, %r6, 1;\n\tsetp.ne.s32 %p3, %r6, 0;\n"
		"\t@%p3 bra $LOOP;\n"
		"$END:\n"
		"\tld.shared.u32 %r9, [v];\n\tmul.wide.u32 %rd2, %r2, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n\tst.global.u32 [%rd3], %r9;\n"
		"\tret;\n}\n";
	static const char guarded_barrier[] = HEADER
		".visible .entry k(.param .u64 a)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .pred %p<2>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [a];\n"
		"\tmov.u32 %r1, %ctaid.x;\n"
		"\tsetp.eq.u32 %p1, %r1, 0;\n"
		"\t@%p1 bar.sync 0;\n"
		"\tmov.u32 %r2, %tid.x;\n"
		"\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r2;\n"
		"\tret;\n}\n";

	(void)state;
	assert_true(has_group(loop, AG_GROUPS_AUTO));
	assert_true(has_group(loop, AG_GROUPS_ALL));
	assert_false(has_group(loop, AG_GROUPS_OFF));
	assert_false(has_group(diverges, AG_GROUPS_AUTO));
	assert_false(has_group(diverges, AG_GROUPS_ALL));
	assert_false(has_group(guarded_barrier, AG_GROUPS_ALL));
	/* a loop that waits at a barrier each turn runs in row groups: one
	 * thread at a time would switch threads at every turn */
	{
		uint32_t o[256];
		unsigned t;

		assert_true(has_group(tree, AG_GROUPS_AUTO));
		run(tree, "k", 256, o);
		for (t = 0; t < 256; t++)
			assert_int_equal(o[t], 255 * 256 / 2);
	}
}

/* A kernel with a shuffle whose branch on threadIdx.x >> SHIFT goes over
 * seven stores (too many to become guards, ifconv.c). */
#define WARP_KERNEL(shift, op) HEADER \
	".visible .entry k(.param .u64 out)\n{\n" \
	"\t.reg .b32 %r<8>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<4>;\n" \
	"\tld.param.u64 %rd1, [out];\n" \
	"\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, " shift ";\n" \
	"\tmov.u32 %r3, %laneid;\n" \
	"\tmul.wide.u32 %rd2, %r1, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n" \
	"\tsetp.ne.s32 %p1, %r2, 0;\n\t@%p1 bra $REST;\n" \
	"\tst.global.u32 [%rd3+1024], %r3;\n\tst.global.u32 [%rd3+1024], %r3;\n" \
	"\tst.global.u32 [%rd3+1024], %r3;\n\tst.global.u32 [%rd3+1024], %r3;\n" \
	"\tst.global.u32 [%rd3+1024], %r3;\n\tst.global.u32 [%rd3+1024], %r3;\n" \
	"\tst.global.u32 [%rd3+1024], %r3;\n" \
	"$REST:\n" \
	"\tadd.s32 %r4, %r1, 100;\n" \
	"\t" op ";\n" \
	"\tst.global.u32 [%rd3], %r5;\n" \
	"\tret;\n}\n"

/* Warp calls (shape.c, group.c): a kernel with shuffles runs a warp a
 * call where the warp's index (tid.x >> 5) is uniform; half a warp's
 * index varies, and other warp operations need lockstep.  Blocks of 64
 * threads run as warp calls, of 48 in lockstep: the same results. */
static void test_warp_calls(void **state)
{
	static const char warp[] = WARP_KERNEL("5", "shfl.sync.down.b32 %r5|%p2, %r4, 1, 31, -1");
	static const char half[] = WARP_KERNEL("4", "shfl.sync.down.b32 %r5|%p2, %r4, 1, 31, -1");
	static const char vote[] = WARP_KERNEL("5", "vote.sync.ballot.b32 %r5, %p1, -1");
	unsigned n, t;

	(void)state;
	assert_true(has_group(warp, AG_GROUPS_AUTO));
	assert_false(has_group(warp, AG_GROUPS_OFF));
	assert_false(has_group(half, AG_GROUPS_ALL));
	assert_false(has_group(vote, AG_GROUPS_ALL));
	translates_with(warp, (const char *const[]){ "ag_shfl_halves(1,", "ag_kl0(b)", NULL }, NULL);
	for (n = 48; n <= 64; n += 16) {
		uint32_t o[512] = { 0 };

		run(warp, "k", n, o);
		for (t = 0; t + 1 < n; t++) {
			assert_int_equal(o[t], t % 32 < 31 ? t + 101 : t + 100);
			assert_int_equal(o[256 + t], t < 32 ? t : 0);
		}
	}
}

/* A warp call's store of one lane to one place (group.c, last_wins):
 * lane 7 of each warp stores what a shuffle brought it, lane 8's %tid.x,
 * at out[warp].  The lane comes from a mask of the lanes that store, with
 * no form without masks (which would need a summary of the guard first). */
static void test_one_place_store(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<8>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n\tshr.u32 %r2, %r1, 5;\n\tand.b32 %r3, %r1, 31;\n"
		"\tshfl.sync.down.b32 %r4|%p2, %r1, 1, 31, -1;\n"
		"\tmul.wide.u32 %rd2, %r2, 4;\n\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tsetp.eq.s32 %p1, %r3, 7;\n"
		"\t@%p1 st.global.u32 [%rd3], %r4;\n"
		"\tret;\n}\n";
	uint32_t o[512] = { 0 };
	unsigned w;

	(void)state;
	assert_true(has_group(ptx, AG_GROUPS_AUTO));
	translates_with(ptx, (const char *const[]){ "__builtin_clz(ag_w)", "ag_done = 1;", NULL },
			(const char *const[]){ "ag_any |=", "ag_all &=", NULL });
	run(ptx, "k", 128, o);
	for (w = 0; w < 4; w++)
		assert_int_equal(o[w], w * 32 + 8);
	assert_int_equal(o[4], 0);
}

/* Threads past a bound skip a shuffle of their warp's lanes (setp line
 * test), then every thread stores what it got (0 when skipped). */
static void bound_ptx(char *buf, size_t size, const char *test)
{
	snprintf(buf, size, HEADER
		 ".visible .entry k(.param .u64 out)\n{\n"
		 "\t.reg .b32 %%r<8>;\n\t.reg .pred %%p<3>;\n\t.reg .b64 %%rd<4>;\n"
		 "\tld.param.u64 %%rd1, [out];\n"
		 "\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r5, 0;\n"
		 "\t%s\n\t@%%p1 bra $SKIP;\n"
		 "\tshfl.sync.bfly.b32 %%r2|%%p2, %%r1, 1, 31, -1;\n\tmov.u32 %%r5, %%r2;\n"
		 "$SKIP:\n"
		 "\tmul.wide.u32 %%rd2, %%r1, 4;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tst.global.u32 [%%rd3], %%r5;\n"
		 "\tret;\n}\n", test);
}

/*
 * A bound on threadIdx.x at a multiple of 32 skips whole warps, so the
 * test is the same in every lane of a warp call (shape.c, warp_compare)
 * and the warps it lets through may shuffle: the kernel runs a warp a
 * call, each way of writing the test, and on the thread's rank in a 2D
 * block (warp calls run only rows of whole warps, so ntid.x is a multiple
 * of 32 there).  A bound inside a warp does not, nor one on tid.y *
 * ntid.y + tid.x.
 */
static void test_warp_bounds(void **state)
{
	static const char *const whole[] = {
		"setp.gt.u32 %p1, %r1, 63;", "setp.lt.u32 %p1, 63, %r1;",
		"setp.ge.s32 %p1, %r1, 64;", "setp.le.s32 %p1, 64, %r1;",
		/* the thread's rank in the block, tid.y * ntid.x + tid.x */
		"mov.u32 %r3, %ntid.x;\n\tmov.u32 %r4, %tid.y;\n"
		"\tmad.lo.s32 %r6, %r4, %r3, %r1;\n\tsetp.gt.u32 %p1, %r6, 63;",
	};
	static const char *const split[] = {
		"setp.gt.u32 %p1, %r1, 39;", "setp.lt.u32 %p1, 64, %r1;",
		"setp.ge.s32 %p1, %r1, 63;", "setp.ne.s32 %p1, %r1, 64;",
		"mov.u32 %r3, %ntid.y;\n\tmov.u32 %r4, %tid.y;\n"
		"\tmad.lo.s32 %r6, %r4, %r3, %r1;\n\tsetp.gt.u32 %p1, %r6, 63;",
	};
	char ptx[2048];
	uint32_t o[128];
	unsigned i, t;

	(void)state;
	for (i = 0; i < 5; i++) {
		bound_ptx(ptx, sizeof(ptx), whole[i]);
		assert_true(has_group(ptx, AG_GROUPS_AUTO));
		memset(o, 0xff, sizeof(o));
		run(ptx, "k", 128, o);
		for (t = 0; t < 128; t++)
			assert_int_equal(o[t], t < 64 ? t ^ 1 : 0);
		bound_ptx(ptx, sizeof(ptx), split[i]);
		assert_false(has_group(ptx, AG_GROUPS_AUTO));
	}
}

/* Warp 0 of each block shuffles; the warp's index is threadIdx.x / %r5,
 * which holds WARP_SZ, or other when sel is not 0. */
static void divisor_ptx(char *buf, size_t size, const char *other)
{
	snprintf(buf, size, HEADER
		 ".visible .entry k(.param .u64 out, .param .u32 sel)\n{\n"
		 "\t.reg .b32 %%r<8>;\n\t.reg .pred %%p<3>;\n\t.reg .b64 %%rd<4>;\n"
		 "\tld.param.u64 %%rd1, [out];\n\tld.param.u32 %%r6, [sel];\n"
		 "\tmov.u32 %%r1, %%tid.x;\n\tmov.u32 %%r5, WARP_SZ;\n"
		 "\tsetp.eq.s32 %%p1, %%r6, 0;\n\t@%%p1 bra $KEEP;\n"
		 "\tmov.u32 %%r5, %s;\n"
		 "$KEEP:\n"
		 "\tdiv.u32 %%r2, %%r1, %%r5;\n\tmov.u32 %%r4, 0;\n"
		 "\tsetp.ne.s32 %%p1, %%r2, 0;\n\t@%%p1 bra $SKIP;\n"
		 "\tshfl.sync.bfly.b32 %%r4|%%p2, %%r1, 1, 31, -1;\n"
		 "$SKIP:\n"
		 "\tmul.wide.u32 %%rd2, %%r1, 4;\n\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		 "\tst.global.u32 [%%rd3], %%r4;\n"
		 "\tret;\n}\n", other);
}

/*
 * threadIdx.x / warpSize is the warp's index in a warp call (shape.c)
 * when the divisor is 32 wherever the division reads it: here a register
 * that two writes may reach, both 32 (consts.c, tr_const_at), so warp 0
 * may shuffle in a branch of its own.  With 64 on one way the index is
 * not the warp's, and the kernel runs no warp calls.
 */
static void test_reaching_constants(void **state)
{
	struct {
		uint32_t *out;
		int32_t sel;
	} prm;
	char ptx[2048], msg[256];
	uint32_t o[128];
	unsigned t;

	(void)state;
	divisor_ptx(ptx, sizeof(ptx), "32");
	assert_true(has_group(ptx, AG_GROUPS_AUTO));
	for (prm.sel = 0; prm.sel < 2; prm.sel++) {
		memset(o, 0xff, sizeof(o));
		prm.out = o;
		if (run_params(ptx, "k", 1, 128, &prm, msg, sizeof(msg)))
			fail_msg("run: %s", msg);
		for (t = 0; t < 128; t++)
			assert_int_equal(o[t], t < 32 ? t ^ 1 : 0);
	}
	divisor_ptx(ptx, sizeof(ptx), "64");
	assert_false(has_group(ptx, AG_GROUPS_AUTO));
}

/* A grid-stride loop over a.  pre goes before the loop, body into it
 * (%rd4: the address of element %r10, the index), end after it. */
static void stride_ptx(char *buf, size_t size, const char *pre, const char *body,
		       const char *step, const char *end)
{
	snprintf(buf, size, HEADER
		 ".visible .entry k(.param .u64 a, .param .u32 n)\n{\n"
		 "\t.reg .b32 %%r<14>;\n\t.reg .pred %%p<4>;\n\t.reg .b64 %%rd<6>;\n"
		 "\tld.param.u64 %%rd1, [a];\n\tld.param.u32 %%r6, [n];\n"
		 "\tmov.u32 %%r1, %%ntid.x;\n\tmov.u32 %%r7, %%ctaid.x;\n\tmov.u32 %%r8, %%tid.x;\n"
		 "\tmad.lo.s32 %%r10, %%r7, %%r1, %%r8;\n"
		 "\tsetp.ge.s32 %%p1, %%r10, %%r6;\n\t@%%p1 bra $END;\n"
		 "\tmov.u32 %%r9, %%nctaid.x;\n\tmul.lo.s32 %%r3, %%r9, %%r1;\n"
		 "\tcvta.to.global.u64 %%rd2, %%rd1;\n%s"
		 "$LOOP:\n"
		 "\tmul.wide.s32 %%rd3, %%r10, 4;\n\tadd.s64 %%rd4, %%rd2, %%rd3;\n%s"
		 "\tadd.s32 %%r10, %%r10, %%r%s;\n"
		 "\tsetp.lt.s32 %%p2, %%r10, %%r6;\n\t@%%p2 bra $LOOP;\n"
		 "$END:\n%s\tret;\n}\n", pre, body, step, end);
}

/* Whether the C that ptx translates to holds what. */
static int translation_has(const char *ptx, const char *what)
{
	struct strbuf c = STRBUF_INIT;
	int has;

	translate_to(ptx, &c);
	has = strstr(c.buf, what) != NULL;
	sb_free(&c);
	return has;
}

static int turn_by_turn(const char *ptx)
{
	return translation_has(ptx, "a grid-stride loop, turn by turn");
}

/* Runs the loop of stride_ptx over out[0, 1000) with n = 997 on 5 blocks
 * of 64 threads. */
static void run_stride(const char *ptx, uint32_t *out)
{
	struct {
		uint32_t *a;
		int32_t n;
	} prm = { out, 997 };
	char msg[256];

	memset(out, 0xff, 1000 * sizeof(*out));
	if (run_params(ptx, "k", 5, 64, &prm, msg, sizeof(msg)))
		fail_msg("run: %s", msg);
}

/*
 * Which grid-stride loops are swept turn by turn over virtual blocks
 * (stride.c), and that those run each element once, with what a turn
 * carries to the next and what the kernel does after the loop: the body
 * may read only the index and what no thread's index feeds, the kernel
 * compute only before the loop, the code after it read nothing the loop
 * wrote but what the turns carry, and the stride must be the grid's.
 */
static void test_stride_loops(void **state)
{
	static const char store_i[] = "\tst.global.u32 [%rd4], %r10;\n";
	char ptx[2048];
	uint32_t out[1000];
	int i;

	(void)state;
	stride_ptx(ptx, sizeof(ptx), "", store_i, "3", "");
	assert_true(turn_by_turn(ptx));
	run_stride(ptx, out);
	for (i = 0; i < 1000; i++)
		assert_int_equal(out[i], i < 997 ? (uint32_t)i : 0xffffffffu);

	/* a count carried from turn to turn: each element its turn + 1 */
	stride_ptx(ptx, sizeof(ptx), "\tmov.u32 %r11, 0;\n",
		   "\tadd.s32 %r11, %r11, 1;\n\tst.global.u32 [%rd4], %r11;\n", "3", "");
	assert_true(turn_by_turn(ptx));
	run_stride(ptx, out);
	for (i = 0; i < 997; i++)
		assert_int_equal(out[i], (uint32_t)(i / 320 + 1));
	/* and the code after the loop goes on with it: thread 0 stores its
	 * count of turns at a[0] */
	stride_ptx(ptx, sizeof(ptx), "\tmov.u32 %r11, 0;\n",
		   "\tadd.s32 %r11, %r11, 1;\n\tst.global.u32 [%rd4], %r10;\n", "3",
		   "\tmov.u32 %r12, %tid.x;\n\tmov.u32 %r13, %ctaid.x;\n"
		   "\tor.b32 %r12, %r12, %r13;\n\tsetp.eq.u32 %p3, %r12, 0;\n"
		   "\t@%p3 st.global.u32 [%rd1], %r11;\n");
	assert_true(turn_by_turn(ptx));
	assert_true(translation_has(ptx, "ag_kg0(b)"));
	/* the warp calls after the sweep load a part's carried values as one
	 * row, from its first thread's slot (emit_warp.c, carried) */
	assert_true(translation_has(ptx, "ag_carried_at(b, ag_tid0p0, 4) + (size_t)l * 4"));
	run_stride(ptx, out);
	assert_int_equal(out[0], 4);
	for (i = 1; i < 1000; i++)
		assert_int_equal(out[i], i < 997 ? (uint32_t)i : 0xffffffffu);
	/* a loop after the loop's end (a block reduction's halving loop of
	 * shuffles): thread 0 doubles its count three times */
	stride_ptx(ptx, sizeof(ptx), "\tmov.u32 %r11, 0;\n",
		   "\tadd.s32 %r11, %r11, 1;\n\tst.global.u32 [%rd4], %r10;\n", "3",
		   "\tmov.u32 %r12, 3;\n$TWICE:\n\tshl.b32 %r11, %r11, 1;\n"
		   "\tsub.s32 %r12, %r12, 1;\n\tsetp.ne.s32 %p3, %r12, 0;\n\t@%p3 bra $TWICE;\n"
		   "\tmov.u32 %r12, %tid.x;\n\tmov.u32 %r13, %ctaid.x;\n"
		   "\tor.b32 %r12, %r12, %r13;\n\tsetp.eq.u32 %p3, %r12, 0;\n"
		   "\t@%p3 st.global.u32 [%rd1], %r11;\n");
	assert_true(turn_by_turn(ptx));
	run_stride(ptx, out);
	assert_int_equal(out[0], 32);
	for (i = 1; i < 1000; i++)
		assert_int_equal(out[i], i < 997 ? (uint32_t)i : 0xffffffffu);
	/* but not one that goes back into the loop's body */
	stride_ptx(ptx, sizeof(ptx), "\tmov.u32 %r12, 2;\n", "$IN:\n\tst.global.u32 [%rd4], %r10;\n",
		   "3", "\tsub.s32 %r12, %r12, 1;\n\tsetp.ne.s32 %p3, %r12, 0;\n\t@%p3 bra $IN;\n");
	assert_false(turn_by_turn(ptx));
	/* what the last turn made, after the loop: thread 0's last offset,
	 * 4 * 960 */
	stride_ptx(ptx, sizeof(ptx), "", "\tst.global.u32 [%rd4+4], %r10;\n", "3",
		   "\tmov.u32 %r12, %tid.x;\n\tmov.u32 %r13, %ctaid.x;\n"
		   "\tor.b32 %r12, %r12, %r13;\n\tsetp.eq.u32 %p3, %r12, 0;\n"
		   "\t@%p3 st.global.u64 [%rd1], %rd3;\n");
	assert_true(turn_by_turn(ptx));
	run_stride(ptx, out);
	assert_int_equal(out[0], 4 * 960);
	assert_int_equal(out[1], 0);
	for (i = 2; i < 998; i++)
		assert_int_equal(out[i], (uint32_t)i - 1);
	/* branches inside the body: a register made on both ways is carried,
	 * which costs a slot but changes nothing */
	stride_ptx(ptx, sizeof(ptx), "",
		   "\tand.b32 %r11, %r10, 1;\n\tsetp.eq.u32 %p3, %r11, 0;\n\t@%p3 bra $EVEN;\n"
		   "\tmov.u32 %r12, 7;\n\tbra.uni $JOIN;\n$EVEN:\n\tmov.u32 %r12, 8;\n"
		   "$JOIN:\n\tst.global.u32 [%rd4], %r12;\n", "3", "");
	assert_true(turn_by_turn(ptx));
	run_stride(ptx, out);
	for (i = 0; i < 1000; i++)
		assert_int_equal(out[i], i >= 997 ? 0xffffffffu : i % 2 ? 7u : 8u);
	/* a register the index fed before the loop, made again first */
	stride_ptx(ptx, sizeof(ptx), "\tadd.s32 %r12, %r10, 1;\n",
		   "\tadd.s32 %r12, %r10, 2;\n\tst.global.u32 [%rd4], %r12;\n", "3", "");
	assert_true(turn_by_turn(ptx));

	/* 64 bits: the index made by mul.wide.u32, the bound a u64 */
	{
		static const char wide[] = HEADER
			".visible .entry k(.param .u64 a, .param .u64 n)\n{\n"
			"\t.reg .b32 %r<6>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<12>;\n"
			"\tld.param.u64 %rd1, [a];\n\tld.param.u64 %rd2, [n];\n"
			"\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r2, %ntid.x;\n"
			"\tcvt.u64.u32 %rd3, %r2;\n\tmul.wide.u32 %rd4, %r1, %r2;\n"
			"\tmov.u32 %r3, %tid.x;\n\tcvt.u64.u32 %rd5, %r3;\n"
			"\tadd.s64 %rd6, %rd4, %rd5;\n"
			"\tsetp.ge.u64 %p1, %rd6, %rd2;\n\t@%p1 bra $END;\n"
			"\tmov.u32 %r4, %nctaid.x;\n\tcvt.u64.u32 %rd7, %r4;\n"
			"\tmul.lo.s64 %rd8, %rd3, %rd7;\n\tcvta.to.global.u64 %rd9, %rd1;\n"
			"$LOOP:\n\tshl.b64 %rd10, %rd6, 2;\n\tadd.s64 %rd11, %rd9, %rd10;\n"
			"\tcvt.u32.u64 %r5, %rd6;\n\tst.global.u32 [%rd11], %r5;\n"
			"\tadd.s64 %rd6, %rd6, %rd8;\n\tsetp.lt.u64 %p2, %rd6, %rd2;\n"
			"\t@%p2 bra $LOOP;\n$END:\n\tret;\n}\n";
		struct {
			uint32_t *a;
			uint64_t n;
		} prm = { out, 997 };
		char msg[256];

		assert_true(turn_by_turn(wide));
		memset(out, 0xff, sizeof(out));
		if (run_params(wide, "k", 5, 64, &prm, msg, sizeof(msg)))
			fail_msg("run: %s", msg);
		for (i = 0; i < 1000; i++)
			assert_int_equal(out[i], i < 997 ? (uint32_t)i : 0xffffffffu);
	}

	/* the body stores its block's index, or its lane's */
	stride_ptx(ptx, sizeof(ptx), "", "\tst.global.u32 [%rd4], %r7;\n", "3", "");
	assert_false(turn_by_turn(ptx));
	stride_ptx(ptx, sizeof(ptx), "", "\tmov.u32 %r11, %laneid;\n\tst.global.u32 [%rd4], %r11;\n",
		   "3", "");
	assert_false(turn_by_turn(ptx));
	/* a store before the loop */
	stride_ptx(ptx, sizeof(ptx), "\tst.global.u32 [%rd2], %r6;\n", store_i, "3", "");
	assert_false(turn_by_turn(ptx));
	/* the index after the loop */
	stride_ptx(ptx, sizeof(ptx), "", store_i, "3", "\tst.global.u32 [%rd1], %r10;\n");
	assert_false(turn_by_turn(ptx));
	/* the block's stride, not the grid's */
	stride_ptx(ptx, sizeof(ptx), "", store_i, "1", "");
	assert_false(turn_by_turn(ptx));
}

/* A shared-memory histogram of a[i] & 15 into h: the bins zeroed before
 * a barrier, counted in a grid-stride loop after it, added to h after a
 * second one.  pre goes before the first barrier, body into the loop
 * (%r16: the bin's byte offset). */
static void block_ptx(char *buf, size_t size, const char *pre, const char *body)
{
	snprintf(buf, size, HEADER
		 ".visible .entry k(.param .u64 a, .param .u64 h, .param .u32 n)\n{\n"
		 "\t.reg .b32 %%r<24>;\n\t.reg .pred %%p<6>;\n\t.reg .b64 %%rd<10>;\n"
		 "\t.shared .align 4 .b8 sm[64];\n"
		 "\tld.param.u64 %%rd1, [a];\n\tld.param.u64 %%rd2, [h];\n"
		 "\tld.param.u32 %%r6, [n];\n\tmov.u32 %%r8, %%tid.x;\n"
		 "\tsetp.lt.u32 %%p3, %%r8, 16;\n\tshl.b32 %%r11, %%r8, 2;\n"
		 "\tmov.u32 %%r12, sm;\n\tadd.s32 %%r13, %%r12, %%r11;\n%s"
		 "\t@!%%p3 bra $ZEROED;\n\tmov.u32 %%r14, 0;\n\tst.shared.u32 [%%r13], %%r14;\n"
		 "$ZEROED:\n\tbar.sync 0;\n"
		 "\tmov.u32 %%r1, %%ntid.x;\n\tmov.u32 %%r7, %%ctaid.x;\n"
		 "\tmad.lo.s32 %%r10, %%r7, %%r1, %%r8;\n"
		 "\tsetp.ge.s32 %%p1, %%r10, %%r6;\n\t@%%p1 bra $END;\n"
		 "\tmov.u32 %%r9, %%nctaid.x;\n\tmul.lo.s32 %%r3, %%r9, %%r1;\n"
		 "\tcvta.to.global.u64 %%rd3, %%rd1;\n"
		 "$LOOP:\n"
		 "\tmul.wide.s32 %%rd4, %%r10, 4;\n\tadd.s64 %%rd5, %%rd3, %%rd4;\n"
		 "\tld.global.u32 %%r15, [%%rd5];\n\tand.b32 %%r16, %%r15, 15;\n"
		 "\tshl.b32 %%r16, %%r16, 2;\n%s"
		 "\tmov.u32 %%r17, sm;\n\tadd.s32 %%r18, %%r17, %%r16;\n"
		 "\tatom.shared.add.u32 %%r19, [%%r18], 1;\n"
		 "\tadd.s32 %%r10, %%r10, %%r3;\n"
		 "\tsetp.lt.s32 %%p2, %%r10, %%r6;\n\t@%%p2 bra $LOOP;\n"
		 "$END:\n\tbar.sync 0;\n\t@!%%p3 bra $DONE;\n"
		 "\tcvta.to.global.u64 %%rd6, %%rd2;\n\tmul.wide.u32 %%rd7, %%r8, 4;\n"
		 "\tadd.s64 %%rd8, %%rd6, %%rd7;\n\tld.shared.u32 %%r20, [%%r13];\n"
		 "\tatom.global.add.u32 %%r21, [%%rd8], %%r20;\n"
		 "$DONE:\n\tret;\n}\n", pre, body);
}

/* Runs block_ptx's kernel over a[i] = i, i < 997, on 5 blocks of 64
 * threads: h[b] counts the i with i & 15 == b. */
static void run_block_hist(const char *ptx)
{
	static uint32_t a[997];
	uint32_t h[16] = { 0 };
	struct {
		uint32_t *a, *h;
		int32_t n;
	} prm = { a, h, 997 };
	char msg[256];
	int i;

	for (i = 0; i < 997; i++)
		a[i] = (uint32_t)i;
	if (run_params(ptx, "k", 5, 64, &prm, msg, sizeof(msg)))
		fail_msg("run: %s", msg);
	for (i = 0; i < 16; i++)
		assert_int_equal(h[i], 997 / 16 + (i < 997 % 16));
}

static int own_sweep(const char *ptx)
{
	return translation_has(ptx, "ag_own0(b)");
}

/*
 * Which grid-stride loops after a barrier each block sweeps for its own
 * threads (stride.c, in_block): before the barrier the kernel may do
 * anything but leave or jump past it; what the loop reads of the code
 * before it must be made on every path there, by computing; and no
 * mbarriers.  Each element is still counted once, in its block's bins.
 */
static void test_block_sweeps(void **state)
{
	char ptx[4096];

	(void)state;
	block_ptx(ptx, sizeof(ptx), "", "");
	assert_true(own_sweep(ptx));
	run_block_hist(ptx);
	/* a value made before the barrier on every path, read in the loop */
	block_ptx(ptx, sizeof(ptx), "\tmov.u32 %r22, 0;\n", "\tadd.s32 %r16, %r16, %r22;\n");
	assert_true(own_sweep(ptx));
	run_block_hist(ptx);

	/* a thread that leaves before the barrier */
	block_ptx(ptx, sizeof(ptx), "\tsetp.gt.u32 %p4, %r8, 1000;\n\t@%p4 ret;\n", "");
	assert_false(own_sweep(ptx));
	run_block_hist(ptx);
	/* a value loaded from memory before the barrier, read in the loop */
	block_ptx(ptx, sizeof(ptx), "\tld.global.u32 %r22, [%rd1+8];\n\tsub.s32 %r22, %r22, 2;\n",
		  "\tadd.s32 %r16, %r16, %r22;\n");
	assert_false(own_sweep(ptx));
	run_block_hist(ptx);
	/* one made on only one of the paths there (a label keeps the branch
	 * a branch: ifconv.c), or twice */
	block_ptx(ptx, sizeof(ptx), "\t@%p3 bra $MADE;\n$IN:\n\tmov.u32 %r22, 0;\n$MADE:\n",
		  "\tadd.s32 %r16, %r16, %r22;\n");
	assert_false(own_sweep(ptx));
	block_ptx(ptx, sizeof(ptx), "\tmov.u32 %r22, 0;\n\t@%p3 bra $MADE;\n\tmov.u32 %r22, 0;\n"
		  "$MADE:\n", "\tadd.s32 %r16, %r16, %r22;\n");
	assert_false(own_sweep(ptx));
	run_block_hist(ptx);
	/* a jump past the barrier */
	block_ptx(ptx, sizeof(ptx), "\tsetp.gt.u32 %p4, %r8, 1000;\n\t@%p4 bra $END;\n", "");
	assert_false(own_sweep(ptx));
	/* an mbarrier */
	block_ptx(ptx, sizeof(ptx), "\tmbarrier.init.shared.b64 [sm+56], 1;\n", "");
	assert_false(own_sweep(ptx));
}

/* A kernel with a barrier whose guarded shared-memory load after it is
 * behind setp CMP of tid.x against the parameter lim, or what make
 * writes into its register in the block after the barrier. */
#define GUARDED_KERNEL(make, cmp) HEADER \
	".visible .entry k(.param .u64 out, .param .u32 lim)\n{\n" \
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<12>;\n\t.reg .b64 %rd<4>;\n" \
	"\t.shared .align 4 .b8 sm[1024];\n" \
	"\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r2, [lim];\n" \
	"\tmov.u32 %r1, %tid.x;\n\tshl.b32 %r3, %r1, 2;\n\tmov.u32 %r4, sm;\n" \
	"\tadd.s32 %r5, %r4, %r3;\n\tst.shared.u32 [%r5], %r1;\n\tmov.u32 %r7, 0;\n" \
	"\tbar.sync 0;\n" make "\tsetp." cmp ".s32 %p1, %r1, %r2;\n" \
	"\t@%p1 ld.shared.u32 %r7, [%r5+4];\n" \
	"\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r1, 4;\n" \
	"\tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r7;\n\tret;\n}\n"

/* Guards that every lane of a looped call may pass, tested once before
 * its loop over the parts (ends.c): an order of a linear index against a
 * bound the block had when it began, not an equality (which may hold
 * between two lanes that do not), nor a bound it loads itself. */
static void test_passed_guards(void **state)
{
	static const char lt[] = GUARDED_KERNEL("", "lt");
	static const char ne[] = GUARDED_KERNEL("", "ne");
	static const char loaded[] = GUARDED_KERNEL("\tld.shared.u32 %r2, [sm];\n", "lt");
	struct strbuf c = STRBUF_INIT;

	(void)state;
	translate_as(lt, AG_GROUPS_ALL, &c);
	if (!strstr(c.buf, "ag_ok0 &= (AG_AT_LANE(0, ") || !strstr(c.buf, "ag_sx_ok(") ||
	    !strstr(c.buf, "(1u | "))
		fail_msg("no test of the guard in the translation");
	sb_reset(&c);
	translate_as(ne, AG_GROUPS_ALL, &c);
	assert_null(strstr(c.buf, "ag_ok0"));
	sb_reset(&c);
	translate_as(loaded, AG_GROUPS_ALL, &c);
	assert_null(strstr(c.buf, "ag_ok0"));
	sb_free(&c);
	/* run as row groups: limits that let whole calls, parts of them and
	 * none of their lanes through */
	assert_int_equal(setenv("ANYGPU_CPU_GROUPS", "all", 1), 0);
	for (uint32_t lim = 0; lim < 256; lim += 15) {
		uint32_t o[256];
		struct {
			uint32_t *out;
			uint32_t lim;
		} prm = { o, lim };
		char msg[256];

		memset(o, 0xff, sizeof(o));
		if (run_params(lt, "k", 1, 256, &prm, msg, sizeof(msg)))
			fail_msg("run: %s", msg);
		for (uint32_t t = 0; t < 256; t++)
			if (o[t] != (t < lim ? t + 1 : 0))
				fail_msg("limit %u: thread %u got %u", lim, t, o[t]);
	}
	unsetenv("ANYGPU_CPU_GROUPS");
}

/* A loop over tiles with two barriers a turn whose products read, after
 * the first, values of the thread's row (sm[ty * ntid.x], and the next)
 * and of its column (sm[tx], sm[16 + tx]), and ty itself: a block of a
 * looped call that is woven (weave.c), the column's address part 0's for
 * every row where the block is sixteen threads wide, ty each row's own.
 * Thread i = ntid.x ty + tx stores i + r in turn r. */
static const char woven_ptx[] = HEADER
	".visible .entry k(.param .u64 out)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<16>;\n\t.reg .f32 %f<8>;\n\t.reg .b64 %rd<4>;\n"
	"\t.shared .align 4 .b8 sm[1024];\n"
	"\tld.param.u64 %rd1, [out];\n\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %tid.y;\n"
	"\tmov.u32 %r13, %ntid.x;\n\tmov.u32 %r5, sm;\n"
	"\tshl.b32 %r3, %r1, 2;\n\tadd.s32 %r6, %r5, %r3;\n"
	"\tmul.lo.u32 %r10, %r2, %r13;\n\tshl.b32 %r4, %r10, 2;\n\tadd.s32 %r7, %r5, %r4;\n"
	"\tadd.s32 %r11, %r10, %r1;\n\tshl.b32 %r14, %r11, 2;\n\tadd.s32 %r8, %r5, %r14;\n"
	"\tmov.f32 %f1, 0f00000000;\n\tmov.u32 %r9, 0;\n\tcvt.rn.f32.u32 %f7, %r2;\n"
	"$L:\n\tadd.s32 %r12, %r11, %r9;\n\tcvt.rn.f32.u32 %f2, %r12;\n"
	"\tst.shared.f32 [%r8], %f2;\n\tbar.sync 0;\n"
	"\tld.shared.f32 %f3, [%r7];\n\tld.shared.f32 %f4, [%r6];\n"
	"\tfma.rn.f32 %f1, %f3, %f4, %f1;\n"
	"\tld.shared.f32 %f5, [%r7+4];\n\tld.shared.f32 %f6, [%r6+64];\n"
	"\tfma.rn.f32 %f1, %f5, %f6, %f1;\n\tfma.rn.f32 %f1, %f7, %f4, %f1;\n"
	"\tbar.sync 0;\n\tadd.s32 %r9, %r9, 1;\n\tsetp.lt.u32 %p1, %r9, 4;\n\t@%p1 bra $L;\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r11, 4;\n"
	"\tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.f32 [%rd2], %f1;\n\tret;\n}\n";

/* The woven block's form, and its results on blocks 16 wide (woven, rows
 * reading one column address) and 32 wide (the parts do not share
 * threadIdx.x: the loop over the parts), 8 and 4 rows. */
static void test_woven_block(void **state)
{
	static const unsigned shapes[][2] = { { 16, 16 }, { 16, 8 }, { 32, 8 }, { 32, 4 } };
	struct strbuf c = STRBUF_INIT;
	float o[256];
	size_t i;

	(void)state;
	translate_as(woven_ptx, AG_GROUPS_ALL, &c);
	if (!strstr(c.buf, "if (full && ag_samex) {") || !strstr(c.buf, "_w7"))
		fail_msg("no woven form in the translation");
	sb_free(&c);
	assert_int_equal(setenv("ANYGPU_CPU_GROUPS", "all", 1), 0);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		unsigned nx = shapes[i][0], ny = shapes[i][1], n = nx * ny, t, r;
		void *out = o;
		char msg[256];

		memset(o, 0xff, sizeof(o));
		if (run_rows(woven_ptx, "k", 1, nx, ny, &out, msg, sizeof(msg)))
			fail_msg("run: %s", msg);
		for (t = 0; t < n; t++) {
			unsigned tx = t % nx, ty = t / nx, row = nx * ty;
			float want = 0;

			for (r = 0; r < 4; r++) {
				/* sm[j] holds j + r */
				float a = (float)(row + r), b = (float)(tx + r);
				float c2 = (float)(row + 1 + r), d = (float)(16 + tx + r);

				/* exact: integers far under 2^24 */
				want += a * b;
				want += c2 * d;
				want += (float)ty * b;
			}
			if (o[t] != want)
				fail_msg("%u x %u: thread %u got %g, want %g", nx, ny, t, o[t], want);
		}
	}
	unsetenv("ANYGPU_CPU_GROUPS");
}

/*
 * A block of eight warps with four barriers, run a warp a call (the
 * shuffle) (ahead.c): after the first, warp 0 adds 100 to its elements
 * of sm (an atomic: no guard can stand for the branch) and the others
 * branch past (the tail, r9 = 7 + add + warp, kept
 * to the end); after the third comes arithmetic alone.  Calls arrive at
 * barriers 2 and 4 ahead, unless what the first path runs before its
 * branch writes a register the barrier keeps (r9 += add: run at the
 * barrier and again after it, it would add twice).  Thread i stores
 * 3 (sm[j] + sm[j0] + r9), j = i + 32 mod 256, j0 its warp's lane 0's.
 */
#define AHEAD_KERNEL(before_branch) HEADER \
	".visible .entry k(.param .u64 out, .param .u32 add)\n{\n" \
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<4>;\n" \
	"\t.shared .align 4 .b8 sm[1024];\n" \
	"\tld.param.u64 %rd1, [out];\n\tld.param.u32 %r20, [add];\n" \
	"\tmov.u32 %r4, %tid.x;\n\tshr.u32 %r2, %r4, 5;\n\tmov.u32 %r5, sm;\n" \
	"\tshl.b32 %r6, %r4, 2;\n\tadd.s32 %r7, %r5, %r6;\n" \
	"\tst.shared.u32 [%r7], %r4;\n\tmov.u32 %r9, 7;\n\tbar.sync 0;\n" \
	before_branch \
	"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $TAIL;\n" \
	"\tatom.shared.add.u32 %r8, [%r7], 100;\n" \
	"$TAIL:\n\tadd.s32 %r9, %r9, %r2;\n\tbar.sync 0;\n" \
	"\tadd.s32 %r12, %r4, 32;\n\tand.b32 %r12, %r12, 255;\n\tshl.b32 %r13, %r12, 2;\n" \
	"\tadd.s32 %r14, %r5, %r13;\n\tld.shared.u32 %r15, [%r14];\n" \
	"\tshfl.sync.idx.b32 %r18, %r15, 0, 31, -1;\n" \
	"\tadd.s32 %r16, %r15, %r9;\n\tadd.s32 %r16, %r16, %r18;\n\tbar.sync 0;\n" \
	"\tmul.lo.u32 %r17, %r16, 3;\n\tbar.sync 0;\n" \
	"\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r4, 4;\n" \
	"\tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r17;\n\tret;\n}\n"

/* How many times the translation of ptx says a call arrives ahead. */
static unsigned ahead_count(const char *ptx)
{
	struct strbuf c = STRBUF_INIT;
	const char *p;
	unsigned n = 0;

	translate_as(ptx, AG_GROUPS_AUTO, &c);
	if (!strstr(c.buf, " int ag_g0("))
		fail_msg("no group translation");
	for (p = c.buf; (p = strstr(p, "u | AG_AT_AHEAD;")); p++)
		n++;
	sb_free(&c);
	return n;
}

/* sm[j] after the second barrier. */
static uint32_t ahead_sm(uint32_t j)
{
	return j + (j < 32 ? 100 : 0);
}

/*
 * Warps 1 to 7 branch from the barrier to the kernel's end: their calls
 * end at the barrier (ahead.c), warp 0's reads what every warp stored
 * before it.  sm[t] = lane 0's t (a shuffle: warp calls); thread l < 32
 * stores sm[8 l] + sm[255 - l].
 */
static const char ahead_end_ptx[] = HEADER
	".visible .entry k(.param .u64 out)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<24>;\n\t.reg .b64 %rd<4>;\n"
	"\t.shared .align 4 .b8 sm[1024];\n"
	"\tld.param.u64 %rd1, [out];\n"
	"\tmov.u32 %r4, %tid.x;\n\tshr.u32 %r2, %r4, 5;\n\tmov.u32 %r5, sm;\n"
	"\tshl.b32 %r6, %r4, 2;\n\tadd.s32 %r7, %r5, %r6;\n"
	"\tshfl.sync.idx.b32 %r18, %r4, 0, 31, -1;\n"
	"\tst.shared.u32 [%r7], %r18;\n\tbar.sync 0;\n"
	"\tsetp.ne.u32 %p1, %r2, 0;\n\t@%p1 bra $END;\n"
	"\tshl.b32 %r8, %r4, 5;\n\tadd.s32 %r9, %r5, %r8;\n\tld.shared.u32 %r10, [%r9];\n"
	"\tmov.u32 %r11, 255;\n\tsub.s32 %r12, %r11, %r4;\n\tshl.b32 %r13, %r12, 2;\n"
	"\tadd.s32 %r14, %r5, %r13;\n\tld.shared.u32 %r15, [%r14];\n\tadd.s32 %r16, %r10, %r15;\n"
	"\tcvta.to.global.u64 %rd2, %rd1;\n\tmul.wide.u32 %rd3, %r4, 4;\n"
	"\tadd.s64 %rd2, %rd2, %rd3;\n\tst.global.u32 [%rd2], %r16;\n"
	"$END:\n\tret;\n}\n";

static void test_ahead_end(void **state)
{
	struct strbuf c = STRBUF_INIT;
	uint32_t o[32], l;
	void *out = o;
	char msg[256];

	(void)state;
	translate_as(ahead_end_ptx, AG_GROUPS_AUTO, &c);
	if (!strstr(c.buf, "\t\tif (ag_go) {\n\t\treturn 1;\n"))
		fail_msg("no call that ends at the barrier in the translation");
	sb_free(&c);
	memset(o, 0xff, sizeof(o));
	if (run_params(ahead_end_ptx, "k", 1, 256, &out, msg, sizeof(msg)))
		fail_msg("run: %s", msg);
	for (l = 0; l < 32; l++)
		if (o[l] != (8 * l) / 32 * 32 + (255 - l) / 32 * 32)
			fail_msg("thread %u got %u", l, o[l]);
}

static void test_ahead(void **state)
{
	static const char *const ptx[] = {
		AHEAD_KERNEL(""),
		AHEAD_KERNEL("\tadd.s32 %r9, %r9, %r20;\n"),
	};
	uint32_t o[256];
	size_t i;

	(void)state;
	assert_int_equal(ahead_count(ptx[0]), 2);
	assert_int_equal(ahead_count(ptx[1]), 1);
	for (i = 0; i < 2; i++) {
		struct {
			uint32_t *out;
			uint32_t add;
		} prm = { o, 1000 };
		char msg[256];
		uint32_t t;

		memset(o, 0xff, sizeof(o));
		if (run_params(ptx[i], "k", 1, 256, &prm, msg, sizeof(msg)))
			fail_msg("run: %s", msg);
		for (t = 0; t < 256; t++) {
			uint32_t w = t / 32, j = (t + 32) % 256, j0 = (w * 32 + 32) % 256;
			uint32_t want = 3 * (ahead_sm(j) + ahead_sm(j0) + 7 + (i ? 1000 : 0) + w);

			if (o[t] != want)
				fail_msg("kernel %zu: thread %u got %u, want %u", i, t, o[t], want);
		}
	}
}

/* Translating ptx must fail with a message containing want. */
static void refused(const char *ptx, const char *want)
{
	struct ptx_module *m;
	struct ptx_error err;
	struct strbuf c = STRBUF_INIT;

	if (ptx_parse(ptx, strlen(ptx), &m, &err))
		fail_msg("parse: line %d: %s", err.line, err.msg);
	assert_int_equal(ag_translate(m, AG_GROUPS_AUTO, &c, &err), -1);
	if (!strstr(err.msg, want))
		fail_msg("got '%s', want '%s'", err.msg, want);
	assert_true(err.line > 0);
	sb_free(&c);
	ptx_free(m);
}

static uint32_t f32_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, 4);
	return u;
}

static void test_shift_clamp(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<10>;\n\t.reg .b64 %rd<6>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.b32 %r1, -2147483647;\n"
		"\tmov.b32 %r9, 33;\n"
		"\tshl.b32 %r2, %r1, %r9;\n"
		"\tshr.u32 %r3, %r1, 40;\n"
		"\tshr.s32 %r4, %r1, 99;\n"
		"\tshr.s32 %r5, %r1, 31;\n"
		"\tshl.b32 %r6, %r1, 1;\n"
		"\tshr.u32 %r7, %r1, 31;\n"
		"\tst.global.v4.u32 [%rd1], {%r2, %r3, %r4, %r5};\n"
		"\tst.global.v2.u32 [%rd1+16], {%r6, %r7};\n"
		"\tmov.b64 %rd2, 1;\n"
		"\tshl.b64 %rd3, %rd2, 64;\n"
		"\tshl.b64 %rd4, %rd2, 63;\n"
		"\tst.global.v2.u64 [%rd1+32], {%rd3, %rd4};\n"
		"\tret;\n}\n";
	uint32_t o[12] = { 0 };

	(void)state;
	run(ptx, "k", 1, o);
	assert_int_equal(o[0], 0);
	assert_int_equal(o[1], 0);
	assert_int_equal(o[2], 0xffffffffu);
	assert_int_equal(o[3], 0xffffffffu);
	assert_int_equal(o[4], 2);
	assert_int_equal(o[5], 1);
	assert_int_equal(o[8] | (uint64_t)o[9] << 32, 0);
	assert_int_equal(o[10] | (uint64_t)o[11] << 32, 1ull << 63);
}

static void test_division(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, 7;\n\tmov.u32 %r2, 0;\n"
		"\tdiv.u32 %r3, %r1, %r2;\n"
		"\trem.u32 %r4, %r1, %r2;\n"
		"\tmov.u32 %r5, -2147483648;\n\tmov.u32 %r6, -1;\n"
		"\tdiv.s32 %r7, %r5, %r6;\n"
		"\trem.s32 %r8, %r5, %r6;\n"
		"\tdiv.s32 %r9, %r1, %r2;\n"
		"\tmov.u32 %r10, 2147483647;\n"
		"\tadd.sat.s32 %r11, %r10, 1;\n"
		"\tadd.s32 %r12, %r10, 1;\n"
		"\tmul.hi.s32 %r13, %r5, 2;\n"
		"\tmul.wide.s32 %rd2, %r6, 3;\n"
		"\tmov.u64 %rd3, -9223372036854775808;\n\tmov.u64 %rd4, -1;\n"
		"\tdiv.s64 %rd5, %rd3, %rd4;\n"
		"\tst.global.v4.u32 [%rd1], {%r3, %r4, %r7, %r8};\n"
		"\tst.global.v4.u32 [%rd1+16], {%r9, %r11, %r12, %r13};\n"
		"\tst.global.v2.u64 [%rd1+32], {%rd2, %rd5};\n"
		"\tret;\n}\n";
	uint32_t o[12] = { 0 };

	(void)state;
	run(ptx, "k", 1, o);
	assert_int_equal(o[0], 0xffffffffu);   /* u32 / 0: all ones */
	assert_int_equal(o[1], 7);             /* u32 % 0: the dividend */
	assert_int_equal(o[2], 0x80000000u);   /* INT_MIN / -1 wraps */
	assert_int_equal(o[3], 0);
	assert_int_equal(o[4], 0xffffffffu);   /* s32 / 0: -1 */
	assert_int_equal(o[5], 0x7fffffffu);   /* saturated */
	assert_int_equal(o[6], 0x80000000u);   /* wrapped */
	assert_int_equal(o[7], 0xffffffffu);   /* high word of -2^32 */
	assert_int_equal(o[8] | (uint64_t)o[9] << 32, (uint64_t)-3);
	assert_int_equal(o[10] | (uint64_t)o[11] << 32, 1ull << 63);
}

static void test_cvt_saturation(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<20>;\n\t.reg .f32 %f<10>;\n\t.reg .f64 %fd<3>;\n"
		"\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.f32 %f1, 0f7FC00000;\n"        /* NaN */
		"\tmov.f32 %f2, 0f4F32D05E;\n"        /* 3e9 */
		"\tmov.f32 %f3, 0fCF32D05E;\n"        /* -3e9 */
		"\tmov.f32 %f4, 0fC0A00000;\n"        /* -5 */
		"\tmov.f32 %f5, 0f40200000;\n"        /* 2.5 */
		"\tmov.f32 %f6, 0f40600000;\n"        /* 3.5 */
		"\tmov.f32 %f7, 0fC0200000;\n"        /* -2.5 */
		"\tmov.f32 %f8, 0f40100000;\n"        /* 2.25 */
		"\tcvt.rzi.s32.f32 %r1, %f1;\n"
		"\tcvt.rzi.s32.f32 %r2, %f2;\n"
		"\tcvt.rzi.s32.f32 %r3, %f3;\n"
		"\tcvt.rzi.u32.f32 %r4, %f4;\n"
		"\tcvt.rni.s32.f32 %r5, %f5;\n"
		"\tcvt.rni.s32.f32 %r6, %f6;\n"
		"\tcvt.rmi.s32.f32 %r7, %f7;\n"
		"\tcvt.rpi.s32.f32 %r8, %f8;\n"
		"\tmov.u32 %r9, 300;\n\tmov.u32 %r10, -4;\n\tmov.u32 %r11, 200;\n"
		"\tcvt.sat.u8.s32 %r12, %r9;\n"
		"\tcvt.sat.u8.s32 %r13, %r10;\n"
		"\tcvt.s8.s32 %r14, %r11;\n"
		"\tcvt.sat.s16.u32 %r15, %r10;\n"
		"\tmov.f64 %fd1, 0d7E37E43C8800759C;\n"   /* 1e300 */
		"\tcvt.rzi.s64.f64 %rd2, %fd1;\n"
		"\tcvt.rzi.u64.f32 %rd3, %f1;\n"
		"\tst.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
		"\tst.global.v4.u32 [%rd1+16], {%r5, %r6, %r7, %r8};\n"
		"\tst.global.v4.u32 [%rd1+32], {%r12, %r13, %r14, %r15};\n"
		"\tst.global.v2.u64 [%rd1+48], {%rd2, %rd3};\n"
		"\tret;\n}\n";
	uint32_t o[16] = { 0 };

	(void)state;
	run(ptx, "k", 1, o);
	assert_int_equal(o[0], 0);             /* NaN -> 0 */
	assert_int_equal(o[1], 0x7fffffffu);
	assert_int_equal(o[2], 0x80000000u);
	assert_int_equal(o[3], 0);             /* -5 -> u32 clamps to 0 */
	assert_int_equal(o[4], 2);             /* ties to even */
	assert_int_equal(o[5], 4);
	assert_int_equal(o[6], (uint32_t)-3);
	assert_int_equal(o[7], 3);
	assert_int_equal(o[8], 255);
	assert_int_equal(o[9], 0);
	assert_int_equal(o[10], (uint32_t)-56); /* s8: truncated, sign-extended */
	assert_int_equal(o[11], 0x7fff);       /* 0xfffffffc as u32 saturates */
	assert_int_equal(o[12] | (uint64_t)o[13] << 32, 0x7fffffffffffffffull);
	assert_int_equal(o[14] | (uint64_t)o[15] << 32, 0);
}

static void test_rounding_modes(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<6>;\n\t.reg .f32 %f<20>;\n\t.reg .f64 %fd<3>;\n"
		"\t.reg .b64 %rd<2>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, 16777217;\n\tmov.u32 %r2, -16777217;\n\tmov.u32 %r3, 16777219;\n"
		"\tcvt.rz.f32.s32 %f1, %r1;\n"
		"\tcvt.rp.f32.s32 %f2, %r1;\n"
		"\tcvt.rm.f32.s32 %f3, %r2;\n"
		"\tcvt.rn.f32.s32 %f4, %r3;\n"
		"\tmov.f64 %fd1, 0d3FD5555555555555;\n"   /* 1/3 */
		"\tcvt.rz.f32.f64 %f5, %fd1;\n"
		"\tcvt.rp.f32.f64 %f6, %fd1;\n"
		"\tmov.f32 %f7, 0f3F800000;\n"            /* 1 */
		"\tmov.f32 %f8, 0f30800000;\n"            /* 2^-30 */
		"\tadd.rz.f32 %f9, %f7, %f8;\n"
		"\tadd.rp.f32 %f10, %f7, %f8;\n"
		"\tsub.rm.f32 %f11, %f8, %f7;\n"          /* 2^-30 - 1 */
		"\tmov.f32 %f12, 0f40400000;\n"           /* 3 */
		"\tdiv.rz.f32 %f13, %f7, %f12;\n"
		"\tdiv.rp.f32 %f14, %f7, %f12;\n"
		"\tfma.rm.f32 %f15, %f12, %f12, %f8;\n"   /* 9 + 2^-30 */
		"\tfma.rp.f32 %f16, %f12, %f12, %f8;\n"
		"\tst.global.v4.f32 [%rd1], {%f1, %f2, %f3, %f4};\n"
		"\tst.global.v4.f32 [%rd1+16], {%f5, %f6, %f9, %f10};\n"
		"\tst.global.v4.f32 [%rd1+32], {%f11, %f13, %f14, %f15};\n"
		"\tst.global.f32 [%rd1+48], %f16;\n"
		"\tret;\n}\n";
	uint32_t o[13] = { 0 };

	(void)state;
	run(ptx, "k", 1, o);
	assert_int_equal(o[0], f32_bits(16777216.0f));
	assert_int_equal(o[1], f32_bits(16777218.0f));
	assert_int_equal(o[2], f32_bits(-16777218.0f));
	assert_int_equal(o[3], f32_bits(16777220.0f));
	assert_int_equal(o[4], 0x3eaaaaaau);
	assert_int_equal(o[5], 0x3eaaaaabu);
	assert_int_equal(o[6], 0x3f800000u);
	assert_int_equal(o[7], 0x3f800001u);
	assert_int_equal(o[8], 0xbf800000u);   /* -(1 - 2^-30) down: -1 */
	assert_int_equal(o[9], 0x3eaaaaaau);
	assert_int_equal(o[10], 0x3eaaaaabu);
	assert_int_equal(o[11], f32_bits(9.0f));
	assert_int_equal(o[12], f32_bits(9.0f) + 1);
}

static void test_half(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b16 %h<8>;\n\t.reg .b32 %r<4>;\n\t.reg .f32 %f<4>;\n\t.reg .pred %p1;\n"
		"\t.reg .b64 %rd<2>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.f32 %f1, 0f3F8CCCCD;\n"            /* 1.1 */
		"\tcvt.rn.f16.f32 %h1, %f1;\n"
		"\tmov.f32 %f2, 0f477FF000;\n"            /* 65520: rounds to inf */
		"\tcvt.rn.f16.f32 %h2, %f2;\n"
		"\tcvt.rz.f16.f32 %h3, %f2;\n"
		"\tadd.f16 %h4, %h1, %h1;\n"
		"\tmul.f16 %h5, %h1, %h1;\n"
		"\tsetp.lt.f16 %p1, %h1, %h4;\n"
		"\tselp.u16 %h6, 1, 0, %p1;\n"
		"\tmov.b32 %r1, {%h1, %h4};\n"
		"\tadd.f16x2 %r2, %r1, %r1;\n"
		"\tst.global.v4.u16 [%rd1], {%h1, %h2, %h3, %h4};\n"
		"\tst.global.v2.u16 [%rd1+8], {%h5, %h6};\n"
		"\tst.global.u32 [%rd1+12], %r2;\n"
		"\tret;\n}\n";
	uint16_t o[8] = { 0 };

	(void)state;
	run(ptx, "k", 1, o);
	assert_int_equal(o[0], 0x3c66);        /* 1.1 -> 1.0996 */
	assert_int_equal(o[1], 0x7c00);
	assert_int_equal(o[2], 0x7bff);
	assert_int_equal(o[3], 0x4066);
	assert_int_equal(o[4], 0x3cd6);        /* 1.0996^2 = 1.20914 -> 1.20898 */
	assert_int_equal(o[5], 1);
	assert_int_equal(o[6], 0x4066);
	assert_int_equal(o[7], 0x4466);
}

/* __shfl_down_sync(~0, lane, 1, 8): the last lane of each 8-lane segment
 * keeps its own value and gets a false predicate. */
static void test_shfl_segments(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<6>;\n\t.reg .pred %p1;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %laneid;\n"
		"\tshfl.sync.down.b32 %r2|%p1, %r1, 1, 6175, -1;\n"
		"\tselp.u32 %r3, 1, 0, %p1;\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r2;\n"
		"\tst.global.u32 [%rd3+128], %r3;\n"
		"\tret;\n}\n";
	uint32_t o[64] = { 0 }, l;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		assert_int_equal(o[l], l % 8 < 7 ? l + 1 : l);
		assert_int_equal(o[32 + l], l % 8 < 7);
	}
}

/* __shfl_up_sync(~0, v, 1) as nvcc writes it, with a predicate that
 * nothing reads: the translation writes only the value. */
static void test_shfl_unread_predicate(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .pred %p1;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %laneid;\n"
		"\tshfl.sync.up.b32 %r2|%p1, %r1, 1, 0, -1;\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r2;\n"
		"\tret;\n}\n";
	uint32_t o[32] = { 0 }, l;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++)
		assert_int_equal(o[l], l ? l - 1 : 0);
	translates_with(ptx, (const char *const[]){ "ag_shfl_warp(0, sv_, b_, c_, d_, NULL)", NULL },
			(const char *const[]){ "(k_[l])", "(ok_)", NULL });
}

/* Registers whose one write is a mov of an immediate are read as that
 * immediate (src/cpu/consts.c): a shuffle's offset in a register, a float,
 * a 16-bit -1.  Registers that are also written elsewhere, by arithmetic
 * or as part of a vector, keep the values of their later writes. */
static void test_constant_registers(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b16 %rs<2>;\n\t.reg .b32 %r<12>;\n\t.reg .f32 %f<4>;\n"
		"\t.reg .b64 %rd<6>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, 1;\n\tmov.u32 %r6, 0;\n\tmov.u32 %r7, -1;\n"
		"\tmov.u32 %r8, %laneid;\n"
		"\tshfl.sync.up.b32 %r9, %r8, %r1, %r6, %r7;\n"
		"\tmov.u32 %r2, 2;\n"
		"\tadd.u32 %r2, %r2, %r1;\n"
		"\tmov.u32 %r4, 3;\n"
		"\tcvt.u64.u32 %rd5, %r8;\n"
		"\tmov.b64 {%r4, %r5}, %rd5;\n"
		"\tmov.f32 %f1, 0f40000000;\n"
		"\tcvt.rn.f32.u32 %f2, %r8;\n"
		"\tmul.f32 %f3, %f2, %f1;\n"
		"\tcvt.rzi.u32.f32 %r10, %f3;\n"
		"\tmov.u16 %rs1, -1;\n"
		"\tcvt.u32.u16 %r11, %rs1;\n"
		"\tmul.wide.u32 %rd2, %r8, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r9;\n"
		"\tst.global.u32 [%rd3+128], %r2;\n"
		"\tst.global.u32 [%rd3+256], %r4;\n"
		"\tst.global.u32 [%rd3+384], %r10;\n"
		"\tst.global.u32 [%rd3+512], %r11;\n"
		"\tret;\n}\n";
	uint32_t o[160] = { 0 }, l;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		assert_int_equal(o[l], l ? l - 1 : 0);
		assert_int_equal(o[32 + l], 3);
		assert_int_equal(o[64 + l], l);
		assert_int_equal(o[96 + l], 2 * l);
		assert_int_equal(o[128 + l], 0xffff);
	}
}

/* Branches on predicates the lanes of a warp agree on take the whole
 * warp by lane 0's (src/cpu/uniform.c); these must not.  r2 is written
 * with a different value on each side of a branch on %tid and compared
 * where the sides meet; r3 counts the turns of a loop that lanes leave at
 * different turns and is compared after it.  Both comparisons differ
 * between lanes, though each is made of moves and adds of constants (the
 * branches skip seven instructions, which stay branches).  The loop of
 * constant bounds after them is the one uniform branch.  activemask keeps
 * the kernel in lockstep. */
static void test_divergent_joins(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<12>;\n\t.reg .pred %p<8>;\n\t.reg .b64 %rd<4>;\n"
		"\tactivemask.b32 %r10;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tsetp.lt.u32 %p1, %r1, 5;\n"
		"\t@%p1 bra $THEN;\n"
		"\tmov.u32 %r2, 3;\n"
		"\tbra $JOIN;\n"
		"$THEN:\n"
		"\tmov.u32 %r2, 7;\n"
		"$JOIN:\n"
		"\tmov.u32 %r4, 0;\n"
		"\tsetp.eq.u32 %p2, %r2, 7;\n"
		"\t@%p2 bra $SKIP;\n"
		"\tmov.u32 %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"$SKIP:\n"
		"\tst.global.u32 [%rd3], %r4;\n"
		"\tmov.u32 %r3, 0;\n"
		"$LOOP:\n"
		"\tadd.u32 %r3, %r3, 1;\n"
		"\tsetp.lt.u32 %p3, %r3, %r1;\n"
		"\t@%p3 bra $LOOP;\n"
		"\tmov.u32 %r5, 0;\n"
		"\tsetp.gt.u32 %p4, %r3, 10;\n"
		"\t@%p4 bra $SKIP2;\n"
		"\tmov.u32 %r5, %r3;\n"
		"\tadd.u32 %r5, %r5, 1;\n"
		"\tadd.u32 %r5, %r5, 1;\n"
		"\tadd.u32 %r5, %r5, 1;\n"
		"\tadd.u32 %r5, %r5, 1;\n"
		"\tadd.u32 %r5, %r5, 1;\n"
		"\tadd.u32 %r5, %r5, 1;\n"
		"$SKIP2:\n"
		"\tst.global.u32 [%rd3+128], %r5;\n"
		"\tmov.u32 %r6, 0;\n\tmov.u32 %r7, 0;\n"
		"$COUNT:\n"
		"\tadd.u32 %r7, %r7, %r1;\n"
		"\tadd.u32 %r6, %r6, 1;\n"
		"\tsetp.lt.u32 %p5, %r6, 4;\n"
		"\t@%p5 bra $COUNT;\n"
		"\tst.global.u32 [%rd3+256], %r7;\n"
		"\tret;\n}\n";
	uint32_t o[96] = { 0 }, l;
	struct strbuf c = STRBUF_INIT;
	const char *p;
	int lane0 = 0;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		uint32_t turns = l ? l : 1;

		assert_int_equal(o[l], l >= 5 ? 7 : 0);
		assert_int_equal(o[32 + l], turns > 10 ? 0 : turns + 6);
		assert_int_equal(o[64 + l], 4 * l);
	}
	translate_to(ptx, &c);
	for (p = c.buf; (p = strstr(p, "ag_n = (")); p++)
		lane0++;
	assert_int_equal(lane0, 1);
	sb_free(&c);
}

/* A form of an access's addresses found once is kept while they cannot
 * change (src/cpu/vector.c): through a register that only one
 * instruction on no loop writes, for one block.  Here the loop's address
 * is written once per turn, and is the lanes' own on the first turn and
 * one for all on the second; the address after the loop is made once,
 * and is the lanes' own in even blocks and one for all in odd ones.  Each
 * form kept too long reads the wrong words. */
static void test_forms_kept(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<12>;\n\t.reg .pred %p<4>;\n\t.reg .b64 %rd<12>;\n"
		"\tactivemask.b32 %r10;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tmov.u32 %r2, 0;\n\tmov.u32 %r5, 0;\n\tmov.u32 %r7, 1;\n"
		"$L:\n"
		"\tsub.u32 %r3, %r7, %r2;\n"
		"\tmul.lo.u32 %r4, %r1, %r3;\n"
		"\tmul.wide.u32 %rd2, %r4, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tld.global.u32 %r6, [%rd3];\n"
		"\tadd.u32 %r5, %r5, %r6;\n"
		"\tadd.u32 %r2, %r2, 1;\n"
		"\tsetp.lt.u32 %p1, %r2, 2;\n"
		"\t@%p1 bra $L;\n"
		"\tmov.u32 %r8, %ctaid.x;\n"
		"\tand.b32 %r9, %r8, 1;\n"
		"\txor.b32 %r9, %r9, 1;\n"
		"\tmul.lo.u32 %r9, %r9, %r1;\n"
		"\tmul.wide.u32 %rd4, %r9, 4;\n"
		"\tadd.s64 %rd5, %rd1, %rd4;\n"
		"\tld.global.u32 %r11, [%rd5];\n"
		"\tmul.wide.u32 %rd6, %r8, 128;\n"
		"\tadd.s64 %rd7, %rd1, %rd6;\n"
		"\tmul.wide.u32 %rd8, %r1, 4;\n"
		"\tadd.s64 %rd9, %rd7, %rd8;\n"
		"\tst.global.u32 [%rd9+128], %r5;\n"
		"\tst.global.u32 [%rd9+1152], %r11;\n"
		"\tret;\n}\n";
	uint32_t o[8 * 32 + 32 + 8 * 32] = { 0 }, l, b;

	(void)state;
	for (l = 0; l < 32; l++)
		o[l] = 100 + l;
	run_blocks(ptx, "k", 8, 32, o);
	for (b = 0; b < 8; b++)
		for (l = 0; l < 32; l++) {
			assert_int_equal(o[32 + 32 * b + l], 200 + l);
			assert_int_equal(o[288 + 32 * b + l], b % 2 ? 100 : 100 + l);
		}
}

/* Atomics with only arithmetic between them share one loop over the
 * lanes of a full warp (src/cpu/vector.c): each lane's come in its own
 * order, with the value the first returned in hand for the second.  The
 * 64 increments of one counter return each of 0..63 once, a lane's second
 * more than its first. */
static void test_atomic_chain(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.shared .align 4 .b8 s[4];\n"
		"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tst.shared.u32 [s], 0;\n"
		"\tbar.sync 0;\n"
		"\tatom.shared.add.u32 %r5, [s], 1;\n"
		"\tadd.u32 %r6, %r5, 1;\n"
		"\tatom.shared.add.u32 %r7, [s], 1;\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r5;\n"
		"\tst.global.u32 [%rd3+128], %r7;\n"
		"\tst.global.u32 [%rd3+256], %r6;\n"
		"\tret;\n}\n";
	uint32_t o[96] = { 0 }, l, seen = 0;
	uint64_t got = 0;
	struct strbuf c = STRBUF_INIT;
	const char *a, *b;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		assert_true(o[l] < 64 && o[32 + l] < 64 && o[l] < o[32 + l]);
		assert_int_equal(o[64 + l], o[l] + 1);
		got |= 1ull << o[l] | 1ull << o[32 + l];
	}
	assert_true(got == ~0ull);
	translate_to(ptx, &c);
	assert_non_null(a = strstr(c.buf, ": atom */"));
	assert_non_null(b = strstr(a + 1, ": atom */"));
	for (; (a = strstr(a, "for (l = 0; l < 32; l++)")) && a < b; a++)
		seen++;
	assert_int_equal(seen, 0);
	sb_free(&c);
}

/* A thread that owns four consecutive words (lanes 16 bytes apart) and
 * stores them under a bound, with a shared word read at one address in
 * the same run: the run is one loop over each half warp's lanes written
 * for that step (forms.c guesses it, vector.c tests it; without either,
 * no fused loop) and without the guards, entered when they hold in every
 * lane (a bound of 128); a bound of 126 keeps the last two words, in the
 * split form. */
static void test_step_form(void **state)
{
	static const char fmt[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.shared .align 4 .b8 s[4];\n"
		"\t.reg .b32 %%r<12>;\n\t.reg .pred %%p<5>;\n\t.reg .b64 %%rd<4>;\n"
		"\tld.param.u64 %%rd1, [out];\n"
		"\tmov.u32 %%r1, %%tid.x;\n"
		"\tst.shared.u32 [s], 5;\n"
		"\tbar.sync 0;\n"
		"\tld.shared.u32 %%r2, [s];\n"
		"\tshl.b32 %%r3, %%r1, 2;\n"
		"\tsetp.ge.u32 %%p1, %%r3, %u;\n"
		"\tadd.u32 %%r4, %%r3, 1;\n\tsetp.ge.u32 %%p2, %%r4, %u;\n"
		"\tadd.u32 %%r5, %%r3, 2;\n\tsetp.ge.u32 %%p3, %%r5, %u;\n"
		"\tadd.u32 %%r6, %%r3, 3;\n\tsetp.ge.u32 %%p4, %%r6, %u;\n"
		"\tmul.wide.u32 %%rd2, %%r3, 4;\n"
		"\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		"\tadd.u32 %%r7, %%r2, %%r3;\n"
		"\t@!%%p1 st.global.u32 [%%rd3], %%r7;\n"
		"\tadd.u32 %%r7, %%r7, 1;\n"
		"\t@!%%p2 st.global.u32 [%%rd3+4], %%r7;\n"
		"\tadd.u32 %%r7, %%r7, 1;\n"
		"\t@!%%p3 st.global.u32 [%%rd3+8], %%r7;\n"
		"\tadd.u32 %%r7, %%r7, 1;\n"
		"\t@!%%p4 st.global.u32 [%%rd3+12], %%r7;\n"
		"\tret;\n}\n";
	static const unsigned bounds[] = { 126, 128 };
	char ptx[sizeof(fmt) + 16];
	uint32_t o[128], i, j, n;

	(void)state;
	for (i = 0; i < 2; i++) {
		n = bounds[i];
		snprintf(ptx, sizeof(ptx), fmt, n, n, n, n);
		for (j = 0; j < 128; j++)
			o[j] = 1000;
		run(ptx, "k", 32, o);
		for (j = 0; j < 128; j++)
			assert_int_equal(o[j], j < n ? 5 + j : 1000);
	}
	translates_with(ptx, (const char *const[]){ "if (ag_on && ", "== AG_STEP) {",
						    "(l - ag_h) * 16;", NULL }, NULL);
}

/* A lockstep kernel (it reads %laneid) whose loop adds floats asks for the
 * widest vectors; with a reciprocal in the loop it does not. */
static void test_lockstep_wide(void **state)
{
	static const char fmt[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %%r<4>;\n\t.reg .f32 %%f<4>;\n\t.reg .pred %%p1;\n"
		"\t.reg .b64 %%rd<4>;\n"
		"\tld.param.u64 %%rd1, [out];\n"
		"\tmov.u32 %%r1, %%laneid;\n"
		"\tmov.f32 %%f1, 0f00000000;\n"
		"\tmov.u32 %%r2, 0;\n"
		"L:\n"
		"\tadd.f32 %%f1, %%f1, 0f3F800000;\n\tadd.f32 %%f1, %%f1, 0f3F800000;\n"
		"\tadd.f32 %%f1, %%f1, 0f3F800000;\n\tadd.f32 %%f1, %%f1, 0f3F800000;\n"
		"\tadd.f32 %%f1, %%f1, 0f3F800000;\n\tadd.f32 %%f1, %%f1, 0f3F800000;\n"
		"\tadd.f32 %%f1, %%f1, 0f3F800000;\n\tadd.f32 %%f1, %%f1, 0f3F800000;\n"
		"\t%s.f32 %%f1, %%f1;\n"
		"\tadd.u32 %%r2, %%r2, 1;\n"
		"\tsetp.lt.u32 %%p1, %%r2, 2;\n"
		"\t@%%p1 bra L;\n"
		"\tmul.wide.u32 %%rd2, %%r1, 4;\n"
		"\tadd.s64 %%rd3, %%rd1, %%rd2;\n"
		"\tst.global.f32 [%%rd3], %%f1;\n"
		"\tret;\n}\n";
	const char *const wide[] = { "AG_WIDE void ag_run0", NULL };
	char ptx[sizeof(fmt) + 16];
	uint32_t o[32], l;

	(void)state;
	snprintf(ptx, sizeof(ptx), fmt, "abs");
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++)
		assert_int_equal(o[l], f32_bits(16.0f));
	translates_with(ptx, wide, NULL);
	snprintf(ptx, sizeof(ptx), fmt, "rcp.rn");
	run(ptx, "k", 32, o);
	assert_int_equal(o[0], f32_bits(1.0f / (8.0f + 1.0f / 8.0f)));
	translates_with(ptx, (const char *const[]){ "void ag_run0", NULL }, wide);
}

/* Loads through one register at several offsets, negative ones too, in
 * global and shared memory: the fused loop makes each address from the
 * first one's (vector.c, emit_base), and each lane still reads its own. */
static void test_offset_bases(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.shared .align 4 .b8 s[160];\n"
		"\t.reg .b32 %r<16>;\n\t.reg .b64 %rd<8>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tmov.u32 %r2, s;\n"
		"\tshl.b32 %r3, %r1, 2;\n"
		"\tadd.u32 %r4, %r2, %r3;\n"
		"\tmul.lo.u32 %r5, %r1, 3;\n"
		"\tst.shared.u32 [%r4+16], %r5;\n"
		"\tbar.sync 0;\n"
		"\tactivemask.b32 %r15;\n"
		"\tadd.u32 %r6, %r3, 128;\n"
		"\tcvt.u64.u32 %rd2, %r6;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tld.global.u32 %r7, [%rd3+-4];\n"
		"\tld.global.u32 %r8, [%rd3+8];\n"
		"\tld.global.u32 %r9, [%rd3];\n"
		"\tld.shared.u32 %r10, [%r4+20];\n"
		"\tld.shared.u32 %r11, [%r4+12];\n"
		"\tshl.b32 %r8, %r8, 1;\n\tshl.b32 %r9, %r9, 2;\n"
		"\tshl.b32 %r10, %r10, 3;\n\tshl.b32 %r11, %r11, 4;\n"
		"\tadd.u32 %r12, %r7, %r8;\n\tadd.u32 %r12, %r12, %r9;\n"
		"\tadd.u32 %r12, %r12, %r10;\n\tadd.u32 %r12, %r12, %r11;\n"
		"\tst.global.u32 [%rd3+512], %r12;\n"
		"\tret;\n}\n";
	uint32_t o[192], l;

	(void)state;
	for (l = 0; l < 192; l++)
		o[l] = 1000 + 7 * l;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		uint32_t g0 = 1000 + 7 * (l + 31), g1 = 1000 + 7 * (l + 34), g2 = 1000 + 7 * (l + 32);
		uint32_t s1 = 3 * (l + 1), s0 = 3 * (l - 1);

		if (l == 0 || l == 31)
			continue;       /* s[0..15] and s[144..159] are never written */
		assert_int_equal(o[160 + l], g0 + 2 * g1 + 4 * g2 + 8 * s1 + 16 * s0);
	}
	translates_with(ptx, (const char *const[]){ " + (12);", " + (-8);", NULL }, NULL);
}

/* The fast path with a barrier: a shared address whose base (affine.c)
 * comes from memory, so that the barrier keeps the base with its register
 * (remat.c recomputes only what comes from the launch), and whose row of
 * threads crosses 2^32: 4 * x - 8 wraps for x < 2, which the guard keeps
 * from loading, while the others read s[x - 2] and s[x + 2] through the
 * wrapped 32-bit sum.  s[x + 1], through a base of 0, takes the vector
 * form, one test of ag_zx_room for its offsets. */
static void test_shared_bases(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.shared .align 4 .b8 s[256];\n"
		"\t.reg .b32 %r<12>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tld.global.u32 %r9, [%rd1];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tshl.b32 %r2, %r1, 2;\n"
		"\tst.shared.u32 [%r2], %r1;\n"
		"\tadd.s32 %r3, %r2, %r9;\n"
		"\tbar.sync 0;\n"
		"\tsetp.lt.u32 %p1, %r1, 2;\n"
		"\tmov.u32 %r4, 1000;\n"
		"\t@!%p1 ld.shared.u32 %r4, [%r3];\n"
		"\tld.shared.u32 %r5, [%r3+16];\n"
		"\tld.shared.u32 %r6, [%r2+4];\n"
		"\tmul.wide.u32 %rd2, %r1, 12;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r4;\n"
		"\tst.global.u32 [%rd3+4], %r5;\n"
		"\tst.global.u32 [%rd3+8], %r6;\n"
		"\tret;\n}\n";
	uint32_t o[3 * 60], x;

	(void)state;
	memset(o, 0, sizeof(o));
	o[0] = 0xfffffff8u;
	run(ptx, "k", 60, o);
	for (x = 0; x < 60; x++) {
		assert_int_equal(o[3 * x], x < 2 ? 1000 : x - 2);
		if (x + 2 < 60)         /* s[60..63] are never written */
			assert_int_equal(o[3 * x + 1], x + 2);
		if (x + 1 < 60)
			assert_int_equal(o[3 * x + 2], x + 1);
	}
	translates_with(ptx, (const char *const[]){ "ag_zx_room(", "#define AG_REMAT0", NULL },
			NULL);
}

/* Lanes 0..9 take a branch, then ballot and activemask see only them;
 * after the join all 32 lanes run together again. */
static void test_vote_divergent(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<8>;\n\t.reg .pred %p<4>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tmov.u32 %r2, 0;\n\tmov.u32 %r3, 0;\n"
		"\tsetp.ge.u32 %p1, %r1, 10;\n"
		"\t@%p1 bra $DONE;\n"
		"\tand.b32 %r4, %r1, 1;\n"
		"\tsetp.eq.u32 %p2, %r4, 1;\n"
		"\tactivemask.b32 %r3;\n"
		"\tvote.sync.ballot.b32 %r2, %p2, %r3;\n"
		"$DONE:\n"
		"\tactivemask.b32 %r5;\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r2;\n"
		"\tst.global.u32 [%rd3+128], %r3;\n"
		"\tst.global.u32 [%rd3+256], %r5;\n"
		"\tret;\n}\n";
	uint32_t o[96] = { 0 }, l;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		assert_int_equal(o[l], l < 10 ? 0x2aa : 0);
		assert_int_equal(o[32 + l], l < 10 ? 0x3ff : 0);
		assert_int_equal(o[64 + l], 0xffffffffu);
	}
}

/* Short branches over a few instructions, which the translator turns into
 * guards on them (src/cpu/ifconv.c) where that changes nothing: a region
 * that rewrites the branch's predicate stays a branch, a label another
 * branch names stays, a region of seven instructions stays, and "@!p"
 * guards the other way.  activemask keeps the kernel in lockstep. */
static void test_short_branches(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<10>;\n\t.reg .pred %p<6>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tactivemask.b32 %r9;\n"
		"\tsetp.lt.u32 %p1, %r1, 10;\n"
		"\tmov.u32 %r2, 100;\n"
		"\t@%p1 bra $A;\n"
		"\tadd.u32 %r2, %r2, 1;\n"
		"\tsetp.lt.u32 %p1, %r1, 20;\n"
		"\tadd.u32 %r2, %r2, 1;\n"
		"$A:\n"
		"\tmov.u32 %r3, 5;\n"
		"\tsetp.eq.u32 %p2, %r1, 3;\n"
		"\t@%p2 bra $B;\n"
		"\tsetp.ge.u32 %p3, %r1, 16;\n"
		"\t@%p3 bra $B;\n"
		"\tadd.u32 %r3, %r3, 10;\n"
		"$B:\n"
		"\tsetp.ge.u32 %p4, %r1, 8;\n"
		"\tmov.u32 %r4, 0;\n"
		"\t@%p4 bra $C;\n"
		"\tadd.u32 %r4, %r4, 1;\n\tadd.u32 %r4, %r4, 1;\n\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n\tadd.u32 %r4, %r4, 1;\n\tadd.u32 %r4, %r4, 1;\n"
		"\tadd.u32 %r4, %r4, 1;\n"
		"$C:\n"
		"\tand.b32 %r6, %r1, 1;\n"
		"\tsetp.eq.u32 %p5, %r6, 1;\n"
		"\tmov.u32 %r5, 0;\n"
		"\t@!%p5 bra $D;\n"
		"\tmul.lo.u32 %r5, %r1, 3;\n"
		"$D:\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r2;\n"
		"\tst.global.u32 [%rd3+128], %r3;\n"
		"\tst.global.u32 [%rd3+256], %r4;\n"
		"\tst.global.u32 [%rd3+384], %r5;\n"
		"\tret;\n}\n";
	uint32_t o[128] = { 0 }, l;

	(void)state;
	run(ptx, "k", 32, o);
	for (l = 0; l < 32; l++) {
		assert_int_equal(o[l], l < 10 ? 100 : 102);
		assert_int_equal(o[32 + l], l == 3 || l >= 16 ? 5 : 15);
		assert_int_equal(o[64 + l], l < 8 ? 7 : 0);
		assert_int_equal(o[96 + l], l % 2 ? 3 * l : 0);
	}
}

/* 64 threads; those from 40 on return before the barrier, the others fill
 * shared memory, and thread 0 sums it after the barrier. */
static void test_barrier_after_exit(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.shared .align 4 .b8 s[256];\n"
		"\t.reg .b32 %r<10>;\n\t.reg .pred %p<4>;\n\t.reg .b64 %rd<3>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tsetp.ge.u32 %p1, %r1, 40;\n"
		"\t@%p1 bra $END;\n"
		"\tshl.b32 %r2, %r1, 2;\n"
		"\tmov.u32 %r3, s;\n"
		"\tadd.s32 %r4, %r3, %r2;\n"
		"\tst.shared.u32 [%r4], %r1;\n"
		"\tbar.sync 0;\n"
		"\tsetp.ne.u32 %p2, %r1, 0;\n"
		"\t@%p2 bra $END;\n"
		"\tmov.u32 %r5, 0;\n\tmov.u32 %r6, 0;\n"
		"$LOOP:\n"
		"\tld.shared.u32 %r7, [%r4];\n"
		"\tadd.s32 %r5, %r5, %r7;\n"
		"\tadd.s32 %r4, %r4, 4;\n"
		"\tadd.s32 %r6, %r6, 1;\n"
		"\tsetp.lt.u32 %p3, %r6, 40;\n"
		"\t@%p3 bra $LOOP;\n"
		"\tst.global.u32 [%rd1], %r5;\n"
		"$END:\n"
		"\tret;\n}\n";
	uint32_t o[1] = { 0 };

	(void)state;
	run(ptx, "k", 64, o);
	assert_int_equal(o[0], 780);
}

/* A warp reduction through volatile shared memory with no __syncwarp:
 * correct only if the lanes run each instruction together. */
static void test_implicit_warp_sync(void **state)
{
	static const char ptx[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.shared .align 4 .b8 s[128];\n"
		"\t.reg .b32 %r<12>;\n\t.reg .pred %p<3>;\n\t.reg .b64 %rd<2>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tshl.b32 %r2, %r1, 2;\n"
		"\tmov.u32 %r3, s;\n"
		"\tadd.s32 %r4, %r3, %r2;\n"
		"\tst.volatile.shared.u32 [%r4], %r1;\n"
		"\tsetp.ge.u32 %p1, %r1, 16;\n"
		"\t@%p1 bra $END;\n"
		"\tmov.u32 %r5, 64;\n"
		"$STEP:\n"
		"\tadd.s32 %r6, %r4, %r5;\n"
		"\tld.volatile.shared.u32 %r7, [%r4];\n"
		"\tld.volatile.shared.u32 %r8, [%r6];\n"
		"\tadd.s32 %r9, %r7, %r8;\n"
		"\tst.volatile.shared.u32 [%r4], %r9;\n"
		"\tshr.u32 %r5, %r5, 1;\n"
		"\tsetp.ge.u32 %p2, %r5, 4;\n"
		"\t@%p2 bra $STEP;\n"
		"\tsetp.ne.u32 %p2, %r1, 0;\n"
		"\t@%p2 bra $END;\n"
		"\tld.volatile.shared.u32 %r10, [%r4];\n"
		"\tst.global.u32 [%rd1], %r10;\n"
		"$END:\n"
		"\tret;\n}\n";
	uint32_t o[1] = { 0 };

	(void)state;
	run(ptx, "k", 32, o);
	assert_int_equal(o[0], 496);
}

/* brx.idx through a .branchtargets list, and a recursive .func whose
 * lanes recurse to different depths. */
static void test_indexed_branch_and_recursion(void **state)
{
	static const char ptx[] = HEADER
		".visible .func (.param .b32 r) fact(.param .b32 n)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .pred %p1;\n"
		"\tld.param.b32 %r1, [n];\n"
		"\tsetp.lt.u32 %p1, %r1, 2;\n"
		"\tmov.u32 %r3, 1;\n"
		"\t@%p1 bra $RET;\n"
		"\tsub.u32 %r2, %r1, 1;\n"
		"\t{\n\t.param .b32 a0;\n\tst.param.b32 [a0], %r2;\n\t.param .b32 r0;\n"
		"\tcall.uni (r0), fact, (a0);\n\tld.param.b32 %r3, [r0];\n\t}\n"
		"\tmul.lo.u32 %r3, %r3, %r1;\n"
		"$RET:\n"
		"\tst.param.b32 [r], %r3;\n"
		"\tret;\n}\n"
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tand.b32 %r2, %r1, 3;\n"
		"$TBL: .branchtargets $L0, $L1, $L2, $L3;\n"
		"\tbrx.idx %r2, $TBL;\n"
		"$L0:\n\tmov.u32 %r3, 10;\n\tbra $J;\n"
		"$L1:\n\tmov.u32 %r3, 11;\n\tbra $J;\n"
		"$L2:\n\tmov.u32 %r3, 12;\n\tbra $J;\n"
		"$L3:\n\tmov.u32 %r3, 13;\n"
		"$J:\n"
		"\tand.b32 %r4, %r1, 7;\n"
		"\t{\n\t.param .b32 a0;\n\tst.param.b32 [a0], %r4;\n\t.param .b32 r0;\n"
		"\tcall.uni (r0), fact, (a0);\n\tld.param.b32 %r5, [r0];\n\t}\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r3;\n"
		"\tst.global.u32 [%rd3+256], %r5;\n"
		"\tret;\n}\n";
	static const uint32_t fact[8] = { 1, 1, 2, 6, 24, 120, 720, 5040 };
	uint32_t o[128] = { 0 }, l;

	(void)state;
	run(ptx, "k", 64, o);
	for (l = 0; l < 64; l++) {
		assert_int_equal(o[l], 10 + l % 4);
		assert_int_equal(o[64 + l], fact[l % 8]);
	}
}

/* A barrier inside a device function (the warps get stacks of their
 * own): 64 threads each store their index in shared memory in the call,
 * wait there, and return their right neighbour's. */
static void test_barrier_in_function(void **state)
{
	static const char ptx[] = HEADER
		".shared .align 4 .b8 s[256];\n"
		".func (.param .b32 r) f(.param .b32 t)\n{\n"
		"\t.reg .b32 %r<8>;\n"
		"\tld.param.b32 %r1, [t];\n"
		"\tshl.b32 %r2, %r1, 2;\n"
		"\tmov.u32 %r3, s;\n"
		"\tadd.s32 %r4, %r3, %r2;\n"
		"\tst.shared.u32 [%r4], %r1;\n"
		"\tbar.sync 0;\n"
		"\tadd.s32 %r5, %r1, 1;\n"
		"\tand.b32 %r5, %r5, 63;\n"
		"\tshl.b32 %r5, %r5, 2;\n"
		"\tadd.s32 %r6, %r3, %r5;\n"
		"\tld.shared.u32 %r7, [%r6];\n"
		"\tst.param.b32 [r], %r7;\n"
		"\tret;\n}\n"
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<4>;\n"
		"\tld.param.u64 %rd1, [out];\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\t{\n\t.param .b32 a0;\n\tst.param.b32 [a0], %r1;\n\t.param .b32 r0;\n"
		"\tcall.uni (r0), f, (a0);\n\tld.param.b32 %r2, [r0];\n\t}\n"
		"\tmul.wide.u32 %rd2, %r1, 4;\n"
		"\tadd.s64 %rd3, %rd1, %rd2;\n"
		"\tst.global.u32 [%rd3], %r2;\n"
		"\tret;\n}\n";
	uint32_t o[64] = { 0 }, l;

	(void)state;
	run(ptx, "k", 64, o);
	for (l = 0; l < 64; l++)
		assert_int_equal(o[l], (l + 1) % 64);
}

/* A launch whose warps wait at barriers that cannot complete fails with a
 * message instead of hanging (64 threads: the first warp waits at
 * barrier 1 for 64 threads, the second exits); so does a thread count
 * that is not a multiple of 32. */
static void test_barrier_faults(void **state)
{
	static const char deadlock[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\t.reg .b32 %r<3>;\n\t.reg .pred %p<2>;\n"
		"\tmov.u32 %r1, %tid.x;\n"
		"\tsetp.ge.u32 %p1, %r1, 32;\n"
		"\t@%p1 bra $END;\n"
		"\tbar.sync 1, 64;\n"
		"$END:\n"
		"\tret;\n}\n";
	static const char count[] = HEADER
		".visible .entry k(.param .u64 out)\n{\n"
		"\tbar.sync 2, 48;\n"
		"\tret;\n}\n";
	uint32_t o[1] = { 0 };
	char msg[256];

	(void)state;
	assert_int_not_equal(run_status(deadlock, "k", 1, 64, o, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "barrier deadlock"));
	assert_int_not_equal(run_status(count, "k", 1, 64, o, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "not a nonzero multiple of 32"));
}

static void test_unsupported(void **state)
{
	(void)state;
	refused(HEADER ".visible .entry k(.param .u64 t)\n{\n"
		"\t.reg .f32 %f<8>;\n\t.reg .b64 %rd1;\n"
		"\tld.param.u64 %rd1, [t];\n"
		"\ttex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];\n"
		"\tret;\n}\n",
		"unsupported instruction 'tex.cube.v4.f32.f32' at line 9 (cubemap textures)");
	refused(HEADER ".global .texref tref;\n.visible .entry k()\n{\n"
		"\t.reg .f32 %f<8>;\n"
		"\ttex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [tref, {%f5, %f6}];\n"
		"\tret;\n}\n", "(texture and surface references (only objects))");
	refused(HEADER ".visible .entry k(.param .u64 t)\n{\n"
		"\t.reg .b32 %r<4>;\n\t.reg .b64 %rd1;\n"
		"\tld.param.u64 %rd1, [t];\n"
		"\tsust.p.2d.b32.trap [%rd1, {%r1, %r2}], {%r3};\n"
		"\tret;\n}\n", "(formatted surface stores (sust.p))");
	refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
		"\tadd.rz.s32 %r1, %r2, %r2;\n\tret;\n}\n",
		"unsupported instruction 'add.rz.s32' at line 7");
	refused(HEADER ".visible .entry k()\n{\n\t.reg .b32 %r<3>;\n"
		"\tbar.arrive 1;\n\tret;\n}\n", "bar.arrive needs a thread count");
	refused(HEADER ".extern .func foo();\n.visible .entry k()\n{\n"
		"\tcall.uni foo, ();\n\tret;\n}\n", "unknown extern function 'foo'");
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(cache_dir))
		return -1;
	return setenv("ANYGPU_CACHE_DIR", cache_dir, 1);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", cache_dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shift_clamp),
		cmocka_unit_test(test_division),
		cmocka_unit_test(test_cvt_saturation),
		cmocka_unit_test(test_rounding_modes),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_shfl_segments),
		cmocka_unit_test(test_shfl_unread_predicate),
		cmocka_unit_test(test_warp_calls),
		cmocka_unit_test(test_one_place_store),
		cmocka_unit_test(test_warp_bounds),
		cmocka_unit_test(test_reaching_constants),
		cmocka_unit_test(test_constant_registers),
		cmocka_unit_test(test_vote_divergent),
		cmocka_unit_test(test_divergent_joins),
		cmocka_unit_test(test_forms_kept),
		cmocka_unit_test(test_atomic_chain),
		cmocka_unit_test(test_step_form),
		cmocka_unit_test(test_lockstep_wide),
		cmocka_unit_test(test_offset_bases),
		cmocka_unit_test(test_shared_bases),
		cmocka_unit_test(test_short_branches),
		cmocka_unit_test(test_row_group_choice),
		cmocka_unit_test(test_stride_loops),
		cmocka_unit_test(test_block_sweeps),
		cmocka_unit_test(test_passed_guards),
		cmocka_unit_test(test_woven_block),
		cmocka_unit_test(test_ahead),
		cmocka_unit_test(test_ahead_end),
		cmocka_unit_test(test_barrier_after_exit),
		cmocka_unit_test(test_implicit_warp_sync),
		cmocka_unit_test(test_indexed_branch_and_recursion),
		cmocka_unit_test(test_barrier_in_function),
		cmocka_unit_test(test_barrier_faults),
		cmocka_unit_test(test_unsupported),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
