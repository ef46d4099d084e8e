/*
 * test_cpu_exec.c - the block executor with hand-written kernels (plain C
 * functions of the kernel ABI): every block runs once with the right
 * ctaid, shared memory is per worker and large enough, the first error stops
 * the grid, faults are caught, cooperative grids have all blocks resident,
 * and the services (printf, assert, malloc) work.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <driver_types.h>

#include "cpu/exec.h"

struct count_params {
	unsigned *hits;         /* one counter per block */
	unsigned bad;           /* blocks whose ctaid or worker was out of range */
	unsigned nworkers_max;
};

static void count_kernel(struct ag_block *b)
{
	struct count_params *p = *(struct count_params **)b->env->params;
	const unsigned *n = b->env->nctaid;
	if (b->ctaid[0] >= n[0] || b->ctaid[1] >= n[1] || b->ctaid[2] >= n[2] ||
	    b->worker > p->nworkers_max)
		__atomic_fetch_add(&p->bad, 1, __ATOMIC_RELAXED);
	size_t i = ((size_t)b->ctaid[2] * n[1] + b->ctaid[1]) * n[0] + b->ctaid[0];
	__atomic_fetch_add(&p->hits[i], 1, __ATOMIC_RELAXED);
}

static struct ag_kernel_env grid_env(unsigned x, unsigned y, unsigned z, const void *params)
{
	struct ag_kernel_env env = {
		.nctaid = { x, y, z },
		.ntid = { 32, 1, 1 },
		.params = params,
	};
	return env;
}

static void test_every_block_once(void **state)
{
	struct ag_exec *x = ag_exec_new(NULL, NULL);
	struct count_params p = { .nworkers_max = (unsigned)sysconf(_SC_NPROCESSORS_ONLN) };
	struct count_params *pp = &p;
	struct ag_kernel_desc k = { .name = "count", .fn = count_kernel };
	char msg[256];

	p.hits = calloc(7 * 5 * 3, sizeof(*p.hits));
	struct ag_kernel_env env = grid_env(7, 5, 3, &pp);
	/* Twice: the pool is reused from one launch to the next. */
	for (int run = 1; run <= 2; run++) {
		assert_int_equal(ag_exec_run(x, &k, &env, 0, msg, sizeof(msg)), 0);
		for (int i = 0; i < 7 * 5 * 3; i++)
			assert_int_equal(p.hits[i], run);
	}
	assert_int_equal(p.bad, 0);
	free(p.hits);
	ag_exec_free(x);
}

/* Fills the whole shared buffer: ASan catches a short one. */
static void shared_kernel(struct ag_block *b)
{
	size_t n = 1000 + b->env->dyn_shared;
	int *misaligned = *(int **)b->env->params;
	if ((uintptr_t)b->shared % 16)
		__atomic_store_n(misaligned, 1, __ATOMIC_RELAXED);
	memset(b->shared, (int)b->ctaid[0], n);
}

static void test_shared_memory(void **state)
{
	struct ag_exec *x = ag_exec_new(NULL, NULL);
	struct ag_kernel_desc k = { .name = "shared", .fn = shared_kernel, .static_shared = 1000 };
	int misaligned = 0, *pm = &misaligned;
	char msg[256];

	struct ag_kernel_env env = grid_env(64, 1, 1, &pm);
	env.dyn_shared = 100;
	assert_int_equal(ag_exec_run(x, &k, &env, 0, msg, sizeof(msg)), 0);
	env.dyn_shared = 40000;	/* grows the buffers */
	assert_int_equal(ag_exec_run(x, &k, &env, 0, msg, sizeof(msg)), 0);
	assert_int_equal(misaligned, 0);
	ag_exec_free(x);
}

static void fault_kernel(struct ag_block *b)
{
	unsigned *ran = *(unsigned **)b->env->params;
	__atomic_fetch_add(ran, 1, __ATOMIC_RELAXED);
	if (b->ctaid[0] == 0) {
		b->tid[0] = 5;
		b->env->svc->fault(b, cudaErrorIllegalAddress, "load from 0x10");
	}
}

static void test_first_error_stops(void **state)
{
	struct ag_exec *x = ag_exec_new(NULL, NULL);
	struct ag_kernel_desc k = { .name = "faulty", .fn = fault_kernel };
	unsigned ran = 0, *pr = &ran;
	char msg[256];

	struct ag_kernel_env env = grid_env(1000000, 1, 1, &pr);
	assert_int_equal(ag_exec_run(x, &k, &env, 0, msg, sizeof(msg)), cudaErrorIllegalAddress);
	assert_true(ran < 1000000);
	assert_non_null(strstr(msg, "kernel faulty"));
	assert_non_null(strstr(msg, "thread [5,0,0]"));
	assert_non_null(strstr(msg, "load from 0x10"));
	ag_exec_free(x);
}

static void assert_kernel(struct ag_block *b)
{
	if (b->ctaid[0] == 2)
		b->env->svc->assertfail(b, "x > 0", "k.cu", 12, "void k(int)");
}

