/*
 * check.h - what every CUDA test program shares: checking the status of
 * each CUDA call, comparing results with the host's own computation, and
 * the verdict.  A program calls check() or check_array() for each fact it
 * tests and ends with `return verdict("name");`, which prints PASS only
 * when no check failed.  The first few differences are printed on stderr.
 */
#ifndef AG_TEST_CHECK_H
#define AG_TEST_CHECK_H

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

/* A CUDA call that must succeed; the program cannot go on if it fails. */
#define CK(call) ck_at((call), #call, __FILE__, __LINE__)

/* A CUDA call that must return exactly the status want. */
#define CK_EXPECT(call, want) ck_expect_at((call), (want), #call, __FILE__, __LINE__)

#define MAX_REPORTED 8

static int failures;

static inline void ck_at(cudaError_t e, const char *what, const char *file, int line)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "%s:%d: %s: %s (%s)\nFAIL\n", file, line, what,
		cudaGetErrorName(e), cudaGetErrorString(e));
	exit(1);
}

/* Whether device 0 is anygpu's cpu engine, here or behind a server.  A
 * few facts are the engine's own: its name, the exact budget of the
 * device malloc heap (a GPU's driver rounds it up), and the traps it
 * springs where a GPU goes on (grid.sync() in a launch that is not
 * cooperative). */
static inline bool on_cpu_engine(void)
{
	cudaDeviceProp p;

	return cudaGetDeviceProperties(&p, 0) == cudaSuccess && !strncmp(p.name, "anygpu CPU", 10);
}

/* Records one failed fact; prints the first MAX_REPORTED of them. */
static inline bool check(bool ok, const char *fmt, ...)
{
	if (ok)
		return true;
	if (failures++ < MAX_REPORTED) {
		va_list ap;
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	return false;
}

static inline bool ck_expect_at(cudaError_t got, cudaError_t want, const char *what,
				const char *file, int line)
{
	return check(got == want, "%s:%d: %s returned %s, want %s", file, line, what,
		     cudaGetErrorName(got), cudaGetErrorName(want));
}

static inline bool close_enough(double got, double want, double tol)
{
	if (std::isnan(want))
		return std::isnan(got);
	if (got == want)
		return true;
	return fabs(got - want) <= tol * fmax(1.0, fabs(want));
}

static inline void report_value(const char *what, size_t i, double got, double want)
{
	check(false, "%s[%zu]: got %.9g, want %.9g", what, i, got, want);
}

static inline void report_value(const char *what, size_t i, long long got, long long want)
{
	check(false, "%s[%zu]: got %lld (%#llx), want %lld (%#llx)", what, i, got,
	      (unsigned long long)got, want, (unsigned long long)want);
}

/*
 * Compares n results with the host's; floating point within a relative
 * tolerance tol (0: exact).  Returns the number of differences.
 */
template <typename T>
static size_t check_array(const char *what, const T *got, const T *want, size_t n,
			  double tol = 0)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		bool same = tol > 0 ? close_enough(got[i], want[i], tol) : got[i] == want[i];
		if (same)
			continue;
		if (bad++ < MAX_REPORTED) {
			if ((T)0.5 != 0)
				report_value(what, i, (double)got[i], (double)want[i]);
			else
				report_value(what, i, (long long)got[i], (long long)want[i]);
		} else {
			failures++;
		}
	}
	if (bad > MAX_REPORTED)
		fprintf(stderr, "%s: %zu of %zu values differ\n", what, bad, n);
	return bad;
}

static inline int verdict(const char *name)
{
	if (failures) {
		printf("FAIL %s: %d checks failed\n", name, failures);
		return 1;
	}
	printf("PASS %s\n", name);
	return 0;
}

#endif
