/*
 * runtime_sticky: an execution fault is sticky until cudaDeviceReset.
 * After a failed device-side assert every call on the device returns the fault and
 * cudaGetLastError does not clear it; after cudaDeviceReset the device
 * works again, its old allocations are gone, and kernels and __device__
 * variables are loaded afresh.
 */
#include "check.h"
#include <cassert>

__device__ int counter = 5;

__global__ void fault_if(int *p, int bad)
{
	assert(!bad);
	*p = counter;
}

int main()
{
	int *p, *q, v = 0;

	CK(cudaMalloc(&p, sizeof(int)));
	fault_if<<<1, 1>>>(p, 1);
	CK_EXPECT(cudaGetLastError(), cudaSuccess);           /* the launch itself was fine */
	cudaError_t fault = cudaErrorAssert;
	CK_EXPECT(cudaDeviceSynchronize(), fault);
	CK_EXPECT(cudaGetLastError(), fault);
	CK_EXPECT(cudaGetLastError(), fault);                  /* sticky: not cleared */
	CK_EXPECT(cudaPeekAtLastError(), fault);
	CK_EXPECT(cudaMalloc(&q, 16), fault);
	CK_EXPECT(cudaMemcpy(&v, p, sizeof(int), cudaMemcpyDeviceToHost), fault);
	fault_if<<<1, 1>>>(p, 0);
	CK_EXPECT(cudaGetLastError(), fault);

	CK(cudaDeviceReset());
	CK_EXPECT(cudaGetLastError(), cudaSuccess);
	CK_EXPECT(cudaFree(p), cudaErrorInvalidValue);         /* freed by the reset */
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
	CK(cudaMalloc(&p, sizeof(int)));
	int nine = 9;
	CK(cudaMemcpyToSymbol(counter, &nine, sizeof(int)));
	fault_if<<<1, 1>>>(p, 0);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&v, p, sizeof(int), cudaMemcpyDeviceToHost));
	check(v == 9, "after reset the kernel read %d, want 9", v);
	CK(cudaFree(p));
	return verdict("runtime_sticky");
}
