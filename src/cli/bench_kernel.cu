// bench_kernel.cu - the empty kernel `anygpu bench latency` launches (what a
// launch costs when the work is nothing), built by nvcc -cudart shared into
// anygpu-bench; C code launches it through its host stub's address.
__global__ void nop(int x)
{
}

extern "C" const void *bench_nop_kernel(void)
{
	return (const void *)nop;
}
