/*
 * grid_main.h - the host side the CUDA grid kernels share (stencil2d,
 * transpose): one w x h float grid in, one w * h float grid out, each
 * point read once and written once (8 bytes).  The including file defines
 * GRID_NAME and, after this header, run() launching its kernel.
 */
#ifndef GRID_MAIN_H
#define GRID_MAIN_H

#include "cuda_bench.h"

struct ctx {
	const float *in;
	float *out;
	int w, h;
};

static void run(void *p);

static void measure(const struct bench_args *a, const float *hin, float *hout, int w, int h)
{
	size_t n = (size_t)w * h;
	struct ctx c;

	c.in = (const float *)bench_to_device(hin, n * sizeof(float));
	c.out = (float *)bench_device(n * sizeof(float));
	c.w = w;
	c.h = h;
	bench_warm_up(a, run, &c, BENCH_F32, hout, c.out, n);
	bench_time(a, GRID_NAME, run, &c, 8.0 * n, 0);
	CK(cudaFree((void *)c.in));
	CK(cudaFree(c.out));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	float *hin, *hout;
	int w, h;

	bench_parse(&a, argc, argv, 1);
	w = a.small ? 257 : 4096;
	h = a.small ? 131 : 4096;
	hin = (float *)bench_alloc((size_t)w * h * sizeof(float));
	hout = (float *)bench_alloc((size_t)w * h * sizeof(float));
	bench_fill_f32(hin, (size_t)w * h, 5, 0, 1);
	if (!a.host_only)
		measure(&a, hin, hout, w, h);
	free(hin);
	free(hout);
	return 0;
}

#endif
