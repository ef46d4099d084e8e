/*
 * vecadd.c - c = a + b over 16 Mi floats: the OpenMP reference of
 * cuda/vecadd.cu, one parallel, vectorised loop.
 */
#include "omp_bench.h"

struct ctx {
	const float *a, *b;
	float *c;
	int n;
};

static void run(void *p)
{
	struct ctx *x = p;
	const float *restrict a = x->a, *restrict b = x->b;
	float *restrict c = x->c;
	int i;

#pragma omp parallel for simd schedule(static)
	for (i = 0; i < x->n; i++)
		c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx x;
	float *ha, *hb, *hc;

	bench_parse(&a, argc, argv, 0);
	x.n = a.small ? 100003 : 1 << 24;
	ha = bench_alloc(x.n * sizeof(float));
	hb = bench_alloc(x.n * sizeof(float));
	hc = bench_alloc(x.n * sizeof(float));
	bench_fill_f32(ha, x.n, 1, -1, 1);
	bench_fill_f32(hb, x.n, 2, -1, 1);
	x.a = ha;
	x.b = hb;
	x.c = hc;
	bench_warm_up(&a, run, &x, BENCH_F32, hc, x.n);
	bench_time(&a, "vecadd", run, &x, 12.0 * x.n, 0);
	free(ha);
	free(hb);
	free(hc);
	return 0;
}
