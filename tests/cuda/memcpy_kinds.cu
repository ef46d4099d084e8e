/*
 * memcpy_kinds: cudaMemcpy in every direction, with the explicit kinds and
 * with cudaMemcpyDefault (direction inferred from the pointers, as unified
 * addressing allows), including host to host, device to device within one
 * allocation, async device to device, offsets into allocations, and a
 * 64 MiB round trip.
 */
#include <cstring>
#include "check.h"

#define N 10000

int main()
{
	static int a[N], b[N], c[N];
	int *d1, *d2;
	for (int i = 0; i < N; i++)
		a[i] = i * 7 - 3;
	CK(cudaMalloc(&d1, sizeof(a)));
	CK(cudaMalloc(&d2, sizeof(a)));

	CK(cudaMemcpy(d1, a, sizeof(a), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d2, d1, sizeof(a), cudaMemcpyDeviceToDevice));
	CK(cudaMemcpy(b, d2, sizeof(a), cudaMemcpyDeviceToHost));
	check_array("explicit kinds", b, a, N);

	CK(cudaMemset(d1, 0, sizeof(a)));
	CK(cudaMemset(d2, 0, sizeof(a)));
	CK(cudaMemcpy(d1, a, sizeof(a), cudaMemcpyDefault));
	CK(cudaMemcpy(d2, d1, sizeof(a), cudaMemcpyDefault));
	CK(cudaMemcpy(c, d2, sizeof(a), cudaMemcpyDefault));
	check_array("cudaMemcpyDefault", c, a, N);
	CK(cudaMemcpy(b, c, sizeof(a), cudaMemcpyHostToHost));
	check_array("host to host", b, a, N);
	for (int i = 0; i < N; i++)
		b[i] = -1;
	CK(cudaMemcpy(b, a, sizeof(a), cudaMemcpyDefault));
	check_array("host to host by cudaMemcpyDefault", b, a, N);

	/* Shift the second half down by 1000 elements within one allocation. */
	CK(cudaMemcpy(d1 + 1000, d2 + 5000, 4000 * sizeof(int), cudaMemcpyDeviceToDevice));
	CK(cudaMemcpy(b, d1, sizeof(a), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N; i++)
		c[i] = i >= 1000 && i < 5000 ? a[i + 4000] : a[i];
	check_array("device to device at offsets", b, c, N);

	cudaStream_t s;
	CK(cudaStreamCreate(&s));
	CK(cudaMemcpyAsync(d2, d1, sizeof(a), cudaMemcpyDeviceToDevice, s));
	CK(cudaMemcpyAsync(b, d2, sizeof(a), cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	CK(cudaStreamDestroy(s));
	check_array("async device to device", b, c, N);

	const size_t big = 64 << 20;
	unsigned char *hbig = (unsigned char *)malloc(big), *hback = (unsigned char *)malloc(big);
	unsigned char *dbig;
	for (size_t i = 0; i < big; i++)
		hbig[i] = (unsigned char)(i * 2654435761u >> 13);
	CK(cudaMalloc(&dbig, big));
	CK(cudaMemcpy(dbig, hbig, big, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(hback, dbig, big, cudaMemcpyDeviceToHost));
	check(memcmp(hbig, hback, big) == 0, "64 MiB round trip differs");
	CK(cudaFree(dbig));
	free(hbig), free(hback);
	CK(cudaFree(d1));
	CK(cudaFree(d2));
	return verdict("memcpy_kinds");
}
