/*
 * sgemm_naive.c - C = A * B for 512 x 512 floats: the OpenMP reference of
 * cuda/sgemm_naive.cu, the plain triple loop as a C programmer writes it for
 * a CPU (i-k-j order, so the inner loop streams rows and vectorises; each
 * element of C still sums its products in k order).
 */
#define SGEMM_NAME "sgemm_naive"
#include "sgemm_main.h"

static void run(void *p)
{
	struct ctx *x = p;
	const float *restrict a = x->a, *restrict b = x->b;
	float *restrict c = x->c;
	int n = x->n, i, j, k;

#pragma omp parallel for private(j, k) schedule(static)
	for (i = 0; i < n; i++) {
		float *restrict ci = c + (size_t)i * n;

		for (j = 0; j < n; j++)
			ci[j] = 0;
		for (k = 0; k < n; k++) {
			float aik = a[(size_t)i * n + k];
			const float *restrict bk = b + (size_t)k * n;

#pragma omp simd
			for (j = 0; j < n; j++)
				ci[j] += aik * bk[j];
		}
	}
}
