/*
 * test_cpu_stream.c - the cpu backend's streams, events and memory, driven
 * through backend.h with host functions, copies and memsets (no kernels).
 *
 * Ordering is observed, not assumed: a slow host function sets a flag when
 * it ends, and a later command records what it saw.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <sys/mman.h>

#include "backend.h"

static const struct ag_backend_ops *ops = &ag_cpu_backend;

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

/* A slow step: sleeps, then sets *flag. */
struct slow {
	int ms;
	volatile int flag;
};

static void slow_fn(void *arg)
{
	struct slow *s = arg;
	sleep_ms(s->ms);
	s->flag = 1;
}

/* Records the value of *watch when it runs. */
struct probe {
	volatile int *watch;
	int seen;
	int ran;
};

static void probe_fn(void *arg)
{
	struct probe *p = arg;
	p->seen = *p->watch;
	p->ran = 1;
}

static int setup(void **state)
{
	struct ag_backend *b;
	if (ops->open(0, NULL, &b) != cudaSuccess)
		return -1;
	*state = b;
	return 0;
}

static int teardown(void **state)
{
	ops->close(*state);
	return 0;
}

static void test_info(void **state)
{
	struct ag_backend *b = *state;
	struct ag_device_info d;
	uint64_t free_bytes, total;

	assert_int_equal(ops->info(b, &d), cudaSuccess);
	assert_memory_equal(d.name, "anygpu CPU (", 12);
	assert_int_equal(d.warp_size, 32);
	assert_int_equal(d.cc_major, 8);
	assert_true(d.sm_count >= 1);
	assert_true(d.total_mem > 0);
	assert_int_equal(ops->mem_info(b, &free_bytes, &total), cudaSuccess);
	assert_true(free_bytes <= total);
	assert_int_equal(ops->probe(NULL, 0), 1);
}

static void test_memory(void **state)
{
	struct ag_backend *b = *state;
	ag_dptr p, q;
	char buf[16];

	assert_int_equal(ops->mem_alloc(b, 1000, AG_MEM_DEVICE, &p), cudaSuccess);
	assert_int_equal(p % 256, 0);
	assert_ptr_equal(ops->host_ptr(b, p + 10), (void *)(uintptr_t)(p + 10));
	assert_null(ops->host_ptr(b, (ag_dptr)(uintptr_t)buf));
	assert_int_equal(ops->mem_free(b, p + 8), cudaErrorInvalidValue);
	assert_int_equal(ops->copy_htod(b, NULL, (ag_dptr)(uintptr_t)buf, "x", 1,
					AG_HOST_PAGEABLE, 0), cudaErrorInvalidValue);
	/* A copy that runs past the end of the allocation is refused. */
	assert_int_equal(ops->copy_dtoh(b, NULL, buf, p + 1020, 16, AG_HOST_PAGEABLE, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(ops->mem_alloc(b, 0, AG_MEM_DEVICE, &q), cudaSuccess);
	assert_int_equal(q, 0);
	assert_int_equal(ops->mem_free(b, 0), cudaSuccess);
	assert_int_equal(ops->mem_free(b, p), cudaSuccess);
	assert_int_equal(ops->mem_free(b, p), cudaErrorInvalidValue);
	assert_non_null(strstr(ops->last_message(b), "not an allocation"));

	/* More than the device has fails cleanly, quota or not. */
	struct ag_device_info d;
	ops->info(b, &d);
	assert_int_equal(ops->mem_alloc(b, d.total_mem + 1, AG_MEM_DEVICE, &q),
			 cudaErrorMemoryAllocation);
	assert_int_equal(ops->mem_alloc(b, ~0ull, AG_MEM_DEVICE, &q), cudaErrorMemoryAllocation);
}

static void test_mem_limit(void **state)
{
	struct ag_open_args args = { .mem_limit = 1 << 20 };
	struct ag_backend *b;
	struct ag_device_info d;
	ag_dptr p, q;
	uint64_t free_bytes, total;

	assert_int_equal(ops->open(0, &args, &b), cudaSuccess);
	ops->info(b, &d);
	assert_int_equal(d.total_mem, 1 << 20);
	assert_int_equal(ops->mem_alloc(b, 768 << 10, AG_MEM_DEVICE, &p), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, 512 << 10, AG_MEM_MANAGED, &q),
			 cudaErrorMemoryAllocation);
	ops->mem_info(b, &free_bytes, &total);
	assert_int_equal(total, 1 << 20);
	assert_true(free_bytes <= 256 << 10);
	assert_int_equal(ops->mem_alloc(b, 256 << 10, AG_MEM_MANAGED, &q), cudaSuccess);
	/* Left allocated: close() frees it (ASan would see a leak otherwise). */
	ops->close(b);
}

/* Whether the mapping that holds p carries the huge page advice (VmFlags
 * "hg" in /proc/self/smaps). */
static int advised_huge(ag_dptr p)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long lo, hi;
	int inside = 0, hg = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			inside = p >= lo && p < hi;
		else if (inside && strncmp(line, "VmFlags:", 8) == 0)
			hg = strstr(line, " hg") != NULL;
	}
	fclose(f);
	return hg;
}

