/*
 * omp_bench.h - the OpenMP side's helpers: the warm-up that writes the
 * result, and the timing loop (omp_get_wtime around each whole run).
 */
#ifndef OMP_BENCH_H
#define OMP_BENCH_H

#include <omp.h>
#include "../common/bench.h"

typedef void (*bench_fn)(void *ctx);

static inline void bench_warm_up(const struct bench_args *a, bench_fn run, void *ctx,
				 enum bench_type type, const void *result, size_t count)
{
	run(ctx);
	bench_write(a, type, result, count);
}

static inline void bench_time(const struct bench_args *a, const char *name, bench_fn run,
			      void *ctx, double bytes, double flops)
{
	double ms[BENCH_MAX_REPS];
	double t;
	int i;

	for (i = 0; i < a->reps; i++) {
		t = omp_get_wtime();
		run(ctx);
		ms[i] = (omp_get_wtime() - t) * 1e3;
	}
	bench_report(name, "omp", ms, a->reps, bytes, flops);
}

#endif
