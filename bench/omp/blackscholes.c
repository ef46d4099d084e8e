/*
 * blackscholes.c - call and put prices of 4 Mi options: the OpenMP
 * reference of cuda/blackscholes.cu, the same formula and normal CDF in a
 * parallel loop over the options.
 */
#include <math.h>
#include "omp_bench.h"

#define RATE 0.02f
#define VOL 0.30f

struct ctx {
	const float *s, *x, *t;
	float *call, *put;
	int n;
};

static inline float cnd(float d)
{
	const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
	const float a4 = -1.821255978f, a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
	float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
	float c = rsqrt2pi * expf(-0.5f * d * d) *
		  (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));

	return d > 0 ? 1.0f - c : c;
}

static void run(void *p)
{
	struct ctx *c = p;
	const float *restrict s = c->s, *restrict x = c->x, *restrict t = c->t;
	float *restrict call = c->call, *restrict put = c->put;
	int i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < c->n; i++) {
		float sqrt_t = sqrtf(t[i]);
		float d1 = (logf(s[i] / x[i]) + (RATE + 0.5f * VOL * VOL) * t[i]) / (VOL * sqrt_t);
		float d2 = d1 - VOL * sqrt_t;
		float e = expf(-RATE * t[i]);

		call[i] = s[i] * cnd(d1) - x[i] * e * cnd(d2);
		put[i] = x[i] * e * (1.0f - cnd(d2)) - s[i] * (1.0f - cnd(d1));
	}
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	float *hin, *hout;
	int n;

	bench_parse(&a, argc, argv, 0);
	n = a.small ? 10007 : 1 << 22;
	hin = bench_alloc(3 * n * sizeof(float));
	hout = bench_alloc(2 * n * sizeof(float));
	bench_fill_f32(hin, n, 12, 5, 30);
	bench_fill_f32(hin + n, n, 13, 1, 100);
	bench_fill_f32(hin + 2 * n, n, 14, 0.25f, 10);
	c.s = hin;
	c.x = hin + n;
	c.t = hin + 2 * n;
	c.call = hout;
	c.put = hout + n;
	c.n = n;
	bench_warm_up(&a, run, &c, BENCH_F32, hout, 2 * n);
	bench_time(&a, "blackscholes", run, &c, 20.0 * n, 0);
	free(hin);
	free(hout);
	return 0;
}