/* Allocations of 2 MiB and more: 2 MiB-aligned mappings advised to use
 * huge pages, counted against the quota as the size asked for (rounded to
 * 256, not to 2 MiB), usable to their end, gone from the address space
 * once freed. */
static void test_large_memory(void **state)
{
	struct ag_open_args args = { .mem_limit = 4 << 20 };
	const uint64_t big = (3 << 20) + 100, rounded = (3 << 20) + 256;
	struct ag_backend *b;
	ag_dptr p, q;
	unsigned char last[256], vec;

	assert_int_equal(ops->open(0, &args, &b), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, big, AG_MEM_DEVICE, &p), cudaSuccess);
	assert_int_equal(p % (2 << 20), 0);
	assert_true(advised_huge(p));
	assert_int_equal(ops->memset(b, NULL, p, 0x5a, rounded, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, last, p + rounded - sizeof(last), sizeof(last),
					AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(last[0], 0x5a);
	assert_int_equal(last[sizeof(last) - 1], 0x5a);
	assert_int_equal(ops->copy_dtoh(b, NULL, last, p + rounded - 1, 2, AG_HOST_PAGEABLE, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(ops->mem_free(b, p + (2 << 20)), cudaErrorInvalidValue);
	/* The rest of the quota is exactly what the rounded size left. */
	assert_int_equal(ops->mem_alloc(b, (4 << 20) - rounded + 1, AG_MEM_DEVICE, &q),
			 cudaErrorMemoryAllocation);
	assert_int_equal(ops->mem_alloc(b, (4 << 20) - rounded, AG_MEM_DEVICE, &q), cudaSuccess);
	assert_int_equal(ops->mem_free(b, q), cudaSuccess);
	assert_int_equal(ops->mem_free(b, p), cudaSuccess);
	assert_int_equal(mincore((void *)(uintptr_t)p, 4096, &vec), -1);
	assert_int_equal(errno, ENOMEM);
	/* A large allocation left at close() is unmapped by it. */
	assert_int_equal(ops->mem_alloc(b, 2 << 20, AG_MEM_DEVICE, &p), cudaSuccess);
	ops->close(b);
	assert_int_equal(mincore((void *)(uintptr_t)p, 4096, &vec), -1);
}

static void test_copies_and_memset(void **state)
{
	struct ag_backend *b = *state;
	unsigned char src[300], dst[300];
	ag_dptr d1, d2;

	for (int i = 0; i < 300; i++)
		src[i] = (unsigned char)i;
	assert_int_equal(ops->mem_alloc(b, 300, AG_MEM_DEVICE, &d1), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, 300, AG_MEM_DEVICE, &d2), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d1, src, 300, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(ops->memset(b, NULL, d2, 0xab, 300, 1), cudaSuccess);
	assert_int_equal(ops->copy_dtod(b, NULL, d2 + 100, d1 + 100, 100, 1), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d2, 300, AG_HOST_PAGEABLE, 0), cudaSuccess);
	for (int i = 0; i < 300; i++)
		assert_int_equal(dst[i], i >= 100 && i < 200 ? i : 0xab);
	ops->mem_free(b, d1);
	ops->mem_free(b, d2);
}

/* An async copy from pageable memory has read it when it returns, even
 * while the stream is still busy with earlier work. */
static void test_pageable_async(void **state)
{
	struct ag_backend *b = *state;
	struct ag_stream *s;
	struct slow slow = { 50, 0 };
	int src = 1, out = 0;
	ag_dptr d;

	ops->stream_create(b, cudaStreamNonBlocking, 0, &s);
	ops->mem_alloc(b, sizeof(int), AG_MEM_DEVICE, &d);
	ops->host_func(b, s, slow_fn, &slow);
	assert_int_equal(ops->copy_htod(b, s, d, &src, sizeof(src), AG_HOST_PAGEABLE, 1),
			 cudaSuccess);
	src = 2;
	assert_int_equal(ops->copy_dtoh(b, s, &out, d, sizeof(out), AG_HOST_PAGEABLE, 1),
			 cudaSuccess);
	/* Device to pageable host memory is complete when the call returns. */
	assert_int_equal(out, 1);
	assert_int_equal(slow.flag, 1);
	assert_int_equal(ops->stream_sync(b, s), cudaSuccess);
	ops->stream_destroy(b, s);
	ops->mem_free(b, d);
}

static void test_stream_order(void **state)
{
	struct ag_backend *b = *state;
	struct ag_stream *s;
	struct slow slow = { 50, 0 };
	struct probe probe = { &slow.flag, 0, 0 };

	assert_int_equal(ops->stream_create(b, 0, 0, &s), cudaSuccess);
	assert_int_equal(ops->stream_query(b, s), cudaSuccess);
	assert_int_equal(ops->host_func(b, s, slow_fn, &slow), cudaSuccess);
	assert_int_equal(ops->host_func(b, s, probe_fn, &probe), cudaSuccess);
	assert_int_equal(ops->stream_query(b, s), cudaErrorNotReady);
	assert_int_equal(ops->stream_sync(b, s), cudaSuccess);
	assert_int_equal(probe.ran, 1);
	assert_int_equal(probe.seen, 1);
	assert_int_equal(ops->stream_query(b, s), cudaSuccess);
	assert_int_equal(ops->stream_destroy(b, s), cudaSuccess);
	assert_int_equal(ops->stream_destroy(b, s), cudaErrorInvalidResourceHandle);
	assert_int_equal(ops->stream_sync(b, (struct ag_stream *)&slow),
			 cudaErrorInvalidResourceHandle);
}

/* Legacy stream work waits for blocking streams and they for it; a
 * non-blocking stream is independent of it. */
static void test_legacy_stream(void **state)
{
	struct ag_backend *b = *state;
	struct ag_stream *blocking, *nonblocking;
	struct slow a = { 60, 0 }, c = { 60, 0 }, nb = { 800, 0 };
	struct probe after_a = { &a.flag, 0, 0 }, after_c = { &c.flag, 0, 0 };
	struct probe after_nb = { &nb.flag, 0, 0 };

	ops->stream_create(b, 0, 0, &blocking);
	ops->stream_create(b, cudaStreamNonBlocking, 0, &nonblocking);

	ops->host_func(b, nonblocking, slow_fn, &nb);
	ops->host_func(b, blocking, slow_fn, &a);
	ops->host_func(b, NULL, probe_fn, &after_a);
	ops->host_func(b, NULL, probe_fn, &after_nb);
	ops->host_func(b, NULL, slow_fn, &c);
	ops->host_func(b, blocking, probe_fn, &after_c);

	assert_int_equal(ops->stream_sync(b, blocking), cudaSuccess);
	assert_int_equal(after_a.seen, 1);
	assert_int_equal(after_c.seen, 1);
	assert_int_equal(after_nb.ran, 1);
	assert_int_equal(after_nb.seen, 0);
	/* Syncing the legacy stream waits for the blocking stream, not for
	 * the non-blocking one. */
	a.flag = 0;
	ops->host_func(b, blocking, slow_fn, &a);
	assert_int_equal(ops->stream_sync(b, NULL), cudaSuccess);
	assert_int_equal(a.flag, 1);
	assert_int_equal(nb.flag, 0);
	assert_int_equal(ops->synchronize(b), cudaSuccess);
	assert_int_equal(nb.flag, 1);
	ops->stream_destroy(b, blocking);
	ops->stream_destroy(b, nonblocking);
}

static void test_events(void **state)
{
	struct ag_backend *b = *state;
	struct ag_stream *s;
	struct ag_event *e0, *e1, *notime;
	struct slow slow = { 40, 0 };
	float ms = 0;

	ops->stream_create(b, 0, 0, &s);
	assert_int_equal(ops->event_create(b, 0, &e0), cudaSuccess);
	assert_int_equal(ops->event_create(b, 0, &e1), cudaSuccess);
	assert_int_equal(ops->event_create(b, cudaEventDisableTiming, &notime), cudaSuccess);
	assert_int_equal(ops->event_query(b, e0), cudaSuccess);
	assert_int_equal(ops->event_elapsed(b, e0, e1, &ms), cudaErrorInvalidResourceHandle);

	ops->event_record(b, e0, s);
	ops->host_func(b, s, slow_fn, &slow);
	ops->event_record(b, e1, s);
	ops->event_record(b, notime, s);
	assert_int_equal(ops->event_query(b, e1), cudaErrorNotReady);
	assert_int_equal(ops->event_elapsed(b, e0, e1, &ms), cudaErrorNotReady);
	assert_int_equal(ops->event_sync(b, e1), cudaSuccess);
	assert_int_equal(slow.flag, 1);
	assert_int_equal(ops->event_query(b, e1), cudaSuccess);
	assert_int_equal(ops->event_elapsed(b, e0, e1, &ms), cudaSuccess);
	assert_true(ms >= 39.0f && ms < 2000.0f);
	assert_int_equal(ops->event_sync(b, notime), cudaSuccess);
	assert_int_equal(ops->event_elapsed(b, e0, notime, &ms), cudaErrorInvalidResourceHandle);

	/* Destroying an event whose record is still pending is allowed. */
	slow.flag = 0;
	ops->host_func(b, s, slow_fn, &slow);
	ops->event_record(b, e1, s);
	assert_int_equal(ops->event_destroy(b, e1), cudaSuccess);
	assert_int_equal(ops->event_query(b, e1), cudaErrorInvalidResourceHandle);
	assert_int_equal(ops->stream_sync(b, s), cudaSuccess);

	ops->event_destroy(b, e0);
	ops->event_destroy(b, notime);
	ops->stream_destroy(b, s);
}

static void test_stream_wait_event(void **state)
{
	struct ag_backend *b = *state;
	struct ag_stream *s1, *s2;
	struct ag_event *e;
	struct slow slow = { 50, 0 };
	struct probe probe = { &slow.flag, 0, 0 };

	ops->stream_create(b, cudaStreamNonBlocking, 0, &s1);
	ops->stream_create(b, cudaStreamNonBlocking, 0, &s2);
	ops->event_create(b, cudaEventDisableTiming, &e);
	ops->host_func(b, s1, slow_fn, &slow);
	ops->event_record(b, e, s1);
	assert_int_equal(ops->stream_wait_event(b, s2, e), cudaSuccess);
	ops->host_func(b, s2, probe_fn, &probe);
	/* The event and the first stream may go away while s2 waits. */
	ops->event_destroy(b, e);
	ops->stream_destroy(b, s1);
	assert_int_equal(ops->stream_sync(b, s2), cudaSuccess);
	assert_int_equal(probe.seen, 1);
	ops->stream_destroy(b, s2);
}

/* Work still queued at close() is finished, then everything is freed. */
static void test_close_with_work(void **state)
{
	struct ag_backend *b;
	struct ag_stream *s;
	struct slow slow = { 30, 0 };

	ops->open(0, NULL, &b);
	ops->stream_create(b, 0, 0, &s);
	ops->host_func(b, s, slow_fn, &slow);
	ops->close(b);
	assert_int_equal(slow.flag, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_memory, setup, teardown),
		cmocka_unit_test(test_mem_limit),
		cmocka_unit_test(test_large_memory),
		cmocka_unit_test_setup_teardown(test_copies_and_memset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pageable_async, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_legacy_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream_wait_event, setup, teardown),
		cmocka_unit_test(test_close_with_work),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
