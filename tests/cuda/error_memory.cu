/*
 * error_memory: bad pointers and sizes give error codes, never a crash.
 * cudaFree of a pointer that is not an allocation (inside one, a host
 * pointer, one already freed), cudaMemcpy from or to memory that is not
 * device memory with a device kind, an invalid copy kind, an absurd
 * allocation; cudaFree(NULL) is fine.  None of these errors is sticky.
 */
#include "check.h"

#define N 1024

static void expect(cudaError_t got, cudaError_t want, const char *what)
{
	check(got == want, "%s: got %s, want %s", what, cudaGetErrorName(got),
	      cudaGetErrorName(want));
	cudaGetLastError();
}

int main()
{
	char *d, *freed, host[N];
	int on_stack;
	CK(cudaMalloc(&d, N));
	CK(cudaMalloc(&freed, N));
	CK(cudaFree(freed));

	expect(cudaFree(d + 16), cudaErrorInvalidValue, "cudaFree inside an allocation");
	expect(cudaFree(&on_stack), cudaErrorInvalidValue, "cudaFree of a stack address");
	expect(cudaFree(freed), cudaErrorInvalidValue, "cudaFree twice");
	expect(cudaFree(NULL), cudaSuccess, "cudaFree(NULL)");

	expect(cudaMemcpy(host, freed, N, cudaMemcpyDeviceToHost), cudaErrorInvalidValue,
	       "cudaMemcpy from freed memory");
	expect(cudaMemcpy(freed, host, N, cudaMemcpyHostToDevice), cudaErrorInvalidValue,
	       "cudaMemcpy to freed memory");
	expect(cudaMemcpy(d, (void *)0x10, N, cudaMemcpyDeviceToDevice), cudaErrorInvalidValue,
	       "cudaMemcpy from address 0x10 as device memory");
	expect(cudaMemcpy(host, d, N, (cudaMemcpyKind)17), cudaErrorInvalidMemcpyDirection,
	       "cudaMemcpy with kind 17");
	expect(cudaMemset(freed, 0, N), cudaErrorInvalidValue, "cudaMemset of freed memory");
	void *huge = NULL;
	expect(cudaMalloc(&huge, (size_t)1 << 62), cudaErrorMemoryAllocation,
	       "cudaMalloc of 4 EiB");

	/* The device still works. */
	for (int i = 0; i < N; i++)
		host[i] = (char)i;
	char back[N];
	CK(cudaMemcpy(d, host, N, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(back, d, N, cudaMemcpyDeviceToHost));
	check_array("a copy after the errors", back, host, N);
	CK(cudaDeviceSynchronize());
	CK(cudaFree(d));
	return verdict("error_memory");
}
