/*
 * surface_trap: a surface write past the end in the default trap mode
 * stops the kernel with an error at the next synchronisation, and the
 * error is sticky as on a GPU (cudaErrorLaunchFailure here; a GPU may
 * report cudaErrorIllegalAddress).
 */
#include "check.h"

/* Thread i writes element i; the last thread is one past the end. */
__global__ void write_past_end(cudaSurfaceObject_t s)
{
	int i = threadIdx.x;
	surf1Dwrite((float)i, s, i * 4);
}

int main(void)
{
	const int W = 31;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	cudaResourceDesc rd = {};
	cudaSurfaceObject_t s;
	cudaArray_t a;
	void *p;

	CK(cudaMallocArray(&a, &f, W, 0, cudaArraySurfaceLoadStore));
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	CK(cudaCreateSurfaceObject(&s, &rd));
	write_past_end<<<1, W + 1>>>(s);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorLaunchFailure || e == cudaErrorIllegalAddress,
	      "synchronize after the trap: %s", cudaGetErrorName(e));
	check(cudaMalloc(&p, 16) == e, "the error is sticky");
	return verdict("surface_trap");
}
