/*
 * matmul_tiled: C = A * B with 16x16 tiles staged in shared memory and two
 * __syncthreads per tile, on sizes that are not multiples of the tile.
 * Entries are small integers, so every sum is exact in float.
 */
#include "check.h"

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
	const int m = 70, n = 45, k = 83;
	float *a = (float *)malloc(m * k * sizeof(float));
	float *b = (float *)malloc(k * n * sizeof(float));
	float *c = (float *)malloc(m * n * sizeof(float));
	float *want = (float *)malloc(m * n * sizeof(float));
	for (int i = 0; i < m * k; i++)
		a[i] = (float)((i * 7) % 9 - 4);
	for (int i = 0; i < k * n; i++)
		b[i] = (float)((i * 5) % 11 - 5);
	for (int r = 0; r < m; r++)
		for (int j = 0; j < n; j++) {
			float s = 0;
			for (int i = 0; i < k; i++)
				s += a[r * k + i] * b[i * n + j];
			want[r * n + j] = s;
		}
	float *da, *db, *dc;
	CK(cudaMalloc(&da, m * k * sizeof(float)));
	CK(cudaMalloc(&db, k * n * sizeof(float)));
	CK(cudaMalloc(&dc, m * n * sizeof(float)));
	CK(cudaMemcpy(da, a, m * k * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, b, k * n * sizeof(float), cudaMemcpyHostToDevice));
	dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
	matmul<<<grid, block>>>(da, db, dc, m, n, k);
	CK(cudaGetLastError());
	CK(cudaMemcpy(c, dc, m * n * sizeof(float), cudaMemcpyDeviceToHost));
	check_array("c", c, want, m * n);
	CK(cudaFree(da));
	CK(cudaFree(db));
	CK(cudaFree(dc));
	free(a), free(b), free(c), free(want);
	return verdict("matmul_tiled");
}
