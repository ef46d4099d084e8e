/*
 * texture_bad_handle: a kernel that samples through a handle that is not
 * a live texture object (here 0, as an unset handle is) stops with an error
 * at the next synchronisation instead of reading whatever the handle
 * points to; the error is sticky, as a kernel fault is on a GPU.
 */
// engine: cpu
#include "check.h"

__global__ void fetch(cudaTextureObject_t t, float *out)
{
	out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x);
}

int main(void)
{
	cudaResourceDesc rd = {};
	cudaTextureDesc td = {};
	cudaTextureObject_t t;
	float *d;
	void *p;

	CK(cudaMalloc(&d, 64 * sizeof(float)));
	rd.resType = cudaResourceTypeLinear;
	rd.res.linear.devPtr = d;
	rd.res.linear.desc = cudaCreateChannelDesc<float>();
	rd.res.linear.sizeInBytes = 32 * sizeof(float);
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	fetch<<<1, 32>>>(t, d + 32);
	CK(cudaDeviceSynchronize());
	CK(cudaDestroyTextureObject(t));
	fetch<<<1, 32>>>(0, d + 32);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorLaunchFailure || e == cudaErrorIllegalAddress,
	      "synchronize after sampling handle 0: %s", cudaGetErrorName(e));
	check(cudaMalloc(&p, 16) == e, "the error is sticky");
	return verdict("texture_bad_handle");
}
