/*
 * runtime_sticky: an execution fault is sticky for the rest of the process.
 * First, without a fault, cudaDeviceReset frees the device's allocations
 * and loads kernels and __device__ variables afresh.  Then, after a failed
 * device-side assert, every call on the device returns the fault and
 * cudaGetLastError does not clear it, and neither does cudaDeviceReset:
 * CUDA documents that the process must end (an H200's driver refuses the
 * device after the reset).
 */
#include "check.h"
#include <cassert>

__device__ int counter = 5;

__global__ void fault_if(int *p, int bad)
{
	assert(!bad);
	*p = counter;
}

/* The kernel's view of counter. */
static int read_counter(int *p)
{
	int v = 0;

	fault_if<<<1, 1>>>(p, 0);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&v, p, sizeof(int), cudaMemcpyDeviceToHost));
	return v;
}

int main()
{
	int *p, *q, v = 0, nine = 9;

	CK(cudaMalloc(&p, sizeof(int)));
	CK(cudaMemcpyToSymbol(counter, &nine, sizeof(int)));
	check(read_counter(p) == 9, "counter not set");
	CK(cudaDeviceReset());
	CK_EXPECT(cudaFree(p), cudaErrorInvalidValue);         /* freed by the reset */
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidValue);
	CK(cudaMalloc(&p, sizeof(int)));
	v = read_counter(p);
	check(v == 5, "after reset the kernel read %d, want 5", v);

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

	cudaDeviceReset();
	CK_EXPECT(cudaMalloc(&q, 16), fault);
	CK_EXPECT(cudaGetLastError(), fault);
	return verdict("runtime_sticky");
}
