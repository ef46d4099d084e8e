/*
 * sgemm_naive.cu - C = A * B for 512 x 512 floats, one thread per element
 * of C reading its row of A and column of B from global memory: compute-bound
 * on paper, limited by loads in practice.
 */
#define SGEMM_NAME "sgemm_naive"
#include "sgemm_main.h"

__global__ void sgemm(const float *a, const float *b, float *c, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	float sum = 0;
	int k;

	if (row >= n || col >= n)
		return;
	for (k = 0; k < n; k++)
		sum += a[row * n + k] * b[k * n + col];
	c[row * n + col] = sum;
}

static void run(void *p)
{
	struct ctx *x = (struct ctx *)p;
	dim3 block(16, 16);
	dim3 grid((x->n + 15) / 16, (x->n + 15) / 16);

	sgemm<<<grid, block>>>(x->a, x->b, x->c, x->n);
}
