/*
 * rt2_memory: what the runtime says about memory.  cudaPointerGetAttributes
 * on device, managed, pinned, registered, unknown host and NULL pointers
 * (CUDA 11+: unknown host memory is cudaMemoryTypeUnregistered, not an
 * error); device limits stored, read back, reset by cudaDeviceReset, and
 * the malloc heap limit enforced on device-side malloc; unified memory
 * hints (cudaMemPrefetchAsync and its batch forms, cudaMemAdvise,
 * cudaStreamAttachMemAsync)
 * checked as CUDA checks them and read back by cudaMemRangeGetAttribute(s),
 * with a kernel still seeing the data.  A device without managed memory
 * (the remote backend) must refuse cudaMallocManaged instead.  The heap's
 * exact budget is checked only on the cpu engine (a GPU's driver rounds
 * the heap up).
 */
#include "check.h"

#include <string.h>
#include <vector>

__global__ void twice(int *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] *= 2;
}

/* Each thread allocates bytes from the device heap and holds them until
 * every thread of the block has asked; ok[i] says whether it got them. */
__global__ void heap_alloc(size_t bytes, int *ok)
{
	char *p = (char *)malloc(bytes);
	ok[threadIdx.x] = p != NULL;
	if (p)
		p[0] = p[bytes - 1] = 1;
	__syncthreads();
	free(p);
}

__global__ void hello(void)
{
	printf("rt2_memory: hello from the device\n");
}

static void expect_attr(const void *p, cudaMemoryType type, int device, const void *dptr,
			const void *hptr, const char *what)
{
	cudaPointerAttributes a;
	memset(&a, 0x5a, sizeof(a));
	CK(cudaPointerGetAttributes(&a, p));
	check(a.type == type, "%s: type %d, want %d", what, (int)a.type, (int)type);
	check(a.device == device, "%s: device %d, want %d", what, a.device, device);
	check(a.devicePointer == dptr, "%s: devicePointer %p, want %p", what, a.devicePointer, dptr);
	check(a.hostPointer == hptr, "%s: hostPointer %p, want %p", what, a.hostPointer, hptr);
}

static void test_pointers(int dev, int managed)
{
	int *d, *m = NULL, *pinned, local = 0;
	std::vector<int> reg(1024);
	int *unknown = (int *)malloc(64);

	CK(cudaMalloc(&d, 4096));
	if (managed)
		CK(cudaMallocManaged(&m, 4096));
	else
		CK_EXPECT(cudaMallocManaged(&m, 4096), cudaErrorNotSupported);
	CK(cudaMallocHost(&pinned, 4096));
	CK(cudaHostRegister(reg.data(), reg.size() * sizeof(int), cudaHostRegisterDefault));
	expect_attr(d, cudaMemoryTypeDevice, dev, d, NULL, "device");
	expect_attr(d + 100, cudaMemoryTypeDevice, dev, d + 100, NULL, "inside device");
	if (managed)
		expect_attr(m + 5, cudaMemoryTypeManaged, dev, m + 5, m + 5, "managed");
	expect_attr(pinned, cudaMemoryTypeHost, dev, pinned, pinned, "pinned");
	expect_attr(reg.data() + 3, cudaMemoryTypeHost, dev, reg.data() + 3, reg.data() + 3,
		    "registered");
	expect_attr(unknown, cudaMemoryTypeUnregistered, -2, NULL, unknown, "malloc'd host");
	expect_attr(&local, cudaMemoryTypeUnregistered, -2, NULL, &local, "stack");
	expect_attr(NULL, cudaMemoryTypeUnregistered, -2, NULL, NULL, "NULL");
	CK_EXPECT(cudaPointerGetAttributes(NULL, d), cudaErrorInvalidValue);
	cudaGetLastError();
	/* Freed memory is unknown again. */
	CK(cudaFree(d));
	CK(cudaHostUnregister(reg.data()));
	expect_attr(d, cudaMemoryTypeUnregistered, -2, NULL, d, "freed device");
	expect_attr(reg.data(), cudaMemoryTypeUnregistered, -2, NULL, reg.data(), "unregistered");
	CK(cudaFree(m));   /* NULL when there is no managed memory */
	CK(cudaFreeHost(pinned));
	free(unknown);
}

