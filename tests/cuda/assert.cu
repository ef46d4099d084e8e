/*
 * assert: a kernel whose assert() fails.  The next synchronising call
 * returns cudaErrorAssert and the message (file, line, condition) appears
 * on stderr; the error is sticky: later calls return it too, even after
 * cudaDeviceReset (CUDA: the process must be relaunched).
 */
// expect-stderr: assert\.cu:[0-9]+: .*Assertion `v != 3` failed
#include <cassert>
#include "check.h"

__global__ void check_values(const int *a, int *out)
{
	int v = a[threadIdx.x];
	assert(v != 3);
	out[threadIdx.x] = v;
}

int main()
{
	int host[32], *a, *out;
	for (int i = 0; i < 32; i++)
		host[i] = i == 17 ? 3 : 100 + i;
	CK(cudaMalloc(&a, sizeof(host)));
	CK(cudaMalloc(&out, sizeof(host)));
	CK(cudaMemcpy(a, host, sizeof(host), cudaMemcpyHostToDevice));
	check_values<<<1, 32>>>(a, out);
	CK(cudaGetLastError());
	CK_EXPECT(cudaDeviceSynchronize(), cudaErrorAssert);
	CK_EXPECT(cudaGetLastError(), cudaErrorAssert);
	void *p = NULL;
	CK_EXPECT(cudaMalloc(&p, 64), cudaErrorAssert);
	CK_EXPECT(cudaMemcpy(host, out, sizeof(host), cudaMemcpyDeviceToHost), cudaErrorAssert);

	/* The process is done with the device, a reset or not. */
	cudaDeviceReset();
	CK_EXPECT(cudaMalloc(&p, 64), cudaErrorAssert);
	return verdict("assert");
}
