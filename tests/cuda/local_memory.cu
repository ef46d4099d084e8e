/*
 * local_memory: per-thread arrays indexed by run-time values, so they live
 * in local memory: each thread sorts its own 64 values (insertion sort),
 * keeps a 256-entry table it updates at data-dependent places, and passes
 * the array's address to a __noinline__ function.
 */
#include "check.h"

#define K 64

__host__ __device__ unsigned next(unsigned x)
{
	return x * 1103515245u + 12345u;
}

__device__ __noinline__ unsigned checksum(const unsigned *a, int n)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = (h ^ a[i]) * 16777619u;
	return h;
}

__host__ __device__ void sort_own(unsigned seed, unsigned *a)
{
	unsigned x = seed;
	for (int i = 0; i < K; i++) {
		x = next(x);
		a[i] = x >> 8;
	}
	for (int i = 1; i < K; i++) {
		unsigned v = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
}

__host__ __device__ unsigned table_walk(unsigned seed)
{
	unsigned char t[256];
	for (int i = 0; i < 256; i++)
		t[i] = (unsigned char)i;
	unsigned x = seed, j = 0;
	for (int i = 0; i < 1000; i++) {
		x = next(x);
		j = (j + t[i & 255] + (x >> 24)) & 255;
		unsigned char s = t[i & 255];
		t[i & 255] = t[j];
		t[j] = s;
	}
	return t[x & 255] | t[(x >> 8) & 255] << 8 | t[j] << 16;
}

__global__ void work(unsigned *sorted_sum, unsigned *median, unsigned *walk, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned a[K];
	sort_own(i * 7919u, a);
	sorted_sum[i] = checksum(a, K);
	median[i] = a[K / 2];
	walk[i] = table_walk(i);
}

static unsigned host_checksum(const unsigned *a, int n)
{
	unsigned h = 2166136261u;
	for (int i = 0; i < n; i++)
		h = (h ^ a[i]) * 16777619u;
	return h;
}

int main()
{
	const int n = 777;
	unsigned *got[3], *want[3], *dev[3];
	for (int k = 0; k < 3; k++) {
		got[k] = (unsigned *)malloc(n * 4);
		want[k] = (unsigned *)malloc(n * 4);
		CK(cudaMalloc(&dev[k], n * 4));
	}
	for (int i = 0; i < n; i++) {
		unsigned a[K];
		sort_own(i * 7919u, a);
		want[0][i] = host_checksum(a, K);
		want[1][i] = a[K / 2];
		want[2][i] = table_walk(i);
	}
	work<<<(n + 63) / 64, 64>>>(dev[0], dev[1], dev[2], n);
	CK(cudaGetLastError());
	for (int k = 0; k < 3; k++)
		CK(cudaMemcpy(got[k], dev[k], n * 4, cudaMemcpyDeviceToHost));
	check_array("checksum of each thread's sorted array", got[0], want[0], n);
	check_array("median", got[1], want[1], n);
	check_array("table walk", got[2], want[2], n);
	for (int k = 0; k < 3; k++) {
		CK(cudaFree(dev[k]));
		free(got[k]), free(want[k]);
	}
	return verdict("local_memory");
}
