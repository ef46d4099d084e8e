/*
 * async_bulk_unsupported: the sm_90 bulk copy engine (TMA,
 * cp.async.bulk), which the cpu backend does not implement, is refused
 * when the device code loads, with a message naming the instruction and
 * the missing feature; the launch fails with cudaErrorInvalidPtx.
 */
// nvcc-flags: -arch=sm_90
// expect-stderr: unsupported instruction 'cp\.async\.bulk[^']*' at line [0-9]+ \(bulk asynchronous copies \(TMA\)
#include "check.h"

__global__ void bulk(const int *in)
{
	__shared__ __align__(16) int s[64];
	__shared__ unsigned long long mb;
	unsigned a = (unsigned)__cvta_generic_to_shared(&mb);
	unsigned d = (unsigned)__cvta_generic_to_shared(s);

	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1], 256, [%2];" ::"r"(d), "l"(in), "r"(a) : "memory");
}

int main(void)
{
	int *in;

	CK(cudaMalloc(&in, 256));
	bulk<<<1, 32>>>(in);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidPtx);
	CK(cudaDeviceSynchronize());
	CK(cudaFree(in));
	return verdict("async_bulk_unsupported");
}
