/*
 * device_props: what a program learns about the device.  One or more
 * devices; a name (anygpu's CPU device, or the GPU's own); warp size 32;
 * limits a CUDA program relies on; cudaDeviceGetAttribute agrees with
 * cudaGetDeviceProperties;
 * cudaMemGetInfo agrees with totalGlobalMem; versions; bad ordinals are
 * refused.
 */
#include <cstring>
#include "check.h"

static void expect_attr(cudaDeviceAttr attr, int want, const char *what)
{
	int v = -1;
	CK(cudaDeviceGetAttribute(&v, attr, 0));
	check(v == want, "attribute %s: got %d, want %d (from the properties)", what, v, want);
}

int main()
{
	int count = 0, dev = -1;
	CK(cudaGetDeviceCount(&count));
	check(count >= 1, "cudaGetDeviceCount: %d", count);
	CK(cudaGetDevice(&dev));
	check(dev == 0, "cudaGetDevice: %d, want 0", dev);

	cudaDeviceProp p;
	CK(cudaGetDeviceProperties(&p, 0));
	printf("device 0: %s, cc %d.%d, %d SMs, %.0f MiB\n", p.name, p.major, p.minor,
	       p.multiProcessorCount, p.totalGlobalMem / 1048576.0);
	check(p.name[0] != '\0', "the device has no name");
	check(p.warpSize == 32, "warpSize %d, want 32", p.warpSize);
	check(p.maxThreadsPerBlock >= 1024, "maxThreadsPerBlock %d", p.maxThreadsPerBlock);
	check(p.maxThreadsDim[0] >= 1024 && p.maxThreadsDim[1] >= 1024 && p.maxThreadsDim[2] >= 64,
	      "maxThreadsDim %d %d %d", p.maxThreadsDim[0], p.maxThreadsDim[1], p.maxThreadsDim[2]);
	check(p.maxGridSize[0] >= 65535 && p.maxGridSize[1] >= 65535 && p.maxGridSize[2] >= 65535,
	      "maxGridSize %d %d %d", p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
	check(p.sharedMemPerBlock >= 48 * 1024, "sharedMemPerBlock %zu", p.sharedMemPerBlock);
	check(p.totalConstMem >= 64 * 1024, "totalConstMem %zu", p.totalConstMem);
	check(p.multiProcessorCount >= 1, "multiProcessorCount %d", p.multiProcessorCount);
	check(p.major >= 7, "compute capability %d.%d below the sm_75 the tests are built for",
	      p.major, p.minor);
	check(p.totalGlobalMem > 0, "totalGlobalMem 0");

	expect_attr(cudaDevAttrWarpSize, p.warpSize, "warp size");
	expect_attr(cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock, "max threads per block");
	expect_attr(cudaDevAttrMultiProcessorCount, p.multiProcessorCount, "SM count");
	expect_attr(cudaDevAttrComputeCapabilityMajor, p.major, "cc major");
	expect_attr(cudaDevAttrComputeCapabilityMinor, p.minor, "cc minor");
	expect_attr(cudaDevAttrMaxGridDimY, p.maxGridSize[1], "max grid y");
	expect_attr(cudaDevAttrMaxSharedMemoryPerBlock, (int)p.sharedMemPerBlock, "shared per block");
	expect_attr(cudaDevAttrManagedMemory, p.managedMemory, "managed memory");
	expect_attr(cudaDevAttrCanMapHostMemory, p.canMapHostMemory, "can map host memory");

	size_t free_mem = 0, total = 0;
	CK(cudaMemGetInfo(&free_mem, &total));
	check(total == p.totalGlobalMem, "cudaMemGetInfo total %zu, totalGlobalMem %zu", total,
	      p.totalGlobalMem);
	check(free_mem > 0 && free_mem <= total, "cudaMemGetInfo free %zu of %zu", free_mem, total);

	int runtime = 0, driver = 0;
	CK(cudaRuntimeGetVersion(&runtime));
	CK(cudaDriverGetVersion(&driver));
	check(runtime >= 13000, "cudaRuntimeGetVersion %d, want 13000 or more", runtime);
	check(driver >= runtime, "driver version %d below runtime version %d", driver, runtime);

	CK_EXPECT(cudaSetDevice(count), cudaErrorInvalidDevice);
	CK_EXPECT(cudaGetDeviceProperties(&p, count), cudaErrorInvalidDevice);
	int v;
	CK_EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, -1), cudaErrorInvalidDevice);
	cudaGetLastError();
	CK(cudaSetDevice(0));
	return verdict("device_props");
}
