/*
 * memset: cudaMemset and cudaMemsetAsync set bytes: only the low byte of
 * the value counts; ranges at odd offsets and of odd lengths leave their
 * neighbours untouched; a kernel sees the result.
 */
#include "check.h"

#define N 4099

__global__ void read_words(const unsigned *a, unsigned *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a[i];
}

int main()
{
	static unsigned char got[N], want[N];
	unsigned char *d;
	CK(cudaMalloc(&d, N));
	CK(cudaMemset(d, 0xab, N));
	for (int i = 0; i < N; i++)
		want[i] = 0xab;
	CK(cudaMemset(d + 3, 0x1234, 1001));
	for (int i = 3; i < 1004; i++)
		want[i] = 0x34;
	cudaStream_t s;
	CK(cudaStreamCreate(&s));
	CK(cudaMemsetAsync(d + 2000, 0, 7, s));
	CK(cudaMemsetAsync(d + N - 1, 0xff, 1, s));
	CK(cudaStreamSynchronize(s));
	for (int i = 2000; i < 2007; i++)
		want[i] = 0;
	want[N - 1] = 0xff;
	CK(cudaMemcpy(got, d, N, cudaMemcpyDeviceToHost));
	check_array("bytes", got, want, N);

	unsigned *words, *out, w[256], want_w[256];
	CK(cudaMalloc(&words, sizeof(w)));
	CK(cudaMalloc(&out, sizeof(w)));
	CK(cudaMemset(words, 0x5a, sizeof(w)));
	read_words<<<1, 256>>>(words, out, 256);
	CK(cudaGetLastError());
	CK(cudaMemcpy(w, out, sizeof(w), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 256; i++)
		want_w[i] = 0x5a5a5a5a;
	check_array("words a kernel reads", w, want_w, 256);

	CK(cudaStreamDestroy(s));
	CK(cudaFree(d));
	CK(cudaFree(words));
	CK(cudaFree(out));
	return verdict("memset");
}
