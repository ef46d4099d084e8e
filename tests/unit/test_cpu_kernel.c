/*
 * test_cpu_kernel.c - the whole cpu path on fatbins nvcc built from
 * cpu/kernels.cu: fatbin -> PTX -> parse -> translate -> cc -> cache ->
 * dlopen -> launch, with parameters, module variables, shared memory,
 * printf and assert; plus the errors: no PTX, a failing compiler, bad
 * launch configurations; two processes filling the cache at once; and the
 * cache's index, which lets a load skip the translation.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "backend.h"
#include "cpu/jit.h"

static const struct ag_backend_ops *ops = &ag_cpu_backend;

struct fixture {
	struct ag_backend *b;
	struct ag_module *m;
	char out[4096];         /* kernel printf output */
	size_t outlen;
};

static char cache_dir[] = "/tmp/anygpu-test-cpu-XXXXXX";

static void collect(void *ctx, const char *text, size_t len)
{
	struct fixture *f = ctx;
	if (f->outlen + len < sizeof(f->out)) {
		memcpy(f->out + f->outlen, text, len);
		f->outlen += len;
		f->out[f->outlen] = '\0';
	}
}

static void *read_file(const char *name, uint64_t *size)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	FILE *fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	long n = ftell(fp);
	rewind(fp);
	void *data = malloc((size_t)n);
	assert_int_equal(fread(data, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	*size = (uint64_t)n;
	return data;
}

static cudaError_t load(struct ag_backend *b, const char *name, struct ag_module **m)
{
	uint64_t size;
	void *image = read_file(name, &size);
	cudaError_t err = ops->module_load(b, image, size, m);
	free(image);
	return err;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct ag_open_args args = { .print = collect, .print_ctx = f };
	if (ops->open(0, &args, &f->b) != cudaSuccess)
		return -1;
	if (load(f->b, "kernels.fatbin", &f->m) != cudaSuccess) {
		fprintf(stderr, "module_load: %s\n", ops->last_message(f->b));
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	ops->close(f->b);
	free(f);
	return 0;
}

/* Packs parameter values (each given by address) as the kernel's layout
 * says, then launches. */
static cudaError_t launch(struct fixture *f, const char *name, unsigned grid, unsigned block,
			  unsigned shared, const void *const *values)
{
	struct ag_func *fn;
	const struct ag_func_info *info;
	unsigned char params[256] = { 0 };
	struct ag_launch_cfg cfg = { { grid, 1, 1 }, { block, 1, 1 }, shared, 0 };

	assert_int_equal(ops->module_func(f->b, f->m, name, &fn, &info), cudaSuccess);
	assert_true(info->param_bytes <= sizeof(params));
	for (uint32_t i = 0; i < info->nparams; i++)
		memcpy(params + info->params[i].offset, values[i], info->params[i].size);
	return ops->launch(f->b, NULL, fn, &cfg, params, info->param_bytes);
}

static ag_dptr alloc_copy(struct fixture *f, const void *src, uint64_t n)
{
	ag_dptr d;
	assert_int_equal(ops->mem_alloc(f->b, n, AG_MEM_DEVICE, &d), cudaSuccess);
	if (src)
		assert_int_equal(ops->copy_htod(f->b, NULL, d, src, n, AG_HOST_PAGEABLE, 0),
				 cudaSuccess);
	return d;
}

static void test_vadd(void **state)
{
	struct fixture *f = *state;
	enum { N = 1000 };
	float a[N], b[N], c[N];
	int n = N;

	for (int i = 0; i < N; i++) {
		a[i] = (float)i;
		b[i] = 0.5f * (float)i;
	}
	ag_dptr da = alloc_copy(f, a, sizeof(a)), db = alloc_copy(f, b, sizeof(b));
	ag_dptr dc = alloc_copy(f, NULL, sizeof(c));
	const void *args[] = { &da, &db, &dc, &n };
	assert_int_equal(launch(f, "vadd", (N + 255) / 256, 256, 0, args), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(f->b, NULL, c, dc, sizeof(c), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	for (int i = 0; i < N; i++)
		assert_true(c[i] == 1.5f * (float)i);
}

static void test_module_var(void **state)
{
	struct fixture *f = *state;
	ag_dptr counter;
	uint64_t size;
	int zero = 0, value = 0;

	assert_int_equal(ops->module_var(f->b, f->m, "counter", &counter, &size), cudaSuccess);
	assert_int_equal(size, sizeof(int));
	assert_int_equal(ops->copy_htod(f->b, NULL, counter, &zero, 4, AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(launch(f, "count", 10, 64, 0, NULL), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(f->b, NULL, &value, counter, 4, AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(value, 640);
	assert_int_equal(ops->module_var(f->b, f->m, "nothing", &counter, &size),
			 cudaErrorSymbolNotFound);
}

static void test_shared_barriers(void **state)
{
	struct fixture *f = *state;
	enum { BLOCKS = 8, THREADS = 128 };
	int in[BLOCKS * THREADS], out[BLOCKS];

	for (int i = 0; i < BLOCKS * THREADS; i++)
		in[i] = i;
	ag_dptr din = alloc_copy(f, in, sizeof(in)), dout = alloc_copy(f, NULL, sizeof(out));
	const void *args[] = { &din, &dout };
	assert_int_equal(launch(f, "block_sum", BLOCKS, THREADS, THREADS * sizeof(int), args),
			 cudaSuccess);
	assert_int_equal(ops->copy_dtoh(f->b, NULL, out, dout, sizeof(out), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	for (int blk = 0; blk < BLOCKS; blk++) {
		int want = 0;
		for (int t = 0; t < THREADS; t++)
			want += blk * THREADS + t;
		assert_int_equal(out[blk], want);
	}
}

static void test_printf(void **state)
{
	struct fixture *f = *state;
	int v = 42;
	double d = 2.5;
	const void *args[] = { &v, &d };

	assert_int_equal(launch(f, "hello", 3, 32, 0, args), cudaSuccess);
	assert_int_equal(ops->synchronize(f->b), cudaSuccess);
	assert_non_null(strstr(f->out, "hello 42 2.50 from block 0\n"));
	assert_non_null(strstr(f->out, "hello 42 2.50 from block 2\n"));
}

static void test_assert_reported_at_sync(void **state)
{
	struct fixture *f = *state;
	int data[32] = { 0 };
	data[5] = 1;
	ag_dptr d = alloc_copy(f, data, sizeof(data));
	const void *args[] = { &d };

	/* The launch itself succeeds: the failure shows at the next sync. */
	assert_int_equal(launch(f, "check_zero", 1, 32, 0, args), cudaSuccess);
	assert_int_equal(ops->synchronize(f->b), cudaErrorAssert);
	assert_non_null(strstr(ops->last_message(f->b), "check_zero"));
	assert_int_equal(ops->synchronize(f->b), cudaSuccess);
}

static void test_bad_launches(void **state)
{
	struct fixture *f = *state;
	struct ag_func *fn;
	const struct ag_func_info *info;
	unsigned char params[64] = { 0 };
	struct ag_launch_cfg big = { { 1, 1, 1 }, { 2048, 1, 1 }, 0, 0 };
	struct ag_launch_cfg empty = { { 0, 1, 1 }, { 32, 1, 1 }, 0, 0 };
	struct ag_launch_cfg deep = { { 1, 1, 1 }, { 1, 1, 65 }, 0, 0 };
	struct ag_launch_cfg shared = { { 1, 1, 1 }, { 32, 1, 1 }, 200 << 10, 0 };

	assert_int_equal(ops->module_func(f->b, f->m, "vadd", &fn, &info), cudaSuccess);
	assert_int_equal(info->nparams, 4);
	assert_int_equal(info->param_bytes, 28);
	assert_int_equal(ops->launch(f->b, NULL, fn, &big, params, 28),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(ops->launch(f->b, NULL, fn, &empty, params, 28),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(ops->launch(f->b, NULL, fn, &deep, params, 28),
			 cudaErrorInvalidConfiguration);
	assert_int_equal(ops->launch(f->b, NULL, fn, &shared, params, 28), cudaErrorInvalidValue);
	assert_int_equal(ops->launch(f->b, NULL, fn, &shared, params, 20), cudaErrorInvalidValue);
	assert_int_equal(ops->module_func(f->b, f->m, "nope", &fn, &info), cudaErrorSymbolNotFound);
}

/* Checks that dir holds exactly one .so, one .c and nothing else (no
 * temporary files left behind). */
/* How many files of dir (not dot files, not directories) end in suffix
 * ("" for all); path, unless NULL, gets the last one's. */
static int entries(const char *dir, const char *suffix, char *path, size_t size)
{
	DIR *d = opendir(dir);
	size_t k = strlen(suffix);
	int found = 0;

	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.' || e->d_type == DT_DIR || n <= k ||
		    strcmp(e->d_name + n - k, suffix))
			continue;
		if (path)
			snprintf(path, size, "%s/%s", dir, e->d_name);
		found++;
	}
	closedir(d);
	return found;
}

/* The cache in dir holds one module: its C, its .so and the index entry
 * of its PTX, and nothing else. */
static void check_one_entry(const char *dir)
{
	assert_int_equal(entries(dir, ".so", NULL, 0), 1);
	assert_int_equal(entries(dir, ".c", NULL, 0), 1);
	assert_int_equal(entries(dir, ".idx", NULL, 0), 1);
	assert_int_equal(entries(dir, "", NULL, 0), 3);
}

/* Loading again is a cache hit, and the cache holds one module. */
static void test_cache(void **state)
{
	struct fixture *f = *state;
	struct ag_module *again;

	assert_int_equal(load(f->b, "kernels.fatbin", &again), cudaSuccess);
	assert_int_equal(ops->module_unload(f->b, again), cudaSuccess);
	check_one_entry(cache_dir);
}

static void test_no_ptx(void **state)
{
	struct ag_backend *b;
	struct ag_module *m;

	ops->open(0, NULL, &b);
	assert_int_equal(load(b, "noptx.fatbin", &m), cudaErrorNoKernelImageForDevice);
	assert_true(strlen(ops->last_message(b)) > 0);
	ops->close(b);
}

static void test_compiler_fails(void **state)
{
	struct ag_backend *b;
	struct ag_module *m;

	setenv("ANYGPU_CC", "false", 1);
	ops->open(0, NULL, &b);
	assert_int_equal(load(b, "kernels.fatbin", &m), cudaErrorInvalidPtx);
	assert_non_null(strstr(ops->last_message(b), "'false' failed"));
	assert_non_null(strstr(ops->last_message(b), cache_dir));
	ops->close(b);
	unsetenv("ANYGPU_CC");
}

/* Two processes that miss the cache at the same moment both compile and
 * both succeed (each renames its own result into place). */
static void test_concurrent_compile(void **state)
{
	char dir[600];
	pid_t pid[2];
	int status;

	snprintf(dir, sizeof(dir), "%s/race", cache_dir);
	setenv("ANYGPU_CACHE_DIR", dir, 1);
	for (int i = 0; i < 2; i++) {
		pid[i] = fork();
		assert_true(pid[i] >= 0);
		if (pid[i] == 0) {
			struct ag_backend *b;
			struct ag_module *m;
			ops->open(0, NULL, &b);
			cudaError_t err = load(b, "kernels.fatbin", &m);
			ops->close(b);
			_exit(err == cudaSuccess ? 0 : 1);
		}
	}
	for (int i = 0; i < 2; i++) {
		assert_int_equal(waitpid(pid[i], &status, 0), pid[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	check_one_entry(dir);
	setenv("ANYGPU_CACHE_DIR", cache_dir, 1);
}

/* Loads ptx through the JIT; its key goes to key, whether the index found
 * it is returned. */
static int jit_load(const char *ptx, char key[65], double *compile_ms)
{
	struct ptx_module *m;
	struct ptx_error perr;
	struct ag_jit_module jm;
	struct strbuf err = STRBUF_INIT;
	int indexed;

	assert_int_equal(ptx_parse(ptx, strlen(ptx), &m, &perr), 0);
	if (ag_jit_load(ptx, strlen(ptx), m, &jm, &err))
		fail_msg("jit: %s", err.buf);
	assert_non_null(jm.kernels[0].name);
	memcpy(key, jm.key, 65);
	*compile_ms = jm.compile_ms;
	indexed = jm.indexed;
	ag_jit_unload(&jm);
	ptx_free(m);
	sb_free(&err);
	return indexed;
}

/* A second load of the same PTX finds its module through the index,
 * untranslated; a damaged entry, another ANYGPU_CPU_GROUPS or a missing
 * .so takes the long way, which gives the same module and mends the entry. */
static void test_index(void **state)
{
	static const char ptx[] = ".version 8.0\n.target sm_75\n.address_size 64\n"
				  ".visible .entry k(.param .u64 p)\n{\n\tret;\n}\n";
	char dir[600], idx[700], so[700], key[65], again[65];
	double ms;
	FILE *f;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/index", cache_dir);
	setenv("ANYGPU_CACHE_DIR", dir, 1);
	assert_false(jit_load(ptx, key, &ms));
	assert_true(ms > 0);
	assert_true(jit_load(ptx, again, &ms));
	assert_string_equal(again, key);
	assert_true(ms == 0);

	assert_int_equal(entries(dir, ".idx", idx, sizeof(idx)), 1);
	assert_non_null(f = fopen(idx, "w"));
	fputs("not a key\n", f);
	fclose(f);
	assert_false(jit_load(ptx, again, &ms));
	assert_string_equal(again, key);
	assert_true(jit_load(ptx, again, &ms));

	setenv("ANYGPU_CPU_GROUPS", "off", 1);
	assert_false(jit_load(ptx, again, &ms));
	assert_true(jit_load(ptx, again, &ms));
	unsetenv("ANYGPU_CPU_GROUPS");
	assert_true(jit_load(ptx, again, &ms));
	assert_string_equal(again, key);

	snprintf(so, sizeof(so), "%s/%s.so", dir, key);
	assert_int_equal(unlink(so), 0);
	assert_false(jit_load(ptx, again, &ms));
	assert_string_equal(again, key);
	assert_true(ms > 0);
	setenv("ANYGPU_CACHE_DIR", cache_dir, 1);
}

static int remove_dir(const char *path)
{
	DIR *d = opendir(path);
	char sub[600];
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
		if (unlink(sub) != 0)
			remove_dir(sub);
	}
	if (d)
		closedir(d);
	return rmdir(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vadd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_module_var, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_barriers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_printf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_assert_reported_at_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_launches, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
		cmocka_unit_test(test_no_ptx),
		cmocka_unit_test(test_compiler_fails),
		cmocka_unit_test(test_concurrent_compile),
		cmocka_unit_test(test_index),
	};
	if (!mkdtemp(cache_dir))
		return 1;
	setenv("ANYGPU_CACHE_DIR", cache_dir, 1);
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	remove_dir(cache_dir);
	return failed;
}
