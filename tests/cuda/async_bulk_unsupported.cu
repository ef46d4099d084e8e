/*
 * async_bulk_unsupported: the tensor-map bulk copies of the sm_90 copy
 * engine (TMA, cp.async.bulk.tensor), which the cpu backend does not
 * implement (it runs the 1D bulk copies: cluster_one.cu), are refused
 * when the device code loads, with a message naming the instruction and
 * the missing feature; the launch fails with cudaErrorInvalidPtx.
 */
// engine: cpu
// nvcc-flags: -arch=sm_90
// expect-stderr: unsupported instruction 'cp\.async\.bulk\.tensor[^']*' at line [0-9]+ \(tensor-map bulk copies \(TMA\)
#include <cuda.h>

#include "check.h"

__global__ void bulk(const __grid_constant__ CUtensorMap map)
{
	__shared__ __align__(16) int s[64];
	__shared__ unsigned long long mb;
	unsigned a = (unsigned)__cvta_generic_to_shared(&mb);
	unsigned d = (unsigned)__cvta_generic_to_shared(s);

	asm volatile("cp.async.bulk.tensor.1d.shared::cluster.global.mbarrier::complete_tx::bytes"
		     " [%0], [%1, {%2}], [%3];" ::"r"(d), "l"(&map), "r"(0), "r"(a) : "memory");
}

int main(void)
{
	CUtensorMap map = {};

	bulk<<<1, 32>>>(map);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidPtx);
	CK(cudaDeviceSynchronize());
	return verdict("async_bulk_unsupported");
}
