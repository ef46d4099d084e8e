// Linked into test_fatbin as nvcc compiled it (whole-program mode): its
// static constructor registers a version 1 wrapper.
extern "C" __global__ void fixture_whole(int *p)
{
	p[threadIdx.x] = threadIdx.x;
}
