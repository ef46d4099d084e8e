// A kernel that writes where its caller says: given a wild pointer, it
// faults, which must end only its own session on an anygpu server.
extern "C" __global__ void wild_write(int *p)
{
	p[threadIdx.x] = 1;
}

// A kernel that waits for a flag nobody sets: its session's client dies
// while it runs, and the worker must not wait for it for ever.
extern "C" __global__ void spin(volatile int *flag)
{
	while (!*flag)
		;
}
