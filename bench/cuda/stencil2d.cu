/*
 * stencil2d.cu - one Jacobi sweep of the 5-point Laplace stencil on a
 * 4096 x 4096 grid, from global memory with 2D blocks; the border is copied.
 * Memory-bound: ideally each point is read once and written once.
 */
#define GRID_NAME "stencil2d"
#include "grid_main.h"

__global__ void stencil(const float *in, float *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	int i = y * w + x;

	if (x >= w || y >= h)
		return;
	if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
		out[i] = in[i];
	else
		out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;
	dim3 block(32, 8);
	dim3 grid((c->w + 31) / 32, (c->h + 7) / 8);

	stencil<<<grid, block>>>(c->in, c->out, c->w, c->h);
}
