/*
 * runtime_api: runtime calls around the kernels.  Handles that are garbage
 * or destroyed give cudaErrorInvalidResourceHandle; cudaMemcpyDefault and
 * cudaPointerGetAttributes follow the runtime's table of allocations;
 * kernels are launched through cudaLaunchKernel with a host stub and with a
 * cudaKernel_t; function attributes and occupancy answer sensibly; stream
 * callbacks run in order; host registration is tracked; 3D pitched
 * allocations, fills and copies land where they should.
 */
#include "check.h"
#include <cstring>

__global__ void scale(float *p, float k, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] *= k;
}

__global__ void __launch_bounds__(128) bounded(int *p)
{
	__shared__ int s[64];
	s[threadIdx.x % 64] = threadIdx.x;
	__syncthreads();
	p[threadIdx.x] = s[threadIdx.x % 64];
}

static void CUDART_CB note(cudaStream_t s, cudaError_t status, void *data)
{
	int *order = (int *)data;
	order[order[0] + 1] = status == cudaSuccess ? 10 + order[0] : -1;
	order[0]++;
}

static void handles()
{
	cudaStream_t s;
	cudaEvent_t e;
	int garbage[16] = { 0 };

	CK_EXPECT(cudaStreamSynchronize((cudaStream_t)garbage), cudaErrorInvalidResourceHandle);
	CK_EXPECT(cudaEventQuery((cudaEvent_t)garbage), cudaErrorInvalidResourceHandle);
	CK(cudaStreamCreate(&s));
	CK(cudaStreamDestroy(s));
	CK_EXPECT(cudaStreamQuery(s), cudaErrorInvalidResourceHandle);
	CK_EXPECT(cudaStreamDestroy(s), cudaErrorInvalidResourceHandle);
	CK(cudaEventCreate(&e));
	CK(cudaEventDestroy(e));
	CK_EXPECT(cudaEventRecord(e, 0), cudaErrorInvalidResourceHandle);
	CK_EXPECT(cudaStreamCreateWithFlags(&s, 0x40), cudaErrorInvalidValue);
	CK(cudaGetLastError() == cudaErrorInvalidValue ? cudaSuccess : cudaErrorUnknown);

	int least, greatest, prio;
	CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	check(greatest <= least, "priority range %d..%d", least, greatest);
	CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
	unsigned flags;
	CK(cudaStreamGetFlags(s, &flags));
	CK(cudaStreamGetPriority(s, &prio));
	check(flags == cudaStreamNonBlocking && prio == greatest, "stream flags %u priority %d",
	      flags, prio);
	CK(cudaStreamDestroy(s));
}

