/*
 * sgemm_main.h - the host side both CUDA SGEMMs share: 512 x 512
 * row-major inputs, the copies, the warm-up and the timing.  The including
 * file defines SGEMM_NAME and, after this header, run() launching its kernel.
 */
#ifndef SGEMM_MAIN_H
#define SGEMM_MAIN_H

#include "cuda_bench.h"

struct ctx {
	const float *a, *b;
	float *c;
	int n;
};

static void run(void *p);

static void measure(const struct bench_args *a, const float *ha, const float *hb, float *hc, int n)
{
	size_t bytes = (size_t)n * n * sizeof(float);
	struct ctx x;

	x.a = (const float *)bench_to_device(ha, bytes);
	x.b = (const float *)bench_to_device(hb, bytes);
	x.c = (float *)bench_device(bytes);
	x.n = n;
	bench_warm_up(a, run, &x, BENCH_F32, hc, x.c, (size_t)n * n);
	bench_time(a, SGEMM_NAME, run, &x, 0, 2.0 * n * n * n);
	CK(cudaFree((void *)x.a));
	CK(cudaFree((void *)x.b));
	CK(cudaFree(x.c));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	float *ha, *hb, *hc;
	size_t bytes;
	int n;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 67 : 512;
	bytes = (size_t)n * n * sizeof(float);
	ha = (float *)bench_alloc(bytes);
	hb = (float *)bench_alloc(bytes);
	hc = (float *)bench_alloc(bytes);
	bench_fill_f32(ha, (size_t)n * n, 6, -1, 1);
	bench_fill_f32(hb, (size_t)n * n, 7, -1, 1);
	if (!a.host_only)
		measure(&a, ha, hb, hc, n);
	free(ha);
	free(hb);
	free(hc);
	return 0;
}

#endif
