/*
 * test_runtime_tables - the runtime's pointer map (handles, kernels,
 * variables) and allocation table (what an address is), against plain
 * arrays that do the same job slowly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rt.h"

#define KEYS 3000

/* Random puts and deletes, with keys chosen to collide in the table; after
 * every step each key maps to what the reference says. */
static void ptrmap_matches_reference(void **state)
{
	static void *ref[KEYS];
	struct rt_ptrmap m = { 0 };
	size_t live = 0;

	srand(7);
	for (int step = 0; step < 40000; step++) {
		size_t k = (size_t)rand() % KEYS;
		const void *key = (const void *)(uintptr_t)(0x1000 + k * 64);

		if (rand() % 3) {
			void *val = (void *)(uintptr_t)(step + 1);

			live += ref[k] == NULL;
			ref[k] = val;
			rt_ptrmap_put(&m, key, val);
		} else {
			live -= ref[k] != NULL;
			ref[k] = NULL;
			rt_ptrmap_del(&m, key);
		}
		if (step % 1000 == 0)
			for (size_t i = 0; i < KEYS; i++)
				assert_ptr_equal(rt_ptrmap_get(&m, (void *)(uintptr_t)(0x1000 + i * 64)),
						 ref[i]);
	}
	assert_int_equal(m.len, live);
	assert_null(rt_ptrmap_get(&m, NULL));
	assert_null(rt_ptrmap_get(&m, (void *)0x999));
	rt_ptrmap_free(&m);
	assert_null(rt_ptrmap_get(&m, (void *)0x1000));
}

static void add(uintptr_t base, uint64_t size, enum rt_mem kind, int dev)
{
	struct rt_range r = { .base = base, .size = size, .kind = kind, .dev = dev };

	rt_mem_add(&r);
}

static void memtable_finds_ranges(void **state)
{
	struct rt_range r;

	add(0x10000, 0x100, RT_MEM_DEVICE, 0);
	add(0x30000, 0x1000, RT_MEM_HOST, 0);
	add(0x20000, 0x10, RT_MEM_MANAGED, 1);

	assert_true(rt_mem_find((void *)0x10000, &r));
	assert_int_equal(r.base, 0x10000);
	assert_true(rt_mem_find((void *)0x100ff, &r));
	assert_int_equal(r.kind, RT_MEM_DEVICE);
	assert_false(rt_mem_find((void *)0x10100, &r));   /* one past the end */
	assert_false(rt_mem_find((void *)0xffff, &r));
	assert_true(rt_mem_find((void *)0x2000f, &r));
	assert_int_equal(r.dev, 1);
	assert_true(rt_mem_find((void *)0x30800, &r));
	assert_int_equal(r.kind, RT_MEM_HOST);

	/* Only the start of a range removes it. */
	assert_false(rt_mem_remove((void *)0x10001, &r));
	assert_true(rt_mem_remove((void *)0x10000, &r));
	assert_int_equal(r.size, 0x100);
	assert_false(rt_mem_find((void *)0x10000, &r));

	/* A reset drops the device's memory, not pinned host memory. */
	add(0x40000, 0x100, RT_MEM_SYMBOL, 0);
	rt_mem_drop_device(0);
	assert_false(rt_mem_find((void *)0x40000, &r));
	assert_true(rt_mem_find((void *)0x30000, &r));
	assert_true(rt_mem_find((void *)0x20000, &r));
	rt_mem_drop_device(1);
	assert_false(rt_mem_find((void *)0x20000, &r));
	assert_true(rt_mem_remove((void *)0x30000, &r));
}

/* Many ranges in random order; every probe agrees with a linear scan. */
static void memtable_matches_reference(void **state)
{
	enum { N = 500 };
	static struct rt_range ref[N];
	struct rt_range r;

	srand(11);
	for (int i = 0; i < N; i++) {
		int j = rand() % (i + 1);

		ref[i] = ref[j];
		ref[j] = (struct rt_range){ .base = 0x100000 + (uintptr_t)i * 0x1000,
					    .size = 1 + (uint64_t)(rand() % 0x1000),
					    .kind = RT_MEM_DEVICE, .dev = 2 };
	}
	for (int i = 0; i < N; i++)
		rt_mem_add(&ref[i]);
	for (int probe = 0; probe < 20000; probe++) {
		uintptr_t p = 0xff000 + (uintptr_t)(rand() % (N * 0x1000 + 0x2000));
		int want = -1;

		for (int i = 0; i < N; i++)
			if (p >= ref[i].base && p - ref[i].base < ref[i].size)
				want = i;
		assert_int_equal(rt_mem_find((void *)p, &r), want >= 0);
		if (want >= 0)
			assert_int_equal(r.base, ref[want].base);
	}
	rt_mem_drop_device(2);
	assert_false(rt_mem_find((void *)0x100000, &r));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(ptrmap_matches_reference),
		cmocka_unit_test(memtable_finds_ranges),
		cmocka_unit_test(memtable_matches_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
