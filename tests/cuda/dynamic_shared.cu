/*
 * dynamic_shared: extern __shared__ memory sized at launch.  One array
 * carved into an int part and a double part (kept 8-byte aligned), a
 * static __shared__ array next to the dynamic one (they must not overlap),
 * and different sizes in successive launches of the same kernel.
 */
#include "check.h"

__global__ void reverse(const int *in, int *out, int n)
{
	extern __shared__ int buf[];
	int t = threadIdx.x;
	if (t < n)
		buf[t] = in[blockIdx.x * n + t];
	__syncthreads();
	if (t < n)
		out[blockIdx.x * n + t] = buf[n - 1 - t];
}

__global__ void carve(const int *in, double *out, int n)
{
	extern __shared__ double dyn[];
	__shared__ int fixed[64];
	double *d = dyn;
	int *i = (int *)(dyn + n);
	int t = threadIdx.x;
	fixed[t] = -t;
	i[t] = in[t];
	d[t] = in[t] * 0.5;
	__syncthreads();
	out[t] = d[(t + 1) % n] + i[(t + 2) % n] + fixed[(t + 3) % n];
}

static void test_reverse(int n, int blocks)
{
	int *in = (int *)malloc(n * blocks * 4), *out = (int *)malloc(n * blocks * 4);
	int *want = (int *)malloc(n * blocks * 4);
	for (int i = 0; i < n * blocks; i++)
		in[i] = i * 11 - 3;
	for (int b = 0; b < blocks; b++)
		for (int t = 0; t < n; t++)
			want[b * n + t] = in[b * n + n - 1 - t];
	int *din, *dout;
	CK(cudaMalloc(&din, n * blocks * 4));
	CK(cudaMalloc(&dout, n * blocks * 4));
	CK(cudaMemcpy(din, in, n * blocks * 4, cudaMemcpyHostToDevice));
	reverse<<<blocks, 1024, n * sizeof(int)>>>(din, dout, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, n * blocks * 4, cudaMemcpyDeviceToHost));
	char what[48];
	snprintf(what, sizeof(what), "reverse of %d with %zu shared bytes", n, n * sizeof(int));
	check_array(what, out, want, n * blocks);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	free(in), free(out), free(want);
}

int main()
{
	test_reverse(1000, 3);
	test_reverse(17, 5);
	test_reverse(1024, 2);

	const int n = 64;
	int in[n];
	double out[n], want[n];
	for (int t = 0; t < n; t++)
		in[t] = t * t;
	for (int t = 0; t < n; t++)
		want[t] = in[(t + 1) % n] * 0.5 + in[(t + 2) % n] - (t + 3) % n;
	int *din;
	double *dout;
	CK(cudaMalloc(&din, sizeof(in)));
	CK(cudaMalloc(&dout, sizeof(out)));
	CK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	carve<<<1, n, n * sizeof(double) + n * sizeof(int)>>>(din, dout, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	check_array("carved dynamic shared memory next to static", out, want, n);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	return verdict("dynamic_shared");
}
