/*
 * vector_add: c = a + b over a length that is not a multiple of the block,
 * with a grid-sized bounds check, compared exactly with the host's sums.
 */
#include "check.h"

__global__ void add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

int main()
{
	const int n = 100003;
	size_t bytes = n * sizeof(float);
	float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
	float *c = (float *)malloc(bytes), *want = (float *)malloc(bytes);
	for (int i = 0; i < n; i++) {
		a[i] = i * 0.5f;
		b[i] = 1.0f / (i + 1);
		want[i] = a[i] + b[i];
	}
	float *da, *db, *dc;
	CK(cudaMalloc(&da, bytes));
	CK(cudaMalloc(&db, bytes));
	CK(cudaMalloc(&dc, bytes));
	CK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
	add<<<(n + 255) / 256, 256>>>(da, db, dc, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
	check_array("c", c, want, n);
	CK(cudaFree(da));
	CK(cudaFree(db));
	CK(cudaFree(dc));
	free(a), free(b), free(c), free(want);
	return verdict("vector_add");
}
