/*
 * assert: a kernel whose assert() fails.  The next synchronising call
 * returns cudaErrorAssert and the message (file, line, condition) appears
 * on stderr; the error is sticky: later calls return it too, until
 * cudaDeviceReset, after which the device works again.
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

	CK(cudaDeviceReset());
	int *b;
	CK(cudaMalloc(&b, sizeof(host)));
	CK(cudaMemcpy(b, host, sizeof(host), cudaMemcpyHostToDevice));
	int back[32];
	CK(cudaMemcpy(back, b, sizeof(back), cudaMemcpyDeviceToHost));
	check_array("memory after cudaDeviceReset", back, host, 32);
	CK(cudaFree(b));
	return verdict("assert");
}
