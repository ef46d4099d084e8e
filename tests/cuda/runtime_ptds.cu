/*
 * runtime_ptds: --default-stream per-thread.  Each host thread's NULL stream
 * is its own blocking stream: work a thread queues on it is ordered and done
 * at that thread's cudaStreamSynchronize(0); cudaStreamPerThread names it;
 * the legacy stream is still there as cudaStreamLegacy.
 */
// nvcc-flags: -arch=sm_75 --default-stream per-thread
#include "check.h"
#include <thread>

__global__ void fill(int *p, int n, int v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = v;
}

__global__ void add(int *p, int n, int v)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] += v;
}

static void worker(int id, int *bad)
{
	const int n = 4096;
	int *d, h[n];

	*bad = 0;
	if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) {
		*bad = -1;
		return;
	}
	fill<<<n / 256, 256>>>(d, n, id);
	add<<<n / 256, 256, 0, cudaStreamPerThread>>>(d, n, 100);
	add<<<n / 256, 256>>>(d, n, 1000);
	cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, 0);
	if (cudaStreamSynchronize(0) != cudaSuccess)
		*bad = -2;
	for (int i = 0; i < n; i++)
		if (h[i] != id + 1100)
			(*bad)++;
	cudaFree(d);
}

int main()
{
	int bad[4];
	std::thread t[4];

	for (int i = 0; i < 4; i++)
		t[i] = std::thread(worker, i, &bad[i]);
	for (int i = 0; i < 4; i++)
		t[i].join();
	for (int i = 0; i < 4; i++)
		check(bad[i] == 0, "thread %d: %d wrong values (or error %d)", i, bad[i], bad[i]);

	int *d, v = 0;
	CK(cudaMalloc(&d, sizeof(int)));
	fill<<<1, 1, 0, cudaStreamLegacy>>>(d, 1, 7);
	CK(cudaStreamSynchronize(cudaStreamLegacy));
	CK(cudaMemcpy(&v, d, sizeof(int), cudaMemcpyDeviceToHost));
	check(v == 7, "legacy stream wrote %d, want 7", v);
	unsigned flags = 99;
	CK(cudaStreamGetFlags(cudaStreamPerThread, &flags));
	check(flags == cudaStreamDefault, "per-thread stream flags %u, want 0", flags);
	CK(cudaFree(d));
	return verdict("runtime_ptds");
}
