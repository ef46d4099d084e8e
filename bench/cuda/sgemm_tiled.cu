/*
 * sgemm_tiled.cu - C = A * B for 512 x 512 floats with 16 x 16 tiles of
 * A and B staged in shared memory between __syncthreads(): the classic CUDA
 * matrix multiply.  Edges are padded with zeros in the tiles.
 */
#define SGEMM_NAME "sgemm_tiled"
#include "sgemm_main.h"

#define TILE 16

__global__ void sgemm(const float *a, const float *b, float *c, int n)
{
	__shared__ float ta[TILE][TILE];
	__shared__ float tb[TILE][TILE];
	int tx = threadIdx.x, ty = threadIdx.y;
	int col = blockIdx.x * TILE + tx;
	int row = blockIdx.y * TILE + ty;
	float sum = 0;
	int t, k;

	for (t = 0; t < n; t += TILE) {
		ta[ty][tx] = row < n && t + tx < n ? a[row * n + t + tx] : 0;
		tb[ty][tx] = col < n && t + ty < n ? b[(t + ty) * n + col] : 0;
		__syncthreads();
		for (k = 0; k < TILE; k++)
			sum += ta[ty][k] * tb[k][tx];
		__syncthreads();
	}
	if (row < n && col < n)
		c[row * n + col] = sum;
}

static void run(void *p)
{
	struct ctx *x = (struct ctx *)p;
	dim3 block(TILE, TILE);
	dim3 grid((x->n + TILE - 1) / TILE, (x->n + TILE - 1) / TILE);

	sgemm<<<grid, block>>>(x->a, x->b, x->c, x->n);
}
