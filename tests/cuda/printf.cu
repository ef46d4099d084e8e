/*
 * printf: text printed by kernels, checked by CTest against the expected
 * lines (the expect-stdout directives below).  Arguments of every size in
 * one call test the argument buffer's natural alignment: an int takes 4
 * bytes, a double or pointer 8.  The output must all be there once the
 * device is synchronised, before the host prints its own PASS line.
 */
// expect-stdout: mix -7 1234567890123 3\.142 Z str 4000000000 beef   2\.5\|
// expect-stdout: int 1 double 2\.000000 int 3 double -4\.500000 end
// expect-stdout: block 0 thread 0 of 3
// expect-stdout: block 0 thread 2 of 3
// expect-stdout: block 1 thread 1 of 3
// expect-stdout: block 1 thread 2 of 3
// expect-stdout: hex ff 0xabc 0X1F   42 -0042 
// expect-stdout: percent % done
// expect-stdout: PASS printf[^A-Za-z]*$
#include "check.h"

__device__ const char word[] = "str";

__global__ void mixed(int i, long long ll, double d, char c, unsigned u, int x, float f)
{
	printf("mix %d %lld %.3f %c %s %u %x %5.1f|\n", i, ll, d, c, word, u, x, f);
	printf("int %d double %f int %d double %f end\n", 1, 2.0, 3, -4.5);
	printf("hex %x %#x %#X %4d %05d \n", 255, 0xabc, 31, 42, -42);
	printf("percent %% done\n");
}

__global__ void ids(void)
{
	printf("block %d thread %d of %d\n", blockIdx.x, threadIdx.x, blockDim.x);
}

int main()
{
	mixed<<<1, 1>>>(-7, 1234567890123LL, 3.14159, 'Z', 4000000000u, 0xbeef, 2.5f);
	CK(cudaGetLastError());
	ids<<<2, 3>>>();
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	fflush(stdout);
	return verdict("printf");
}
