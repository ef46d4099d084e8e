/*
 * test_cuda_backend.c - the cuda backend where the NVIDIA driver may be
 * missing: probe() counts devices or says plainly why there are none, and
 * open() fails cleanly then; with a GPU, one device opens and a copy
 * round-trips through its memory.
 */
#include "backend.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <string.h>

static void test_probe_open(void **state)
{
	const struct ag_backend_ops *ops = ag_backend_find("cuda");
	struct ag_backend *b = NULL;
	char msg[256] = "";
	int n, v = 77, out = 0;
	ag_dptr d;

	assert_non_null(ops);
	n = ops->probe(msg, sizeof(msg));
	if (n == 0) {
		print_message("cuda backend: %s\n", msg);
		assert_true(strlen(msg) > 0);
		assert_int_not_equal(ops->open(0, NULL, &b), cudaSuccess);
		assert_null(b);
		return;
	}
	assert_int_equal(ops->open(0, NULL, &b), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, sizeof(v), AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d, &v, sizeof(v), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, &out, d, sizeof(out), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(out, v);
	assert_int_equal(ops->mem_free(b, d), cudaSuccess);
	ops->close(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
