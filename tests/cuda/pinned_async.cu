/*
 * pinned_async: page-locked host memory.  A pipeline of async copies and
 * kernels over four streams with cudaMallocHost buffers; memory from
 * cudaHostAlloc(cudaHostAllocMapped) written by a kernel through
 * cudaHostGetDevicePointer; malloc'd memory registered with cudaHostRegister
 * and used for async copies; the pointer attributes of each.
 */
#include "check.h"

#define CHUNKS 8
#define CHUNK (1 << 15)

__global__ void triple(int *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = a[i] * 3 + 1;
}

static void test_pipeline(void)
{
	const int n = CHUNKS * CHUNK;
	int *host, *dev, *want = (int *)malloc(n * sizeof(int));
	cudaStream_t s[4];
	CK(cudaMallocHost(&host, n * sizeof(int)));
	CK(cudaMalloc(&dev, n * sizeof(int)));
	for (int i = 0; i < 4; i++)
		CK(cudaStreamCreate(&s[i]));
	for (int i = 0; i < n; i++) {
		host[i] = i ^ 0x5555;
		want[i] = host[i] * 3 + 1;
	}
	for (int c = 0; c < CHUNKS; c++) {
		cudaStream_t st = s[c % 4];
		int *h = host + c * CHUNK, *d = dev + c * CHUNK;
		CK(cudaMemcpyAsync(d, h, CHUNK * sizeof(int), cudaMemcpyHostToDevice, st));
		triple<<<CHUNK / 256, 256, 0, st>>>(d, CHUNK);
		CK(cudaGetLastError());
		CK(cudaMemcpyAsync(h, d, CHUNK * sizeof(int), cudaMemcpyDeviceToHost, st));
	}
	for (int i = 0; i < 4; i++)
		CK(cudaStreamSynchronize(s[i]));
	check_array("pipelined chunks", host, want, n);

	cudaPointerAttributes attr;
	CK(cudaPointerGetAttributes(&attr, host));
	check(attr.type == cudaMemoryTypeHost, "cudaMallocHost memory: type %d, want host",
	      attr.type);
	for (int i = 0; i < 4; i++)
		CK(cudaStreamDestroy(s[i]));
	CK(cudaFreeHost(host));
	CK(cudaFree(dev));
	free(want);
}

static void test_mapped(void)
{
	const int n = 1000;
	int *host, *dptr, can_map = -1;
	CK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
	if (!can_map) {
		printf("device cannot map host memory: mapped memory not tested\n");
		return;
	}
	CK(cudaHostAlloc(&host, n * sizeof(int), cudaHostAllocMapped));
	CK(cudaHostGetDevicePointer((void **)&dptr, host, 0));
	for (int i = 0; i < n; i++)
		host[i] = i;
	triple<<<(n + 255) / 256, 256>>>(dptr, n);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	for (int i = 0; i < n; i++)
		check(host[i] == i * 3 + 1, "mapped host memory [%d]: got %d, want %d", i, host[i],
		      i * 3 + 1);
	CK(cudaFreeHost(host));
}

static void test_registered(void)
{
	const int n = 4096;
	int *host = (int *)malloc(n * sizeof(int)), *dev;
	cudaStream_t s;
	for (int i = 0; i < n; i++)
		host[i] = -i;
	CK(cudaHostRegister(host, n * sizeof(int), cudaHostRegisterDefault));
	cudaPointerAttributes attr;
	CK(cudaPointerGetAttributes(&attr, host + 10));
	check(attr.type == cudaMemoryTypeHost, "registered memory: type %d, want host", attr.type);
	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&dev, n * sizeof(int)));
	CK(cudaMemcpyAsync(dev, host, n * sizeof(int), cudaMemcpyHostToDevice, s));
	triple<<<n / 256, 256, 0, s>>>(dev, n);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	for (int i = 0; i < n; i++)
		check(host[i] == -i * 3 + 1, "registered [%d]: got %d, want %d", i, host[i], -i * 3 + 1);
	CK(cudaHostUnregister(host));
	CK(cudaStreamDestroy(s));
	CK(cudaFree(dev));
	free(host);
}

int main()
{
	test_pipeline();
	test_mapped();
	test_registered();
	return verdict("pinned_async");
}
