/*
 * sgemm_tiled.c - C = A * B for 512 x 512 floats: the OpenMP reference of
 * cuda/sgemm_tiled.cu, cache-blocked: a block of rows of C per thread, B
 * visited in KB x JB tiles that stay in L2 while every row of the block uses
 * them.  Each element of C still sums its products in k order.
 */
#define SGEMM_NAME "sgemm_tiled"
#include "sgemm_main.h"

#define IB 32
#define KB 128
#define JB 512

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static void tile(const float *restrict a, const float *restrict b, float *restrict c,
		 int n, int i0, int k0, int j0)
{
	int i1 = min_int(i0 + IB, n), k1 = min_int(k0 + KB, n), j1 = min_int(j0 + JB, n);
	int i, k, j;

	for (i = i0; i < i1; i++)
		for (k = k0; k < k1; k++) {
			float aik = a[(size_t)i * n + k];
			const float *restrict bk = b + (size_t)k * n;
			float *restrict ci = c + (size_t)i * n;

#pragma omp simd
			for (j = j0; j < j1; j++)
				ci[j] += aik * bk[j];
		}
}

static void run(void *p)
{
	struct ctx *x = p;
	int n = x->n, i0, j0, k0;

	memset(x->c, 0, (size_t)n * n * sizeof(float));
#pragma omp parallel for private(j0, k0) schedule(static)
	for (i0 = 0; i0 < n; i0 += IB)
		for (j0 = 0; j0 < n; j0 += JB)
			for (k0 = 0; k0 < n; k0 += KB)
				tile(x->a, x->b, x->c, n, i0, k0, j0);
}
