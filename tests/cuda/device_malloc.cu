/*
 * device_malloc: malloc and free called by kernels.  Every thread allocates
 * a block of its own size, fills and checks it, and frees it; one kernel
 * allocates memory that a later kernel reads and frees (device heap memory
 * outlives the kernel that allocated it).
 */
#include "check.h"

__global__ void own_blocks(int *ok, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	int len = 1 + i % 50;
	int *p = (int *)malloc(len * sizeof(int));
	if (!p) {
		ok[i] = -1;
		return;
	}
	for (int k = 0; k < len; k++)
		p[k] = i * 1000 + k;
	int good = 1;
	for (int k = 0; k < len; k++)
		good &= p[k] == i * 1000 + k;
	free(p);
	ok[i] = good;
}

__device__ int *kept[64];

__global__ void keep(void)
{
	int t = threadIdx.x;
	kept[t] = (int *)malloc(4 * sizeof(int));
	if (kept[t])
		for (int k = 0; k < 4; k++)
			kept[t][k] = t * 10 + k;
}

__global__ void use_kept(int *sum)
{
	int t = threadIdx.x;
	int s = -1;
	if (kept[t]) {
		s = 0;
		for (int k = 0; k < 4; k++)
			s += kept[t][k];
		free(kept[t]);
	}
	sum[t] = s;
}

int main()
{
	const int n = 2000;
	int *ok, *sum, got[n], gsum[64], want[n], wsum[64];
	CK(cudaMalloc(&ok, sizeof(got)));
	CK(cudaMalloc(&sum, sizeof(gsum)));
	own_blocks<<<(n + 127) / 128, 128>>>(ok, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, ok, sizeof(got), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		want[i] = 1;
	check_array("per-thread malloc, fill, free", got, want, n);

	keep<<<1, 64>>>();
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	use_kept<<<1, 64>>>(sum);
	CK(cudaGetLastError());
	CK(cudaMemcpy(gsum, sum, sizeof(gsum), cudaMemcpyDeviceToHost));
	for (int t = 0; t < 64; t++)
		wsum[t] = 4 * t * 10 + 6;
	check_array("heap memory kept across kernels", gsum, wsum, 64);
	CK(cudaFree(ok));
	CK(cudaFree(sum));
	return verdict("device_malloc");
}
