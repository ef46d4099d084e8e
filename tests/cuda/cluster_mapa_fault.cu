/*
 * cluster_mapa_fault: mapa to a block rank other than 0 when every block
 * is a cluster of its own (no cluster dimensions) names no block of the
 * cluster; the cpu backend stops the kernel (its message names mapa)
 * and the launch fails with cudaErrorLaunchFailure at the next
 * synchronisation, sticky as on a GPU (which may report
 * cudaErrorIllegalAddress when the address is used).
 */
// engine: cpu
// nvcc-flags: -arch=sm_90
#include "check.h"

__global__ void map_rank(unsigned rank, unsigned *out)
{
	__shared__ unsigned s[32];
	unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]), c;

	asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(c) : "r"(a), "r"(rank));
	out[threadIdx.x] = c - a;
}

int main(void)
{
	unsigned *out, h[32];
	void *p;

	CK(cudaMalloc(&out, sizeof(h)));
	map_rank<<<1, 32>>>(0, out);
	CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 32; i++)
		check(h[i] == 0, "mapa to rank 0 moved thread %d's address by %u", i, h[i]);
	map_rank<<<1, 32>>>(1, out);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorLaunchFailure, "synchronize after mapa to rank 1: %s",
	      cudaGetErrorName(e));
	check(cudaMalloc(&p, 16) == e, "the error is sticky");
	return verdict("cluster_mapa_fault");
}
