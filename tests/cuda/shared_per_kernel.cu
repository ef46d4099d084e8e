/*
 * shared_per_kernel: a kernel's static shared memory is its own variables',
 * as a GPU counts it, not the module's: three kernels of one program each
 * declare 40 KB or more (one in its body, one a template's static
 * __shared__, one a file-scope __shared__ array that a device function
 * fills), together far past the 48 KB a block may have.  Each reports its
 * own size in cudaFuncGetAttributes, launches, and fills and sums its
 * memory right; a fourth kernel reaches two of the arrays through device
 * functions and gets both, apart; and arrays that nvcc moves into the
 * one device function that uses each (20 KB each) take memory only in
 * the kernels that call it, apart from each other.
 */
#include "check.h"

#define A_INTS 10000
#define B_INTS 11000
#define G_INTS 9000
#define X_INTS 5000

__shared__ int file_scope[G_INTS];
__shared__ int small_scope[100];
__shared__ int x1[X_INTS], x2[X_INTS];

__global__ void own_array(int *out)
{
	__shared__ int a[A_INTS];

	for (int i = threadIdx.x; i < A_INTS; i += blockDim.x)
		a[i] = i;
	__syncthreads();
	if (threadIdx.x == 0) {
		int s = 0;
		for (int i = 0; i < A_INTS; i++)
			s += a[i];
		out[blockIdx.x] = s;
	}
}

template <int N>
__global__ void template_static(int *out)
{
	static __shared__ int b[N];

	for (int i = threadIdx.x; i < N; i += blockDim.x)
		b[i] = 2 * i;
	__syncthreads();
	if (threadIdx.x == 0) {
		int s = 0;
		for (int i = 0; i < N; i++)
			s += b[i];
		out[blockIdx.x] = s;
	}
}

__device__ __noinline__ void fill_file_scope(int k)
{
	for (int i = threadIdx.x; i < G_INTS; i += blockDim.x)
		file_scope[i] = k * i;
}

__device__ __noinline__ void fill_small(void)
{
	for (int i = threadIdx.x; i < 100; i += blockDim.x)
		small_scope[i] = 1000 + i;
}

__global__ void through_function(int *out)
{
	fill_file_scope(3);
	__syncthreads();
	if (threadIdx.x == 0) {
		int s = 0;
		for (int i = 0; i < G_INTS; i++)
			s += file_scope[i];
		out[blockIdx.x] = s;
	}
}

/* Both file-scope arrays: they must not overlap here. */
__global__ void both(int *out)
{
	fill_file_scope(1);
	fill_small();
	__syncthreads();
	if (threadIdx.x == 0) {
		int s = 0;
		for (int i = 0; i < G_INTS; i++)
			s += file_scope[i];
		for (int i = 0; i < 100; i++)
			s += small_scope[i];
		out[blockIdx.x] = s;
	}
}

/* File-scope arrays that one function each uses (nvcc moves them into
 * its body): fill_x1 fills x1, has fill_x2 fill x2, and reads x1 back,
 * which must not have moved.  use_x1 reaches both arrays, use_x2 only
 * x2. */
__device__ __noinline__ int fill_x2(int k)
{
	for (int i = threadIdx.x; i < X_INTS; i += blockDim.x)
		x2[i] = k + 1;
	__syncthreads();
	return x2[threadIdx.x];
}

__device__ __noinline__ int fill_x1(int k)
{
	int r;

	for (int i = threadIdx.x; i < X_INTS; i += blockDim.x)
		x1[i] = k;
	__syncthreads();
	r = fill_x2(k);
	__syncthreads();
	return x1[X_INTS - 1 - threadIdx.x] + 1000 * r;
}

__global__ void use_x1(int *out)
{
	int v = fill_x1(5);

	if (threadIdx.x == 0)
		out[blockIdx.x] = v;
}

__global__ void use_x2(int *out)
{
	int v = fill_x2(5);

	if (threadIdx.x == 0)
		out[blockIdx.x] = v;
}

static void check_kernel(const char *name, const void *k, void (*launch)(int *), size_t bytes,
			 int want)
{
	cudaFuncAttributes a;
	int *d, got[2];

	CK(cudaFuncGetAttributes(&a, k));
	check(a.sharedSizeBytes == bytes, "%s: sharedSizeBytes %zu, want %zu", name,
	      a.sharedSizeBytes, bytes);
	CK(cudaMalloc(&d, sizeof(got)));
	launch(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	check(got[0] == want && got[1] == want, "%s: sums %d and %d, want %d", name, got[0],
	      got[1], want);
	CK(cudaFree(d));
}

static void launch_own(int *d) { own_array<<<2, 128>>>(d); }
static void launch_template(int *d) { template_static<B_INTS><<<2, 128>>>(d); }
static void launch_function(int *d) { through_function<<<2, 128>>>(d); }
static void launch_both(int *d) { both<<<2, 128>>>(d); }
static void launch_x1(int *d) { use_x1<<<2, 128>>>(d); }
static void launch_x2(int *d) { use_x2<<<2, 128>>>(d); }

int main(void)
{
	check_kernel("own array", (const void *)own_array, launch_own, A_INTS * 4,
		     A_INTS * (A_INTS - 1) / 2);
	check_kernel("template static", (const void *)template_static<B_INTS>, launch_template,
		     B_INTS * 4, B_INTS * (B_INTS - 1));
	check_kernel("file scope through a function", (const void *)through_function,
		     launch_function, G_INTS * 4, 3 * (G_INTS * (G_INTS - 1) / 2));
	check_kernel("two file-scope arrays", (const void *)both, launch_both, G_INTS * 4 + 400,
		     G_INTS * (G_INTS - 1) / 2 + 100 * 1000 + 99 * 100 / 2);
	check_kernel("x1 and x2 through calls", (const void *)use_x1, launch_x1, 2 * X_INTS * 4,
		     5 + 1000 * 6);
	check_kernel("x2 through a call", (const void *)use_x2, launch_x2, X_INTS * 4, 6);
	return verdict("shared_per_kernel");
}
