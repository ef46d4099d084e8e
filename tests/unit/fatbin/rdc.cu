// Linked into test_fatbin compiled with -rdc=true and device-linked: the
// device link's stub registers a version 2 wrapper whose PTX lives in the
// prelinked image.
extern __device__ int fixture_rdc_helper(int x);

extern "C" __global__ void fixture_rdc(int *p)
{
	p[threadIdx.x] = fixture_rdc_helper(threadIdx.x);
}

__device__ int fixture_rdc_helper(int x)
{
	return 3 * x;
}
