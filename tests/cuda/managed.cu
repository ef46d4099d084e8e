/*
 * managed: memory from cudaMallocManaged and a __managed__ variable, used
 * by the host and by kernels in turn with a synchronisation in between;
 * cudaPointerGetAttributes reports them as managed.  A device whose
 * properties say it has no managed memory must refuse cudaMallocManaged
 * with cudaErrorNotSupported (and the rest is not run).
 */
#include "check.h"

__managed__ int total;

__global__ void square_and_sum(int *a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		a[i] = a[i] * a[i];
		atomicAdd(&total, a[i]);
	}
}

int main()
{
	const int n = 5000;
	int *a, managed = -1;
	CK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, 0));
	if (!managed) {
		CK_EXPECT(cudaMallocManaged(&a, n * sizeof(int)), cudaErrorNotSupported);
		printf("device without managed memory: checked that it is refused\n");
		return verdict("managed");
	}
	CK(cudaMallocManaged(&a, n * sizeof(int)));
	int want_total = 0;
	for (int i = 0; i < n; i++) {
		a[i] = i % 100 - 50;
		want_total += a[i] * a[i];
	}
	total = 0;
	square_and_sum<<<(n + 127) / 128, 128>>>(a, n);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	check(total == want_total, "__managed__ total: got %d, want %d", total, want_total);
	for (int i = 0; i < n; i++)
		check(a[i] == (i % 100 - 50) * (i % 100 - 50), "a[%d]: got %d", i, a[i]);

	for (int i = 0; i < n; i++)
		a[i] = 2;
	total = 1;
	square_and_sum<<<(n + 127) / 128, 128>>>(a, n);
	CK(cudaGetLastError());
	CK(cudaDeviceSynchronize());
	check(total == 1 + 4 * n, "second pass total: got %d, want %d", total, 1 + 4 * n);

	cudaPointerAttributes attr;
	CK(cudaPointerGetAttributes(&attr, a));
	check(attr.type == cudaMemoryTypeManaged, "attributes of managed memory: type %d",
	      attr.type);
	check(attr.devicePointer == a && attr.hostPointer == a,
	      "managed pointer attributes: device %p host %p, want %p", attr.devicePointer,
	      attr.hostPointer, (void *)a);
	CK(cudaPointerGetAttributes(&attr, &total));
	check(attr.type == cudaMemoryTypeManaged, "attributes of a __managed__ variable: type %d",
	      attr.type);
	CK(cudaFree(a));
	return verdict("managed");
}
