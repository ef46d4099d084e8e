/*
 * cuda_bench.h - the CUDA side's helpers: checked runtime calls, copies,
 * and the timing loop.  Each timed run is bracketed by two cudaEvents on the
 * default stream, so the time includes the launches, as a CUDA programmer
 * would measure it.
 */
#ifndef CUDA_BENCH_H
#define CUDA_BENCH_H

#include <cuda_runtime.h>
#include "../common/bench.h"

#define CK(call) bench_ck((call), #call)

typedef void (*bench_fn)(void *ctx);

static inline void bench_ck(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "bench: %s: %s\n", what, cudaGetErrorString(e));
		exit(1);
	}
}

static inline void *bench_device(size_t bytes)
{
	void *p;

	CK(cudaMalloc(&p, bytes));
	return p;
}

static inline void *bench_to_device(const void *host, size_t bytes)
{
	void *p = bench_device(bytes);

	CK(cudaMemcpy(p, host, bytes, cudaMemcpyHostToDevice));
	return p;
}

/* Waits for the launches so far and surfaces their errors. */
static inline void bench_sync(void)
{
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
}

/* The warm-up run: its result, copied back to host, goes to -o. */
static inline void bench_warm_up(const struct bench_args *a, bench_fn run, void *ctx,
				 enum bench_type type, void *host, const void *dev, size_t count)
{
	run(ctx);
	bench_sync();
	CK(cudaMemcpy(host, dev, count * 4, cudaMemcpyDeviceToHost));
	bench_write(a, type, host, count);
}

static inline void bench_time(const struct bench_args *a, const char *name, bench_fn run,
			      void *ctx, double bytes, double flops)
{
	double ms[BENCH_MAX_REPS];
	cudaEvent_t start, stop;
	float t;
	int i;

	CK(cudaEventCreate(&start));
	CK(cudaEventCreate(&stop));
	for (i = 0; i < a->reps; i++) {
		CK(cudaEventRecord(start, 0));
		run(ctx);
		CK(cudaGetLastError());
		CK(cudaEventRecord(stop, 0));
		CK(cudaEventSynchronize(stop));
		CK(cudaEventElapsedTime(&t, start, stop));
		ms[i] = t;
	}
	CK(cudaEventDestroy(start));
	CK(cudaEventDestroy(stop));
	bench_report(name, "cuda", ms, a->reps, bytes, flops);
}

#endif