/* exact_heap: the heap's budget holds to the byte. */
static void test_limits(int exact_heap)
{
	size_t v = 0;
	CK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
	check(v == 1024, "default stack %zu", v);
	CK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
	check(v == 1 << 20, "default printf FIFO %zu", v);
	CK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
	check(v == 8 << 20, "default heap %zu", v);

	CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
	CK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 3 << 20));
	CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
	CK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
	check(v == 4096, "stack %zu", v);
	CK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
	check(v == 3 << 20, "printf FIFO %zu", v);
	CK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
	check(v == 1 << 20, "heap %zu", v);
	CK_EXPECT(cudaDeviceSetLimit((cudaLimit)0x40, 1), cudaErrorUnsupportedLimit);
	CK_EXPECT(cudaDeviceGetLimit(&v, (cudaLimit)0x40), cudaErrorUnsupportedLimit);
	CK_EXPECT(cudaDeviceGetLimit(NULL, cudaLimitStackSize), cudaErrorInvalidValue);
	cudaGetLastError();

	/* 1 MiB of heap: 32 threads x 16 KiB fit, 32 x 64 KiB do not all fit,
	 * nor does one block of 2 MiB. */
	int *ok, h[32];
	CK(cudaMalloc(&ok, sizeof(h)));
	heap_alloc<<<1, 1>>>(2 << 20, ok);
	CK(cudaMemcpy(h, ok, sizeof(int), cudaMemcpyDeviceToHost));
	if (exact_heap)
		check(h[0] == 0, "2 MiB from a 1 MiB heap succeeded");
	heap_alloc<<<1, 32>>>(16 << 10, ok);
	CK(cudaMemcpy(h, ok, sizeof(h), cudaMemcpyDeviceToHost));
	int got = 0;
	for (int i = 0; i < 32; i++)
		got += h[i];
	check(got == 32, "16 KiB allocations within a 1 MiB heap: %d of 32", got);
	heap_alloc<<<1, 32>>>(64 << 10, ok);
	CK(cudaMemcpy(h, ok, sizeof(h), cudaMemcpyDeviceToHost));
	got = 0;
	for (int i = 0; i < 32; i++)
		got += h[i];
	if (exact_heap)
		check(got < 32, "64 KiB allocations past a 1 MiB heap: all %d succeeded", got);
	else
		printf("heap budget not checked: not the cpu engine\n");
	CK(cudaFree(ok));

	/* Once a kernel used malloc or printf, their sizes are fixed. */
	hello<<<1, 1>>>();
	CK(cudaDeviceSynchronize());
	CK_EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 << 20), cudaErrorInvalidValue);
	CK_EXPECT(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 << 20), cudaErrorInvalidValue);
	CK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
	check(v == 1 << 20, "heap after a refused change %zu", v);
	CK(cudaDeviceSetLimit(cudaLimitStackSize, 2048));
	int major;
	CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
	if (major < 9) {
		CK(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4));
		CK_EXPECT(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 25),
			  cudaErrorInvalidValue);
	} else {
		CK_EXPECT(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4),
			  cudaErrorUnsupportedLimit);
	}
	cudaGetLastError();

	/* A reset returns the limits to their defaults, and lets them change. */
	CK(cudaDeviceReset());
	CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 8 << 20));
	CK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 20));
	CK(cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize));
	check(v == 8 << 20, "heap after reset %zu", v);
	CK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
	check(v == 1024, "stack after reset %zu", v);
}

static int range_int(cudaMemRangeAttribute attr, const void *p, size_t n)
{
	int v = -99;
	CK(cudaMemRangeGetAttribute(&v, sizeof(v), attr, p, n));
	return v;
}

