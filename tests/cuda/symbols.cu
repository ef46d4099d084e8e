/*
 * symbols: module-scope variables.  __constant__ and __device__ arrays
 * written with cudaMemcpyToSymbol (whole, at an offset, and async) and read
 * back with cudaMemcpyFromSymbol; static initialisers, including a device
 * pointer initialised to another variable's address; cudaGetSymbolAddress
 * and cudaGetSymbolSize; an out-of-range copy refused.
 */
#include "check.h"

__constant__ float coef[16];
__constant__ int offsets[4] = { 10, 20, 30, 40 };
__device__ int table[100] = { 1, 2, 3, 4, 5 };
__device__ unsigned long long counter;
__device__ int target[4];
__device__ int *target_ptr = target + 1;

__global__ void use_symbols(float *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = coef[i % 16] * offsets[i % 4] + table[i % 8];
	atomicAdd(&counter, 1ull);
	if (i == 0)
		*target_ptr = 77;
}

__global__ void scale_table(int *t, int n, int k)
{
	int i = threadIdx.x;
	if (i < n)
		t[i] *= k;
}

int main()
{
	float c[16], got[64], want[64];
	for (int i = 0; i < 16; i++)
		c[i] = i * 0.5f;
	CK(cudaMemcpyToSymbol(coef, c, sizeof(c)));
	float c2[4] = { 100, 101, 102, 103 };
	CK(cudaMemcpyToSymbol(coef, c2, sizeof(c2), 8 * sizeof(float)));
	for (int i = 0; i < 4; i++)
		c[8 + i] = c2[i];
	unsigned long long zero = 0;
	CK(cudaMemcpyToSymbol(counter, &zero, sizeof(zero)));

	float *dout;
	CK(cudaMalloc(&dout, sizeof(got)));
	use_symbols<<<1, 64>>>(dout, 64);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	int init[8] = { 1, 2, 3, 4, 5, 0, 0, 0 };
	for (int i = 0; i < 64; i++)
		want[i] = c[i % 16] * (10 * (i % 4 + 1)) + init[i % 8];
	check_array("constants and initialisers", got, want, 64);

	unsigned long long count = 0;
	CK(cudaMemcpyFromSymbol(&count, counter, sizeof(count)));
	check(count == 64, "counter: got %llu, want 64", count);
	int tgt[4];
	CK(cudaMemcpyFromSymbol(tgt, target, sizeof(tgt)));
	int want_tgt[4] = { 0, 77, 0, 0 };
	check_array("write through an initialised device pointer", tgt, want_tgt, 4);

	int *dtable;
	size_t size = 0;
	CK(cudaGetSymbolAddress((void **)&dtable, table));
	CK(cudaGetSymbolSize(&size, table));
	check(size == sizeof(int) * 100, "cudaGetSymbolSize(table): got %zu, want %zu", size,
	      sizeof(int) * 100);
	scale_table<<<1, 100>>>(dtable, 100, 3);
	CK(cudaGetLastError());
	int t[100], want_t[100] = { 3, 6, 9, 12, 15 };
	CK(cudaMemcpy(t, dtable, sizeof(t), cudaMemcpyDeviceToHost));
	check_array("table through its symbol address", t, want_t, 100);

	cudaStream_t s;
	int five[5] = { 50, 51, 52, 53, 54 }, back[5];
	CK(cudaStreamCreate(&s));
	CK(cudaMemcpyToSymbolAsync(table, five, sizeof(five), 95 * sizeof(int),
				   cudaMemcpyHostToDevice, s));
	CK(cudaMemcpyFromSymbolAsync(back, table, sizeof(back), 95 * sizeof(int),
				     cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	CK(cudaStreamDestroy(s));
	check_array("async symbol copies", back, five, 5);

	CK_EXPECT(cudaMemcpyToSymbol(table, five, sizeof(five), 96 * sizeof(int)),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
	CK(cudaFree(dout));
	return verdict("symbols");
}
