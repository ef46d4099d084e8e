// Thread block clusters (sm_90): .explicitcluster, .reqnctapercluster.
__global__ void __cluster_dims__(2, 1, 1) clustered(float *o)
{
	o[blockIdx.x] = 1.0f;
}

__global__ void __maxnreg__(40) bounded(float *o)
{
	o[threadIdx.x] *= 2.0f;
}

#include <cooperative_groups.h>
#include <cuda/barrier>
#pragma nv_diag_suppress static_var_with_dynamic_init
namespace cg = cooperative_groups;

// Distributed shared memory: shared::cluster addresses and cluster barriers.
__global__ void __cluster_dims__(2, 1, 1) dsmem(int *o)
{
	__shared__ int s[32];
	cg::cluster_group cl = cg::this_cluster();
	s[threadIdx.x & 31] = (int)cl.block_rank();
	cl.sync();
	int *peer = cl.map_shared_rank(s, (cl.block_rank() + 1) % 2);
	o[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x & 31];
	cl.sync();
}

// An mbarrier-based block barrier (cuda::barrier in shared memory).
__global__ void mbar(float *o)
{
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	if (threadIdx.x == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	o[threadIdx.x] += 1.0f;
	bar.arrive_and_wait();
	o[threadIdx.x] *= 2.0f;
}
