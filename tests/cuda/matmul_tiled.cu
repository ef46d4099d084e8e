/*
 * matmul_tiled: C = A * B with 16x16 tiles staged in shared memory and two
 * __syncthreads per tile, on sizes that are not multiples of the tile.
 * Entries are small integers, so every sum is exact in float.
 */
#include "matmul.h"

#define TILE 16

__global__ void matmul(const float *a, const float *b, float *c, int m, int n, int k)
{
	__shared__ float ta[TILE][TILE];
	__shared__ float tb[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y;
	int col = blockIdx.x * TILE + threadIdx.x;
	float sum = 0;
	for (int t = 0; t < k; t += TILE) {
		int ak = t + threadIdx.x, bk = t + threadIdx.y;
		ta[threadIdx.y][threadIdx.x] = row < m && ak < k ? a[row * k + ak] : 0;
		tb[threadIdx.y][threadIdx.x] = bk < k && col < n ? b[bk * n + col] : 0;
		__syncthreads();
		for (int i = 0; i < TILE; i++)
			sum += ta[threadIdx.y][i] * tb[i][threadIdx.x];
		__syncthreads();
	}
	if (row < m && col < n)
		c[row * n + col] = sum;
}

int main()
{
	struct matmul_case p;

	matmul_begin(&p, 70, 45, 83, 0, 0);
	matmul<<<dim3((p.n + TILE - 1) / TILE, (p.m + TILE - 1) / TILE), dim3(TILE, TILE)>>>(
		p.da, p.db, p.dc, p.m, p.n, p.k);
	matmul_end(&p, "c");
	return verdict("matmul_tiled");
}
