/*
 * cluster_dims_unsupported: a kernel that asks for clusters of more than
 * one block (__cluster_dims__, .reqnctapercluster in its PTX) is refused
 * when the device code loads, with a message naming the kernel and the
 * feature: the cpu backend runs every block as a cluster of its own
 * (cluster_one.cu).  The launch fails with cudaErrorInvalidPtx.
 */
// engine: cpu
// nvcc-flags: -arch=sm_90
// expect-stderr: kernel '[^']*pairs[^']*' at line [0-9]+ asks for thread block clusters of 2 blocks \(__cluster_dims__\)
#include "check.h"

__global__ void __cluster_dims__(2, 1, 1) pairs(int *out)
{
	out[blockIdx.x] = (int)blockIdx.x;
}

int main(void)
{
	int *out;

	CK(cudaMalloc(&out, 2 * sizeof(int)));
	pairs<<<2, 32>>>(out);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidPtx);
	CK(cudaDeviceSynchronize());
	CK(cudaFree(out));
	return verdict("cluster_dims_unsupported");
}
