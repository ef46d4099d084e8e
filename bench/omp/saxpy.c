/*
 * saxpy.c - y = a*x + y over 16 Mi floats: the OpenMP reference of
 * cuda/saxpy.cu.
 */
#include "omp_bench.h"

struct ctx {
	const float *x;
	float *y;
	int n;
};

static void run(void *p)
{
	struct ctx *c = p;
	const float *restrict x = c->x;
	float *restrict y = c->y;
	const float a = 2.5f;
	int i;

#pragma omp parallel for simd schedule(static)
	for (i = 0; i < c->n; i++)
		y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	float *hx, *hy;

	bench_parse(&a, argc, argv, 0);
	c.n = a.small ? 100003 : 1 << 24;
	hx = bench_alloc(c.n * sizeof(float));
	hy = bench_alloc(c.n * sizeof(float));
	bench_fill_f32(hx, c.n, 3, -1, 1);
	bench_fill_f32(hy, c.n, 4, -1, 1);
	c.x = hx;
	c.y = hy;
	bench_warm_up(&a, run, &c, BENCH_F32, hy, c.n);
	bench_time(&a, "saxpy", run, &c, 12.0 * c.n, 0);
	free(hx);
	free(hy);
	return 0;
}
