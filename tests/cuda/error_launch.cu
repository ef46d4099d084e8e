/*
 * error_launch: launch configuration errors.  2048 threads per block, a
 * block dimension of zero, a grid y of 65536 and a block z of 65: each
 * launch fails with cudaErrorInvalidConfiguration, which cudaPeekAtLastError
 * shows without clearing and cudaGetLastError returns once and clears.
 * These errors are not sticky: a correct launch afterwards works.
 */
#include "check.h"

__global__ void mark(int *p)
{
	p[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

static void bad_launch(const char *what, dim3 grid, dim3 block, int *p)
{
	mark<<<grid, block>>>(p);
	cudaError_t peek = cudaPeekAtLastError();
	cudaError_t e = cudaGetLastError();
	cudaError_t after = cudaGetLastError();
	check(peek == cudaErrorInvalidConfiguration,
	      "%s: cudaPeekAtLastError gave %s, want cudaErrorInvalidConfiguration", what,
	      cudaGetErrorName(peek));
	check(e == cudaErrorInvalidConfiguration,
	      "%s: cudaGetLastError gave %s, want cudaErrorInvalidConfiguration", what,
	      cudaGetErrorName(e));
	check(after == cudaSuccess, "%s: second cudaGetLastError gave %s, want cudaSuccess", what,
	      cudaGetErrorName(after));
}

int main()
{
	int *p, host[64];
	CK(cudaMalloc(&p, 4096 * sizeof(int)));
	CK(cudaMemset(p, 0, 4096 * sizeof(int)));
	bad_launch("2048 threads per block", dim3(1), dim3(2048), p);
	bad_launch("block of 0 threads", dim3(1), dim3(0), p);
	bad_launch("grid of 0 blocks", dim3(0), dim3(32), p);
	bad_launch("grid y of 65536", dim3(1, 65536), dim3(1), p);
	bad_launch("block z of 65", dim3(1), dim3(1, 1, 65), p);

	cudaLaunchConfig_t cfg = {};
	cfg.gridDim = dim3(1);
	cfg.blockDim = dim3(4096);
	CK_EXPECT(cudaLaunchKernelEx(&cfg, mark, p), cudaErrorInvalidConfiguration);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);

	mark<<<2, 32>>>(p);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(host, p, sizeof(host), cudaMemcpyDeviceToHost));
	int ones[64];
	for (int i = 0; i < 64; i++)
		ones[i] = 1;
	check_array("a good launch after bad ones", host, ones, 64);
	CK(cudaFree(p));
	return verdict("error_launch");
}
