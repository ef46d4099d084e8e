/*
 * histogram: 256 bins of bytes counted two ways, with atomicAdd straight
 * into global memory and with a per-block histogram in shared memory merged
 * by global atomics, over spread-out data and over data where most bytes
 * are the same (heavy contention on one bin).
 */
#include "check.h"

#define BINS 256

__global__ void hist_global(const unsigned char *data, int n, unsigned *bins)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		atomicAdd(&bins[data[i]], 1u);
}

__global__ void hist_shared(const unsigned char *data, int n, unsigned *bins)
{
	__shared__ unsigned local[BINS];
	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		atomicAdd(&local[data[i]], 1u);
	__syncthreads();
	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		if (local[b])
			atomicAdd(&bins[b], local[b]);
}

static void run(const char *what, const unsigned char *data, int n)
{
	unsigned want[BINS] = { 0 }, got[BINS];
	for (int i = 0; i < n; i++)
		want[data[i]]++;
	unsigned char *ddata;
	unsigned *dbins;
	CK(cudaMalloc(&ddata, n));
	CK(cudaMalloc(&dbins, sizeof(got)));
	CK(cudaMemcpy(ddata, data, n, cudaMemcpyHostToDevice));

	CK(cudaMemset(dbins, 0, sizeof(got)));
	hist_global<<<40, 192>>>(ddata, n, dbins);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dbins, sizeof(got), cudaMemcpyDeviceToHost));
	char name[64];
	snprintf(name, sizeof(name), "%s, global atomics", what);
	check_array(name, got, want, BINS);

	CK(cudaMemset(dbins, 0, sizeof(got)));
	hist_shared<<<23, 160>>>(ddata, n, dbins);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dbins, sizeof(got), cudaMemcpyDeviceToHost));
	snprintf(name, sizeof(name), "%s, shared atomics", what);
	check_array(name, got, want, BINS);

	CK(cudaFree(ddata));
	CK(cudaFree(dbins));
}

int main()
{
	const int n = 1 << 20;
	unsigned char *data = (unsigned char *)malloc(n);
	unsigned x = 7;
	for (int i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		data[i] = x >> 24;
	}
	run("spread", data, n);
	for (int i = 0; i < n; i++)
		data[i] = i % 10 ? 42 : data[i];
	run("skewed", data, n);
	free(data);
	return verdict("histogram");
}
