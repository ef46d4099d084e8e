/*
 * saxpy: y = a*x + y in single and double precision with a grid-stride
 * loop over a grid smaller than the data, compared with the host's result.
 */
#include "check.h"

template <typename T>
__global__ void axpy(int n, T a, const T *x, T *y)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = a * x[i] + y[i];
}

template <typename T>
static void run(const char *what, int n, T a, double tol)
{
	size_t bytes = n * sizeof(T);
	T *x = (T *)malloc(bytes), *y = (T *)malloc(bytes), *want = (T *)malloc(bytes);
	for (int i = 0; i < n; i++) {
		x[i] = (T)(i % 1000) / 7;
		y[i] = (T)(n - i) / 3;
		want[i] = a * x[i] + y[i];
	}
	T *dx, *dy;
	CK(cudaMalloc(&dx, bytes));
	CK(cudaMalloc(&dy, bytes));
	CK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
	axpy<<<37, 128>>>(n, a, dx, dy);
	CK(cudaGetLastError());
	CK(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
	check_array(what, y, want, n, tol);
	CK(cudaFree(dx));
	CK(cudaFree(dy));
	free(x), free(y), free(want);
}

int main()
{
	/* The device may fuse a*x+y into one fma: allow the last bit. */
	run<float>("saxpy", 1 << 20, 2.5f, 1e-6);
	run<double>("daxpy", 77777, -1.25, 1e-13);
	return verdict("saxpy");
}
