/*
 * vecadd.cu - c = a + b over 16 Mi floats, one element per thread: the
 * simplest memory-bound kernel (12 bytes of traffic per element).
 */
#include "cuda_bench.h"

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		c[i] = a[i] + b[i];
}

struct ctx {
	const float *a, *b;
	float *c;
	int n;
};

static void run(void *p)
{
	struct ctx *x = (struct ctx *)p;

	vecadd<<<(x->n + 255) / 256, 256>>>(x->a, x->b, x->c, x->n);
}

static void measure(const struct bench_args *a, const float *ha, const float *hb, float *hc, int n)
{
	struct ctx x;

	x.a = (const float *)bench_to_device(ha, n * sizeof(float));
	x.b = (const float *)bench_to_device(hb, n * sizeof(float));
	x.c = (float *)bench_device(n * sizeof(float));
	x.n = n;
	bench_warm_up(a, run, &x, BENCH_F32, hc, x.c, n);
	bench_time(a, "vecadd", run, &x, 12.0 * n, 0);
	CK(cudaFree((void *)x.a));
	CK(cudaFree((void *)x.b));
	CK(cudaFree(x.c));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	int n;
	float *ha, *hb, *hc;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 100003 : 1 << 24;
	ha = (float *)bench_alloc(n * sizeof(float));
	hb = (float *)bench_alloc(n * sizeof(float));
	hc = (float *)bench_alloc(n * sizeof(float));
	bench_fill_f32(ha, n, 1, -1, 1);
	bench_fill_f32(hb, n, 2, -1, 1);
	if (!a.host_only)
		measure(&a, ha, hb, hc, n);
	free(ha);
	free(hb);
	free(hc);
	return 0;
}
