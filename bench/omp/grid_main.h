/*
 * grid_main.h - the host side the OpenMP grid kernels share (stencil2d,
 * transpose): the same grids as cuda/grid_main.h, the warm-up and the
 * timing.  The including file defines GRID_NAME and, after this header,
 * run() computing c->out.
 */
#ifndef GRID_MAIN_H
#define GRID_MAIN_H

#include "omp_bench.h"

struct ctx {
	const float *in;
	float *out;
	int w, h;
};

static void run(void *p);

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	float *hin, *hout;
	size_t n;

	bench_parse(&a, argc, argv, 0);
	c.w = a.small ? 257 : 4096;
	c.h = a.small ? 131 : 4096;
	n = (size_t)c.w * c.h;
	hin = bench_alloc(n * sizeof(float));
	hout = bench_alloc(n * sizeof(float));
	bench_fill_f32(hin, n, 5, 0, 1);
	c.in = hin;
	c.out = hout;
	bench_warm_up(&a, run, &c, BENCH_F32, hout, n);
	bench_time(&a, GRID_NAME, run, &c, 8.0 * n, 0);
	free(hin);
	free(hout);
	return 0;
}

#endif
