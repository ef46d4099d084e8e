// Device code for the fatbin reader's fixtures: nvcc embeds it in every
// way it can (compression modes, architectures, PTX or not) and the tests
// look for these kernels' names in the PTX that comes back out.
extern "C" __global__ void fixture_add_one(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		p[i] += 1;
}

extern "C" __global__ void fixture_scale(float *p, float s)
{
	p[threadIdx.x] *= s;
}

// The fixtures are whole programs, laid out as the runtime will meet them.
int main()
{
	return 0;
}
