/*
 * stream.c - the machine's memory bandwidth as STREAM's triad measures it:
 * a[i] = b[i] + s * c[i] over three arrays of 16 Mi doubles (each 4 times
 * the L3 cache and more), on all OpenMP threads, first touched by the
 * threads that use them.  Counts 24 bytes per element, as STREAM does, and
 * reports the best of 10 runs.  Prints one line: STREAM triad_gbs=X
 */
#include <omp.h>
#include "common/bench.h"

#define N (1 << 24)
#define RUNS 10

static void triad(double *restrict a, const double *restrict b, const double *restrict c)
{
	const double s = 3.0;
	int i;

#pragma omp parallel for simd schedule(static)
	for (i = 0; i < N; i++)
		a[i] = b[i] + s * c[i];
}

int main(void)
{
	double *a = bench_alloc(N * sizeof(double));
	double *b = bench_alloc(N * sizeof(double));
	double *c = bench_alloc(N * sizeof(double));
	double best = 1e30, t;
	int i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < N; i++) {
		a[i] = 0;
		b[i] = 1;
		c[i] = 2;
	}
	for (i = 0; i < RUNS; i++) {
		t = omp_get_wtime();
		triad(a, b, c);
		t = omp_get_wtime() - t;
		if (t < best)
			best = t;
	}
	if (a[N / 2] != 7.0)
		bench_die("triad computed a wrong value");
	printf("STREAM triad_gbs=%.2f\n", 24.0 * N / best / 1e9);
	free(a);
	free(b);
	free(c);
	return 0;
}
