/*
 * no_ptx: a program built with machine code only (no PTX), which the CPU
 * cannot run.  The launch fails with cudaErrorNoKernelImageForDevice and a
 * message on stderr names the kernel.  (A real sm_75 GPU would run this
 * kernel: the test is for backends that need PTX.)
 */
// nvcc-flags: -gencode arch=compute_75,code=sm_75
// expect-stderr: no_ptx_marker_kernel
#include "check.h"

__global__ void no_ptx_marker_kernel(int *p)
{
	*p = 42;
}

int main()
{
	int *p;
	CK(cudaMalloc(&p, sizeof(int)));
	no_ptx_marker_kernel<<<1, 1>>>(p);
	cudaError_t e = cudaGetLastError();
	check(e == cudaErrorNoKernelImageForDevice,
	      "launch without PTX: got %s, want cudaErrorNoKernelImageForDevice",
	      cudaGetErrorName(e));
	CK(cudaFree(p));
	return verdict("no_ptx");
}