static void test_managed(int dev)
{
	const int N = 4096;
	int *m, *d;
	cudaStream_t s;
	cudaMemLocation here = { cudaMemLocationTypeDevice, dev };
	cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
	cudaMemLocation nowhere = { cudaMemLocationTypeDevice, 1000 };
	cudaMemLocation bad_type = { (cudaMemLocationType)9, 0 };

	CK(cudaMallocManaged(&m, N * sizeof(int)));
	CK(cudaMalloc(&d, N * sizeof(int)));
	CK(cudaStreamCreate(&s));
	for (int i = 0; i < N; i++)
		m[i] = i;

	/* Fresh memory: no advice, no prefetch. */
	check(range_int(cudaMemRangeAttributeReadMostly, m, N * 4) == 0, "fresh read-mostly");
	check(range_int(cudaMemRangeAttributePreferredLocation, m, N * 4) == cudaInvalidDeviceId,
	      "fresh preferred location");
	check(range_int(cudaMemRangeAttributeLastPrefetchLocation, m, N * 4) == cudaInvalidDeviceId,
	      "fresh prefetch location");

	/* Prefetches. */
	CK(cudaMemPrefetchAsync(m, N * sizeof(int), here, 0, s));
	check(range_int(cudaMemRangeAttributeLastPrefetchLocation, m, N * 4) == dev,
	      "prefetched to the device");
	check(range_int(cudaMemRangeAttributeLastPrefetchLocationType, m, N * 4) ==
	      cudaMemLocationTypeDevice, "prefetch location type");
	twice<<<N / 256, 256, 0, s>>>(m, N);
	CK(cudaMemPrefetchAsync(m + 16, 64, host, 0, s));
	check(range_int(cudaMemRangeAttributeLastPrefetchLocation, m, 64) == cudaCpuDeviceId,
	      "prefetched to the host");
	CK(cudaStreamSynchronize(s));
	size_t bad = 0;
	for (int i = 0; i < N; i++)
		bad += m[i] != 2 * i;
	check(bad == 0, "kernel on prefetched managed memory: %zu wrong", bad);
	CK_EXPECT(cudaMemPrefetchAsync(m, N * sizeof(int), here, 1, s), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchAsync(m, N * sizeof(int), nowhere, 0, s), cudaErrorInvalidDevice);
	CK_EXPECT(cudaMemPrefetchAsync(m, N * sizeof(int), bad_type, 0, s), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchAsync(m, N * sizeof(int) + 1, here, 0, s), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchAsync(d, N * sizeof(int), here, 0, s), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchAsync(m, 64, here, 0, (cudaStream_t)&bad),
		  cudaErrorInvalidResourceHandle);
	cudaGetLastError();

	/* Batches: on a stream other than the legacy one; each location
	 * applies from its index on.  Advice is kept per allocation, so the
	 * last operation's location is what reads back. */
	int concurrent;
	CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
	void *ptrs[3] = { m, m + 1024, m + 2048 };
	size_t lens[3] = { 4096, 4096, 8192 };
	cudaMemLocation locs[2] = { host, here };
	size_t idxs[2] = { 0, 2 }, zero_zero[2] = { 0, 0 }, from_one[1] = { 1 };
	if (concurrent) {
		CK(cudaMemPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 2, 0, s));
		check(range_int(cudaMemRangeAttributeLastPrefetchLocation, m, 4) == dev,
		      "batch prefetch: last location");
		CK(cudaMemDiscardAndPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 1, 0, s));
		check(range_int(cudaMemRangeAttributeLastPrefetchLocation, m, 4) == cudaCpuDeviceId,
		      "discard and prefetch: last location");
		CK(cudaMemDiscardBatchAsync(ptrs, lens, 3, 0, s));
		CK(cudaMemPrefetchAsync(m, N * sizeof(int), here, 0, s));   /* contents defined again */
		CK(cudaStreamSynchronize(s));
	}
	CK_EXPECT(cudaMemPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 2, 0, NULL),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchBatchAsync(ptrs, lens, 3, locs, zero_zero, 2, 0, s),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchBatchAsync(ptrs, lens, 3, locs, from_one, 1, 0, s),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 2, 1, s),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemDiscardBatchAsync(ptrs, lens, 3, 0, cudaStreamLegacy), cudaErrorInvalidValue);
	locs[1] = nowhere;
	if (concurrent)
		CK_EXPECT(cudaMemPrefetchBatchAsync(ptrs, lens, 3, locs, idxs, 2, 0, s),
			  cudaErrorInvalidDevice);
	ptrs[1] = d;
	CK_EXPECT(cudaMemDiscardBatchAsync(ptrs, lens, 3, 0, s),
		  concurrent ? cudaErrorInvalidValue : cudaErrorNotSupported);
	cudaGetLastError();

	/* Advice, read back. */
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetReadMostly, here));
	check(range_int(cudaMemRangeAttributeReadMostly, m, N * 4) == 1, "read-mostly set");
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseUnsetReadMostly, nowhere));
	check(range_int(cudaMemRangeAttributeReadMostly, m, N * 4) == 0, "read-mostly unset");
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetPreferredLocation, host));
	check(range_int(cudaMemRangeAttributePreferredLocation, m, N * 4) == cudaCpuDeviceId,
	      "preferred host");
	check(range_int(cudaMemRangeAttributePreferredLocationType, m, N * 4) ==
	      cudaMemLocationTypeHost, "preferred type host");
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetPreferredLocation, here));
	check(range_int(cudaMemRangeAttributePreferredLocation, m, N * 4) == dev, "preferred device");
	check(range_int(cudaMemRangeAttributePreferredLocationId, m, N * 4) == dev,
	      "preferred id");
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseUnsetPreferredLocation, here));
	check(range_int(cudaMemRangeAttributePreferredLocation, m, N * 4) == cudaInvalidDeviceId,
	      "preferred unset");
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetAccessedBy, here));
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetAccessedBy, host));
	int by[4];
	CK(cudaMemRangeGetAttribute(by, sizeof(by), cudaMemRangeAttributeAccessedBy, m, N * 4));
	check(by[0] == cudaCpuDeviceId && by[1] == dev && by[2] == cudaInvalidDeviceId &&
	      by[3] == cudaInvalidDeviceId, "accessed by: %d %d %d %d", by[0], by[1], by[2], by[3]);
	CK(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseUnsetAccessedBy, host));
	CK(cudaMemRangeGetAttribute(by, sizeof(by), cudaMemRangeAttributeAccessedBy, m, N * 4));
	check(by[0] == dev && by[1] == cudaInvalidDeviceId, "accessed by after unset: %d %d",
	      by[0], by[1]);
	CK_EXPECT(cudaMemAdvise(m, N * sizeof(int), (cudaMemoryAdvise)0, here),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemAdvise(m, N * sizeof(int), (cudaMemoryAdvise)7, here),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemAdvise(m, N * sizeof(int), cudaMemAdviseSetPreferredLocation, nowhere),
		  cudaErrorInvalidDevice);
	CK_EXPECT(cudaMemAdvise(d, N * sizeof(int), cudaMemAdviseSetReadMostly, here),
		  cudaErrorInvalidValue);
	cudaGetLastError();

	/* Several attributes at once, and bad sizes. */
	int rm = -1, pl = -1, lp = -1;
	void *data[3] = { &rm, &pl, &lp };
	size_t sizes[3] = { 4, 4, 4 };
	cudaMemRangeAttribute attrs[3] = { cudaMemRangeAttributeReadMostly,
					   cudaMemRangeAttributePreferredLocation,
					   cudaMemRangeAttributeLastPrefetchLocation };
	CK(cudaMemRangeGetAttributes(data, sizes, attrs, 3, m, N * 4));
	check(rm == 0 && pl == cudaInvalidDeviceId && lp == (concurrent ? dev : cudaCpuDeviceId),
	      "attributes at once: %d %d %d", rm, pl, lp);
	int v;
	CK_EXPECT(cudaMemRangeGetAttribute(&v, 8, cudaMemRangeAttributeReadMostly, m, 4),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemRangeGetAttribute(&v, 4, (cudaMemRangeAttribute)99, m, 4),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeReadMostly, d, 4),
		  cudaErrorInvalidValue);
	cudaGetLastError();

	/* Attaching to a stream. */
	CK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle));
	CK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachGlobal));
	CK_EXPECT(cudaStreamAttachMemAsync(s, m, 0, 3), cudaErrorInvalidValue);
	CK_EXPECT(cudaStreamAttachMemAsync(s, m + 1, 0, cudaMemAttachHost), cudaErrorInvalidValue);
	CK_EXPECT(cudaStreamAttachMemAsync(s, d, 0, cudaMemAttachHost), cudaErrorInvalidValue);
	cudaGetLastError();
	twice<<<N / 256, 256, 0, s>>>(m, N);
	CK(cudaStreamSynchronize(s));
	bad = 0;
	for (int i = 0; i < N; i++)
		bad += m[i] != 4 * i;
	check(bad == 0, "kernel after the hints: %zu wrong", bad);

	CK(cudaStreamDestroy(s));
	CK(cudaFree(m));
	CK(cudaFree(d));
}

int main()
{
	int dev, managed;
	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
	test_pointers(dev, managed);
	if (managed)
		test_managed(dev);
	else
		printf("no managed memory on this device: hints not checked\n");
	test_limits(on_cpu_engine());
	return verdict("rt2_memory");
}
