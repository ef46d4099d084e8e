/*
 * stencil2d.c - one Jacobi sweep of the 5-point stencil on a 4096 x 4096
 * grid: the OpenMP reference of cuda/stencil2d.cu, rows in parallel, the
 * interior of each row vectorised, the border copied.
 */
#define GRID_NAME "stencil2d"
#include "grid_main.h"

static void sweep_row(const float *restrict in, float *restrict out, int w)
{
	int x;

	out[0] = in[0];
#pragma omp simd
	for (x = 1; x < w - 1; x++)
		out[x] = 0.2f * (in[x] + in[x - 1] + in[x + 1] + in[x - w] + in[x + w]);
	out[w - 1] = in[w - 1];
}

static void run(void *p)
{
	struct ctx *c = p;
	size_t w = c->w;
	int y;

#pragma omp parallel for schedule(static)
	for (y = 0; y < c->h; y++) {
		if (y == 0 || y == c->h - 1)
			memcpy(c->out + y * w, c->in + y * w, w * sizeof(float));
		else
			sweep_row(c->in + y * w, c->out + y * w, w);
	}
}
