/*
 * saxpy.cu - y = a*x + y over 16 Mi floats with a grid-stride loop (the
 * other common way to cover an array): memory-bound, in place, so only the
 * warm-up's result is compared.
 */
#include "cuda_bench.h"

__global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		y[i] = a * x[i] + y[i];
}

struct ctx {
	const float *x;
	float *y;
	int n;
};

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;

	saxpy<<<1024, 256>>>(2.5f, c->x, c->y, c->n);
}

static void measure(const struct bench_args *a, const float *hx, float *hy, int n)
{
	struct ctx c;

	c.x = (const float *)bench_to_device(hx, n * sizeof(float));
	c.y = (float *)bench_to_device(hy, n * sizeof(float));
	c.n = n;
	bench_warm_up(a, run, &c, BENCH_F32, hy, c.y, n);
	bench_time(a, "saxpy", run, &c, 12.0 * n, 0);
	CK(cudaFree((void *)c.x));
	CK(cudaFree(c.y));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	int n;
	float *hx, *hy;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 100003 : 1 << 24;
	hx = (float *)bench_alloc(n * sizeof(float));
	hy = (float *)bench_alloc(n * sizeof(float));
	bench_fill_f32(hx, n, 3, -1, 1);
	bench_fill_f32(hy, n, 4, -1, 1);
	if (!a.host_only)
		measure(&a, hx, hy, n);
	free(hx);
	free(hy);
	return 0;
}