static void memory_table()
{
	const int n = 1000;
	float *d, *pinned, host[n];
	cudaPointerAttributes a;

	CK(cudaMalloc(&d, n * sizeof(float)));
	CK(cudaMallocHost(&pinned, n * sizeof(float)));
	for (int i = 0; i < n; i++)
		pinned[i] = (float)i;
	CK(cudaMemcpy(d, pinned, n * sizeof(float), cudaMemcpyDefault));
	CK(cudaMemcpy(host, d, n * sizeof(float), cudaMemcpyDefault));
	check(memcmp(host, pinned, sizeof(host)) == 0, "cudaMemcpyDefault round trip differs");

	CK(cudaPointerGetAttributes(&a, d + 10));
	check(a.type == cudaMemoryTypeDevice && a.device == 0, "device pointer: type %d", a.type);
	CK(cudaPointerGetAttributes(&a, pinned));
	check(a.type == cudaMemoryTypeHost && a.hostPointer == pinned, "pinned: type %d", a.type);
	CK(cudaPointerGetAttributes(&a, host));
	check(a.type == cudaMemoryTypeUnregistered, "stack memory: type %d", a.type);

	/* Past the end of the allocation, a pointer that is no allocation,
	 * a bad direction, freeing twice. */
	CK_EXPECT(cudaMemcpy(d + 1, host, n * sizeof(float), cudaMemcpyHostToDevice),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemcpy(host, host + 1, 4, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemcpy(d, host, 4, (cudaMemcpyKind)7), cudaErrorInvalidMemcpyDirection);
	CK_EXPECT(cudaMemset(d + n, 0, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaFree(d + 1), cudaErrorInvalidValue);
	CK_EXPECT(cudaFreeHost(host), cudaErrorInvalidValue);

	CK(cudaHostRegister(host, sizeof(host), cudaHostRegisterDefault));
	CK_EXPECT(cudaHostRegister(host + 10, 16, 0), cudaErrorHostMemoryAlreadyRegistered);
	CK(cudaPointerGetAttributes(&a, host + 5));
	check(a.type == cudaMemoryTypeHost, "registered: type %d", a.type);
	CK(cudaHostUnregister(host));
	CK_EXPECT(cudaHostUnregister(host), cudaErrorHostMemoryNotRegistered);
	cudaGetLastError();

	CK(cudaFree(d));
	CK(cudaFreeHost(pinned));
}

static void memory_3d()
{
	enum { W = 10, H = 6, D = 4 };
	static unsigned char host[D][H][W], back[D][H][W];
	cudaExtent ext = make_cudaExtent(W, H, D);
	cudaPitchedPtr dev;
	cudaMemcpy3DParms p = {};

	CK(cudaMalloc3D(&dev, ext));
	check(dev.pitch >= W && dev.ysize == H, "cudaMalloc3D: pitch %zu ysize %zu", dev.pitch,
	      dev.ysize);
	CK(cudaMemset3D(dev, 0x5a, ext));
	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				host[z][y][x] = (unsigned char)(z * 50 + y * 8 + x);
	/* Copy the inner 8x4x2 box of host to position (1,1,1) on the device. */
	p.srcPtr = make_cudaPitchedPtr(host, W, W, H);
	p.srcPos = make_cudaPos(1, 1, 1);
	p.dstPtr = dev;
	p.dstPos = make_cudaPos(1, 1, 1);
	p.extent = make_cudaExtent(W - 2, H - 2, D - 2);
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	memset(&p, 0, sizeof(p));
	p.srcPtr = dev;
	p.dstPtr = make_cudaPitchedPtr(back, W, W, H);
	p.extent = ext;
	p.kind = cudaMemcpyDeviceToHost;
	CK(cudaMemcpy3D(&p));
	int bad = 0;
	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				bool inner = x >= 1 && x < W - 1 && y >= 1 && y < H - 1 &&
					     z >= 1 && z < D - 1;
				bad += back[z][y][x] != (inner ? host[z][y][x] : 0x5a);
			}
	check(bad == 0, "3D copy: %d bytes wrong", bad);
	CK(cudaFree(dev.ptr));
}

static void launches()
{
	const int n = 300;
	float *d, h[n];
	float k = 3.0f;
	int count = n;
	void *args[] = { &d, &k, &count };
	cudaKernel_t kern;

	CK(cudaMalloc(&d, sizeof(h)));
	for (int i = 0; i < n; i++)
		h[i] = (float)i;
	CK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
	CK(cudaLaunchKernel((const void *)scale, dim3(3), dim3(128), args, 0, 0));
	CK(cudaGetKernel(&kern, (const void *)scale));
	CK(cudaLaunchKernel((const void *)kern, dim3(3), dim3(128), args, 0, 0));
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++)
		if (h[i] != 9.0f * i) {
			check(false, "scale[%d] = %g, want %g", i, h[i], 9.0f * i);
			break;
		}
	CK_EXPECT(cudaLaunchKernel((const void *)launches, dim3(1), dim3(1), args, 0, 0),
		  cudaErrorInvalidDeviceFunction);
	cudaGetLastError();

	cudaFuncAttributes fa;
	CK(cudaFuncGetAttributes(&fa, (const void *)bounded));
	check(fa.maxThreadsPerBlock == 128, "bounded: maxThreadsPerBlock %d, want 128",
	      fa.maxThreadsPerBlock);
	check(fa.sharedSizeBytes >= 64 * sizeof(int), "bounded: static shared %zu bytes",
	      fa.sharedSizeBytes);
	int *p;
	CK(cudaMalloc(&p, 256 * sizeof(int)));
	bounded<<<1, 256>>>(p);     /* over its bounds, within the device's */
	CK_EXPECT(cudaGetLastError(), cudaErrorLaunchOutOfResources);
	bounded<<<1, 2048>>>(p);    /* over the device's limit */
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidConfiguration);
	bounded<<<1, 128>>>(p);
	CK(cudaDeviceSynchronize());
	int blocks = 0;
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded, 128, 0));
	check(blocks >= 1, "occupancy: %d blocks per SM", blocks);
	int coop;
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
	if (coop) {
		void *bargs[] = { &p };
		CK_EXPECT(cudaLaunchCooperativeKernel((const void *)bounded, dim3(1 << 20),
						      dim3(128), bargs, 0, 0),
			  cudaErrorCooperativeLaunchTooLarge);
		cudaGetLastError();
	}
	CK(cudaFree(p));
	CK(cudaFree(d));
}

static void callbacks()
{
	int order[8] = { 0 };
	cudaStream_t s;
	cudaEvent_t a, b;
	float ms = -1;

	CK(cudaStreamCreate(&s));
	CK(cudaEventCreate(&a));
	CK(cudaEventCreate(&b));
	CK(cudaEventRecord(a, s));
	for (int i = 0; i < 3; i++)
		CK(cudaStreamAddCallback(s, note, order, 0));
	CK(cudaEventRecord(b, s));
	CK(cudaEventSynchronize(b));
	check(order[0] == 3 && order[1] == 10 && order[2] == 11 && order[3] == 12,
	      "callbacks ran as %d: %d %d %d", order[0], order[1], order[2], order[3]);
	CK(cudaEventElapsedTime(&ms, a, b));
	check(ms >= 0, "elapsed %g ms", ms);
	CK_EXPECT(cudaStreamAddCallback(s, note, order, 1), cudaErrorInvalidValue);
	cudaGetLastError();
	CK(cudaEventDestroy(a));
	CK(cudaEventDestroy(b));
	CK(cudaStreamDestroy(s));
}

int main()
{
	int v;

	CK(cudaRuntimeGetVersion(&v));
	check(v == 13000, "runtime version %d", v);
	CK_EXPECT(cudaSetDevice(1 << 20), cudaErrorInvalidDevice);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)92, 0), cudaErrorInvalidValue);
	cudaGetLastError();
	handles();
	memory_table();
	memory_3d();
	launches();
	callbacks();
	return verdict("runtime_api");
}
