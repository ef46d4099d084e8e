/*
 * test_cpu_printf.c - device printf's argument buffer: natural alignment of
 * each argument, conversions rebuilt for snprintf, odd specs kept as text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "cpu/exec.h"

/* Builds an argument buffer as nvcc lays it out. */
struct args {
	_Alignas(8) unsigned char buf[256];
	size_t off;
};

static void put(struct args *a, const void *v, size_t size)
{
	a->off = (a->off + size - 1) & ~(size - 1);
	memcpy(a->buf + a->off, v, size);
	a->off += size;
}

static void put_i32(struct args *a, int32_t v) { put(a, &v, 4); }
static void put_i64(struct args *a, int64_t v) { put(a, &v, 8); }
static void put_f64(struct args *a, double v) { put(a, &v, 8); }
static void put_ptr(struct args *a, const void *p) { put(a, &p, 8); }

static void check(const char *fmt, const struct args *a, const char *want)
{
	struct strbuf sb = STRBUF_INIT;
	int n = ag_printf_format(&sb, fmt, a ? a->buf : NULL);
	assert_string_equal(sb.buf ? sb.buf : "", want);
	assert_int_equal(n, strlen(want));
	sb_free(&sb);
}

static void test_natural_alignment(void **state)
{
	struct args a = { 0 };
	/* int at 0, int at 4, long long at 8: not 8-byte slots. */
	put_i32(&a, 7);
	put_i32(&a, -3);
	put_i64(&a, 1234567890123LL);
	put_i32(&a, 'x');
	put_f64(&a, 2.5);
	assert_int_equal(a.off, 32);
	check("%d %d %lld %c %.2f", &a, "7 -3 1234567890123 x 2.50");
}

static void test_kinds(void **state)
{
	struct args a = { 0 };
	put_ptr(&a, "abc");
	put_i32(&a, 255);
	put_i64(&a, -1);
	put_i32(&a, 65535 + 3);
	put_f64(&a, 1e10);
	put_ptr(&a, NULL);
	put_i64(&a, 42);
	check("[%s] %#x %lu %hu %e %s %zu", &a,
	      "[abc] 0xff 18446744073709551615 2 1.000000e+10 (null) 42");
}

static void test_flags_width_star(void **state)
{
	struct args a = { 0 };
	put_i32(&a, 6);
	put_i32(&a, 42);
	put_i32(&a, 3);
	put_f64(&a, 3.14159);
	put_i32(&a, -5);
	put_i32(&a, 7);
	check("|%*d|%.*f|%-4d|%+05d|", &a, "|    42|3.142|-5  |+0007|");
}

static void test_plain_and_percent(void **state)
{
	check("hello\n", NULL, "hello\n");
	check("100%% sure", NULL, "100% sure");
	check("odd %y spec", NULL, "odd %y spec");
	check("trailing %", NULL, "trailing %");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_natural_alignment),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_flags_width_star),
		cmocka_unit_test(test_plain_and_percent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
