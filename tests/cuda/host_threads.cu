/*
 * host_threads: several host threads using the device at once, each with
 * its own stream, buffers and kernel launches (the launch configuration
 * pushed by <<<>>> is per host thread), and one stream shared by all of
 * them for short kernels that count with atomics.
 */
#include <thread>
#include "check.h"

#define THREADS 4
#define ROUNDS 25
#define N 4096

__global__ void affine(const int *in, int *out, int n, int mul, int add)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i] * mul + add;
}

__global__ void count(unsigned *c)
{
	atomicAdd(c, 1u);
}

static int errors[THREADS];

static void worker(int id, cudaStream_t shared, unsigned *counter)
{
	cudaStream_t s;
	int *in, *out, *host;
	if (cudaStreamCreate(&s) || cudaMalloc(&in, N * 4) || cudaMalloc(&out, N * 4) ||
	    cudaMallocHost(&host, N * 4)) {
		errors[id]++;
		return;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < N; i++)
			host[i] = i + r;
		cudaMemcpyAsync(in, host, N * 4, cudaMemcpyHostToDevice, s);
		int block = 256 - 32 * id;
		affine<<<(N + block - 1) / block, block, 0, s>>>(in, out, N, id + 2, r);
		cudaMemcpyAsync(host, out, N * 4, cudaMemcpyDeviceToHost, s);
		count<<<1, 32, 0, shared>>>(counter);
		if (cudaStreamSynchronize(s) != cudaSuccess) {
			errors[id]++;
			break;
		}
		for (int i = 0; i < N; i++)
			errors[id] += host[i] != (i + r) * (id + 2) + r;
	}
	cudaStreamDestroy(s);
	cudaFree(in);
	cudaFree(out);
	cudaFreeHost(host);
}

int main()
{
	cudaStream_t shared;
	unsigned *counter, total = 0;
	CK(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
	CK(cudaMalloc(&counter, sizeof(unsigned)));
	CK(cudaMemset(counter, 0, sizeof(unsigned)));
	std::thread t[THREADS];
	for (int id = 0; id < THREADS; id++)
		t[id] = std::thread(worker, id, shared, counter);
	for (int id = 0; id < THREADS; id++)
		t[id].join();
	CK(cudaStreamSynchronize(shared));
	CK(cudaMemcpy(&total, counter, sizeof(total), cudaMemcpyDeviceToHost));
	for (int id = 0; id < THREADS; id++)
		check(errors[id] == 0, "host thread %d: %d wrong values or failed calls", id,
		      errors[id]);
	check(total == THREADS * ROUNDS * 32, "counter on the shared stream: %u, want %u", total,
	      THREADS * ROUNDS * 32);
	CK(cudaFree(counter));
	CK(cudaStreamDestroy(shared));
	return verdict("host_threads");
}
