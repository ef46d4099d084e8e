/*
 * matmul.h - the host side of the tiled matrix-product tests: inputs of
 * small integers (every sum is exact in float), the product the host
 * computes, the device's copies, and the comparison.
 */
#ifndef AG_TEST_MATMUL_H
#define AG_TEST_MATMUL_H

#include "check.h"

/* C = A * B, m x k by k x n, on the host and on the device. */
struct matmul_case {
	int m, n, k;
	float *a, *b, *c, *want;
	float *da, *db, *dc;
};

/*
 * Fills A and B, computes the product the device must give into want,
 * and copies A and B to the device (C there zeroed).  With w, the product
 * of row r is weighted by r % w % h + 1: the row within its block of the
 * thread that sums it, when blocks of w x h threads move w rows.
 */
static inline void matmul_begin(struct matmul_case *p, int m, int n, int k, int w, int h)
{
	p->m = m, p->n = n, p->k = k;
	p->a = (float *)malloc(m * k * sizeof(float));
	p->b = (float *)malloc(k * n * sizeof(float));
	p->c = (float *)malloc(m * n * sizeof(float));
	p->want = (float *)malloc(m * n * sizeof(float));
	for (int i = 0; i < m * k; i++)
		p->a[i] = (float)((i * 7) % 9 - 4);
	for (int i = 0; i < k * n; i++)
		p->b[i] = (float)((i * 5) % 11 - 5);
	for (int r = 0; r < m; r++)
		for (int j = 0; j < n; j++) {
			float f = w ? (float)(r % w % h + 1) : 1.0f, s = 0;

			for (int i = 0; i < k; i++)
				s += p->a[r * k + i] * p->b[i * n + j] * f;
			p->want[r * n + j] = s;
		}
	CK(cudaMalloc(&p->da, m * k * sizeof(float)));
	CK(cudaMalloc(&p->db, k * n * sizeof(float)));
	CK(cudaMalloc(&p->dc, m * n * sizeof(float)));
	CK(cudaMemcpy(p->da, p->a, m * k * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(p->db, p->b, k * n * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemset(p->dc, 0, m * n * sizeof(float)));
}

/* Checks the launch and the device's C against want, and frees all. */
static inline void matmul_end(struct matmul_case *p, const char *what)
{
	CK(cudaGetLastError());
	CK(cudaMemcpy(p->c, p->dc, p->m * p->n * sizeof(float), cudaMemcpyDeviceToHost));
	check_array(what, p->c, p->want, p->m * p->n);
	CK(cudaFree(p->da));
	CK(cudaFree(p->db));
	CK(cudaFree(p->dc));
	free(p->a), free(p->b), free(p->c), free(p->want);
}

#endif
