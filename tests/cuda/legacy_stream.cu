/*
 * legacy_stream: the legacy default stream (stream 0) waits for all earlier
 * work in blocking streams, and later work in blocking streams waits for
 * it; cudaStreamLegacy and cudaStreamPerThread name usable streams.  Shown
 * with host functions that log their order (the first one sleeps, so a
 * wrong implementation would let the others overtake it) and with a slow
 * kernel whose result a kernel on stream 0 must see.
 */
#include <cstring>
#include <unistd.h>
#include "check.h"

struct order {
	char text[16];
	int len;
};

struct step {
	struct order *o;
	char name;
	int sleep_ms;
};

static void CUDART_CB log_step(void *p)
{
	struct step *s = (struct step *)p;
	if (s->sleep_ms)
		usleep(s->sleep_ms * 1000);
	s->o->text[s->o->len++] = s->name;
}

static void test_host_order(void)
{
	cudaStream_t s1, s2;
	struct order o = { { 0 }, 0 };
	struct step a = { &o, 'A', 200 }, b = { &o, 'B', 0 }, c = { &o, 'C', 0 };
	struct step d = { &o, 'D', 200 }, e = { &o, 'E', 0 }, f = { &o, 'F', 0 };
	CK(cudaStreamCreate(&s1));
	CK(cudaStreamCreate(&s2));
	CK(cudaLaunchHostFunc(s1, log_step, &a));
	CK(cudaLaunchHostFunc(0, log_step, &b));
	CK(cudaLaunchHostFunc(s2, log_step, &c));
	CK(cudaLaunchHostFunc(cudaStreamLegacy, log_step, &d));
	CK(cudaLaunchHostFunc(cudaStreamPerThread, log_step, &e));
	CK(cudaLaunchHostFunc(0, log_step, &f));
	CK(cudaDeviceSynchronize());
	check(strcmp(o.text, "ABCDEF") == 0, "host functions ran in order \"%s\", want \"ABCDEF\"",
	      o.text);
	CK(cudaStreamDestroy(s1));
	CK(cudaStreamDestroy(s2));
}

__global__ void slow_fill(int *a, int n, int steps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	unsigned v = i;
	for (int s = 0; s < steps; s++)
		v = v * 1664525u + 1013904223u;
	a[i] = v;
}

__global__ void copy(const int *a, int *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = a[i];
}

static void test_kernels(void)
{
	const int n = 1 << 14, steps = 20000;
	cudaStream_t s;
	int *a, *b, *got = (int *)malloc(n * sizeof(int)), *want = (int *)malloc(n * sizeof(int));
	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&a, n * sizeof(int)));
	CK(cudaMalloc(&b, n * sizeof(int)));
	CK(cudaMemset(a, 0, n * sizeof(int)));
	slow_fill<<<n / 128, 128, 0, s>>>(a, n, steps);
	CK(cudaGetLastError());
	copy<<<n / 128, 128>>>(a, b, n);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(got, b, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
	CK(cudaStreamSynchronize(0));
	for (int i = 0; i < n; i++) {
		unsigned v = i;
		for (int k = 0; k < steps; k++)
			v = v * 1664525u + 1013904223u;
		want[i] = v;
	}
	check_array("stream 0 after a blocking stream", got, want, n);
	CK(cudaFree(a));
	CK(cudaFree(b));
	CK(cudaStreamDestroy(s));
	free(got), free(want);
}

int main()
{
	test_host_order();
	test_kernels();
	return verdict("legacy_stream");
}
