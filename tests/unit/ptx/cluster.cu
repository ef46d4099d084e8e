// Thread block clusters (sm_90): .explicitcluster, .reqnctapercluster.
__global__ void __cluster_dims__(2, 1, 1) clustered(float *o)
{
	o[blockIdx.x] = 1.0f;
}

__global__ void __maxnreg__(40) bounded(float *o)
{
	o[threadIdx.x] *= 2.0f;
}