static void test_assert(void **state)
{
	struct ag_exec *x = ag_exec_new(NULL, NULL);
	struct ag_kernel_desc k = { .name = "_Z1ki", .fn = assert_kernel };
	char msg[256];

	struct ag_kernel_env env = grid_env(4, 1, 1, NULL);
	assert_int_equal(ag_exec_run(x, &k, &env, 0, msg, sizeof(msg)), cudaErrorAssert);
	assert_non_null(strstr(msg, "k.cu:12"));
	assert_non_null(strstr(msg, "block [2,0,0]"));
	assert_non_null(strstr(msg, "`x > 0`"));
	ag_exec_free(x);
}

static void wild_kernel(struct ag_block *b)
{
	volatile int *wild = *(volatile int **)b->env->params;
	if (b->ctaid[0] == 3)
		*wild = 1;
}

/* A wild store in a block ends the launch with cudaErrorIllegalAddress, not
 * the process; the pool and the thread keep working afterwards. */
static void test_fault_caught(void **state)
{
	struct ag_exec *x = ag_exec_new(NULL, NULL);
	struct ag_kernel_desc wild = { .name = "wild", .fn = wild_kernel };
	struct ag_kernel_desc ok = { .name = "ok", .fn = assert_kernel };
	int *bad = (int *)(uintptr_t)16;
	char msg[256];

	struct ag_kernel_env env = grid_env(64, 1, 1, &bad);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ag_exec_run(x, &wild, &env, 0, msg, sizeof(msg)),
				 cudaErrorIllegalAddress);
		assert_non_null(strstr(msg, "block [3,0,0]: illegal address 0x10"));
	}
	env = grid_env(2, 1, 1, NULL);
	assert_int_equal(ag_exec_run(x, &ok, &env, 0, msg, sizeof(msg)), 0);
	ag_exec_free(x);
}

struct grid_barrier {
	unsigned arrived, passed;
	unsigned char *seen;     /* one flag per block */
};

/* Every block waits at a grid-wide barrier: only possible when all blocks
 * are resident at once, as in a cooperative launch. */
static void barrier_kernel(struct ag_block *b)
{
	struct grid_barrier *g = *(struct grid_barrier **)b->env->params;
	unsigned n = b->env->nctaid[0];
	__atomic_fetch_add(&g->arrived, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&g->arrived, __ATOMIC_SEQ_CST) < n)
		sched_yield();
	g->seen[b->ctaid[0]] = 1;
	__atomic_fetch_add(&g->passed, 1, __ATOMIC_SEQ_CST);
}

static void test_resident_grid(void **state)
{
	struct ag_exec *x = ag_exec_new(NULL, NULL);
	struct ag_kernel_desc k = { .name = "grid_sync", .fn = barrier_kernel, .static_shared = 64 };
	unsigned n = 4 * (unsigned)sysconf(_SC_NPROCESSORS_ONLN) + 3;
	struct grid_barrier g = { 0, 0, calloc(n, 1) };
	struct grid_barrier *pg = &g;
	char msg[256];

	struct ag_kernel_env env = grid_env(n, 1, 1, &pg);
	assert_int_equal(ag_exec_run(x, &k, &env, 1, msg, sizeof(msg)), 0);
	assert_int_equal(g.passed, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(g.seen[i], 1);
	free(g.seen);
	ag_exec_free(x);
}

struct lines {
	char text[4096];
	size_t len;
	int calls;
};

static void collect(void *ctx, const char *text, size_t len)
{
	struct lines *l = ctx;
	assert_true(l->len + len < sizeof(l->text));
	memcpy(l->text + l->len, text, len);
	l->len += len;
	l->calls++;
}

static void printf_kernel(struct ag_block *b)
{
	struct { int block; int pad; double half; } args = { (int)b->ctaid[0], 0, b->ctaid[0] / 2.0 };
	void *p = b->env->svc->malloc(b, 64);
	b->env->svc->vprintf(b, "block %d half %.1f\n", &args);
	b->env->svc->free(b, p);
}

static void test_printf_service(void **state)
{
	struct lines l = { .len = 0 };
	struct ag_exec *x = ag_exec_new(collect, &l);
	struct ag_kernel_desc k = { .name = "p", .fn = printf_kernel };
	char msg[256];

	struct ag_kernel_env env = grid_env(8, 1, 1, NULL);
	assert_int_equal(ag_exec_run(x, &k, &env, 0, msg, sizeof(msg)), 0);
	assert_int_equal(l.calls, 8);
	l.text[l.len] = '\0';
	assert_non_null(strstr(l.text, "block 0 half 0.0\n"));
	assert_non_null(strstr(l.text, "block 7 half 3.5\n"));
	ag_exec_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_block_once),
		cmocka_unit_test(test_shared_memory),
		cmocka_unit_test(test_first_error_stops),
		cmocka_unit_test(test_assert),
		cmocka_unit_test(test_fault_caught),
		cmocka_unit_test(test_resident_grid),
		cmocka_unit_test(test_printf_service),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
