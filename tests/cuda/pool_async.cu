/*
 * pool_async: stream-ordered allocation.  Memory freed on a stream is
 * reused by later allocations on that stream, and on another stream that
 * waits for the free; the reuse policies, the release threshold, trimming,
 * the reserved/used counters, pools created by the program, and their
 * limits behave as CUDA documents.
 */
#include <cstdint>

#include "check.h"

#define MB (1 << 20)

__global__ void fill(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		a[i] = v;
}

static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a)
{
	uint64_t v = 0;

	CK(cudaMemPoolGetAttribute(pool, a, &v));
	return v;
}

static void set_flag(cudaMemPool_t pool, cudaMemPoolAttr a, int on)
{
	CK(cudaMemPoolSetAttribute(pool, a, &on));
}

/* Fills n ints on s with v and checks them on the host. */
static void fill_and_check(const char *what, int *d, int v, int n, cudaStream_t s)
{
	static int h[MB / 4], want[MB / 4];

	fill<<<(n + 255) / 256, 256, 0, s>>>(d, v, n);
	CK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	for (int i = 0; i < n; i++)
		want[i] = v;
	check_array(what, h, want, n);
}

int main()
{
	cudaMemPool_t def, pool, got;
	cudaStream_t s1, s2;
	cudaEvent_t ev;
	int *a, *b, *c;
	int dev = 0, n = MB / 4;

	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CK(cudaDeviceGetDefaultMemPool(&def, dev));
	CK(cudaDeviceGetMemPool(&got, dev));
	check(got == def, "the current pool is not the default one at first");
	check(attr(def, cudaMemPoolAttrReleaseThreshold) == 0, "default threshold not 0");
	check(attr(def, cudaMemPoolReuseAllowInternalDependencies) == 1, "internal deps off");

	/* Same stream: the freed block serves the next allocation. */
	CK(cudaMallocAsync((void **)&a, MB, s1));
	fill<<<n / 256, 256, 0, s1>>>(a, 1, n);
	check(attr(def, cudaMemPoolAttrUsedMemCurrent) == MB, "used %llu, want 1 MiB",
	      (unsigned long long)attr(def, cudaMemPoolAttrUsedMemCurrent));
	CK(cudaFreeAsync(a, s1));
	check(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0, "used after free");
	CK(cudaMallocAsync((void **)&b, MB, s1));
	check(b == a, "same-stream allocation after a free did not reuse the block");
	check(attr(def, cudaMemPoolAttrReservedMemCurrent) == MB, "reserved %llu, want 1 MiB",
	      (unsigned long long)attr(def, cudaMemPoolAttrReservedMemCurrent));
	fill_and_check("reused block", b, 2, n, s1);

	/* Threshold 0: synchronising gives freed memory back. */
	CK(cudaFreeAsync(b, s1));
	CK(cudaStreamSynchronize(s1));
	check(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "reserved after sync: %llu",
	      (unsigned long long)attr(def, cudaMemPoolAttrReservedMemCurrent));
	check(attr(def, cudaMemPoolAttrReservedMemHigh) == MB, "reserved high watermark");

	/* Another stream that waits for the free may reuse the block. */
	uint64_t keep = UINT64_MAX;
	CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
	CK(cudaMallocAsync((void **)&a, MB, s1));
	fill<<<n / 256, 256, 0, s1>>>(a, 3, n);
	CK(cudaFreeAsync(a, s1));
	CK(cudaEventRecord(ev, s1));
	CK(cudaStreamWaitEvent(s2, ev, 0));
	CK(cudaMallocAsync((void **)&b, MB, s2));
	check(b == a, "a stream ordered after the free did not reuse the block");
	fill_and_check("block reused across streams", b, 4, n, s2);
	CK(cudaFreeAsync(b, s2));
	CK(cudaStreamSynchronize(s2));
	check(attr(def, cudaMemPoolAttrReservedMemCurrent) == MB,
	      "threshold did not keep the freed memory");

	/* With no reuse across streams allowed, s1 gets new memory. */
	set_flag(def, cudaMemPoolReuseAllowOpportunistic, 0);
	set_flag(def, cudaMemPoolReuseAllowInternalDependencies, 0);
	CK(cudaMallocAsync((void **)&c, MB, s1));
	check(c != b, "reuse across streams despite the policy");
	check(attr(def, cudaMemPoolAttrReservedMemCurrent) == 2 * MB, "reserved %llu, want 2 MiB",
	      (unsigned long long)attr(def, cudaMemPoolAttrReservedMemCurrent));
	CK(cudaFreeAsync(c, s1));
	set_flag(def, cudaMemPoolReuseAllowOpportunistic, 1);
	set_flag(def, cudaMemPoolReuseAllowInternalDependencies, 1);

	/* Trimming releases what is unused, down to what is asked to stay. */
	CK(cudaStreamSynchronize(s1));
	CK(cudaMemPoolTrimTo(def, MB));
	check(attr(def, cudaMemPoolAttrReservedMemCurrent) == MB, "trim to 1 MiB left %llu",
	      (unsigned long long)attr(def, cudaMemPoolAttrReservedMemCurrent));
	CK(cudaMemPoolTrimTo(def, 0));
	check(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "trim to 0");

	/* Counters: the current ones are read-only, the watermarks reset. */
	uint64_t zero = 0, one = 1;
	CK_EXPECT(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &zero),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &one),
		  cudaErrorInvalidValue);
	CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
	CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &zero));
	check(attr(def, cudaMemPoolAttrUsedMemHigh) == 0, "used watermark after reset");
	check(attr(def, cudaMemPoolAttrReservedMemHigh) == 0, "reserved watermark after reset");

	/* A pool of the program's own, with a size limit. */
	cudaMemPoolProps props = {};
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = dev;
	props.maxSize = 2 * MB;
	CK(cudaMemPoolCreate(&pool, &props));
	CK(cudaMallocFromPoolAsync((void **)&a, MB, pool, s1));
	CK(cudaMallocFromPoolAsync((void **)&b, MB, pool, s1));
	CK_EXPECT(cudaMallocFromPoolAsync((void **)&c, MB, pool, s1), cudaErrorMemoryAllocation);
	check(attr(pool, cudaMemPoolAttrUsedMemCurrent) == 2 * MB, "own pool used");
	check(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0, "default pool used by another");
	fill_and_check("own pool", b, 5, n, s1);
	CK(cudaDeviceSetMemPool(dev, pool));
	CK(cudaDeviceGetMemPool(&got, dev));
	check(got == pool, "cudaDeviceSetMemPool did not take");
	CK(cudaFreeAsync(a, s1));
	CK(cudaMallocAsync((void **)&c, MB, s1));     /* from the current pool */
	check(c == a, "cudaMallocAsync did not use the current pool");
	CK(cudaFreeAsync(b, s1));
	CK(cudaFreeAsync(c, s1));
	CK(cudaMemPoolDestroy(pool));
	CK(cudaDeviceGetMemPool(&got, dev));
	check(got == def, "destroying the current pool did not restore the default");
	CK_EXPECT(cudaMemPoolDestroy(def), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemPoolDestroy(pool), cudaErrorInvalidValue);

	props.allocType = cudaMemAllocationTypeInvalid;
	CK_EXPECT(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
	props.allocType = cudaMemAllocationTypePinned;
	props.location.id = 99;
	CK_EXPECT(cudaMemPoolCreate(&pool, &props), cudaErrorInvalidValue);
	CK_EXPECT(cudaDeviceGetDefaultMemPool(&got, 99), cudaErrorInvalidDevice);
	CK_EXPECT(cudaMemPoolGetAttribute(def, (cudaMemPoolAttr)99, &zero), cudaErrorInvalidValue);

	/* Memory from cudaMalloc may be freed in stream order too. */
	CK(cudaMalloc(&a, 64));
	CK(cudaFreeAsync(a, s1));
	CK(cudaStreamSynchronize(s1));
	CK(cudaEventDestroy(ev));
	CK(cudaStreamDestroy(s1));
	CK(cudaStreamDestroy(s2));
	return verdict("pool_async");
}
