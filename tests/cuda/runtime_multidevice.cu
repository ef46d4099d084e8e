/*
 * runtime_multidevice: several devices in one process.  Each device gets its
 * own memory, kernels, streams and events; the current device is per host
 * thread; copies between devices (cudaMemcpyPeer, cudaMemcpyDefault) work.
 * With one device it checks that device 1 is refused; run it with two
 * (e.g. ANYGPU_SERVER=a,b) to test the rest.
 */
#include "check.h"
#include <thread>

__global__ void iota(int *p, int n, int base)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = base + i;
}

static const int n = 2048;

static void per_device(int dev, int *bad)
{
	int *d, h[n];
	cudaStream_t s;
	cudaEvent_t e;

	*bad = 0;
	if (cudaSetDevice(dev) != cudaSuccess || cudaMalloc(&d, n * sizeof(int)) != cudaSuccess ||
	    cudaStreamCreate(&s) != cudaSuccess || cudaEventCreate(&e) != cudaSuccess) {
		*bad = -1;
		return;
	}
	iota<<<n / 256, 256, 0, s>>>(d, n, dev * 100000);
	cudaEventRecord(e, s);
	cudaEventSynchronize(e);
	cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s);
	cudaStreamSynchronize(s);
	for (int i = 0; i < n; i++)
		*bad += h[i] != dev * 100000 + i;
	int cur = -1;
	cudaGetDevice(&cur);
	*bad += cur != dev;
	cudaEventDestroy(e);
	cudaStreamDestroy(s);
	cudaFree(d);
}

int main()
{
	int count = 0;

	CK(cudaGetDeviceCount(&count));
	if (count < 2) {
		CK_EXPECT(cudaSetDevice(count), cudaErrorInvalidDevice);
		printf("only %d device: checked that device %d is refused\n", count, count);
		return verdict("runtime_multidevice");
	}
	int bad[2];
	std::thread t0(per_device, 0, &bad[0]), t1(per_device, 1, &bad[1]);
	t0.join();
	t1.join();
	check(bad[0] == 0 && bad[1] == 0, "per-device work: %d and %d wrong", bad[0], bad[1]);

	int *a, *b, h[n];
	CK(cudaSetDevice(0));
	CK(cudaMalloc(&a, n * sizeof(int)));
	iota<<<n / 256, 256>>>(a, n, 7);
	CK(cudaSetDevice(1));
	CK(cudaMalloc(&b, n * sizeof(int)));
	CK(cudaMemcpyPeer(b, 1, a, 0, n * sizeof(int)));
	CK(cudaMemcpy(h, b, sizeof(h), cudaMemcpyDefault));
	for (int i = 0; i < n; i++)
		if (h[i] != 7 + i) {
			check(false, "peer copy [%d] = %d, want %d", i, h[i], 7 + i);
			break;
		}
	cudaPointerAttributes pa;
	CK(cudaPointerGetAttributes(&pa, a));
	check(pa.device == 0, "allocation on device %d, want 0", pa.device);
	CK(cudaFree(b));
	CK(cudaSetDevice(0));
	CK(cudaFree(a));
	return verdict("runtime_multidevice");
}
