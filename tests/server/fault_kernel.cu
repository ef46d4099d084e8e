// A kernel that writes where its caller says: given a wild pointer, it
// faults, which must end only its own session on an anygpu server.
extern "C" __global__ void wild_write(int *p)
{
	p[threadIdx.x] = 1;
}
