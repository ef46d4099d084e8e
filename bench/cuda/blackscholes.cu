/*
 * blackscholes.cu - European call and put prices of 4 Mi options by the
 * Black-Scholes formula (after the CUDA sample): expf, logf, sqrtf and a
 * polynomial normal CDF per option.  Math-bound on a CPU; bytes counted are
 * 3 inputs and 2 outputs per option.
 */
#include "cuda_bench.h"

#define RATE 0.02f
#define VOL 0.30f

__device__ float cnd(float d)
{
	const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f;
	const float a4 = -1.821255978f, a5 = 1.330274429f, rsqrt2pi = 0.39894228040143267794f;
	float k = 1.0f / (1.0f + 0.2316419f * fabsf(d));
	float c = rsqrt2pi * expf(-0.5f * d * d) *
		  (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));

	return d > 0 ? 1.0f - c : c;
}

__global__ void blackscholes(const float *s, const float *x, const float *t, float *call,
			     float *put, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float sqrt_t, d1, d2, e;

	if (i >= n)
		return;
	sqrt_t = sqrtf(t[i]);
	d1 = (logf(s[i] / x[i]) + (RATE + 0.5f * VOL * VOL) * t[i]) / (VOL * sqrt_t);
	d2 = d1 - VOL * sqrt_t;
	e = expf(-RATE * t[i]);
	call[i] = s[i] * cnd(d1) - x[i] * e * cnd(d2);
	put[i] = x[i] * e * (1.0f - cnd(d2)) - s[i] * (1.0f - cnd(d1));
}

struct ctx {
	const float *s, *x, *t;
	float *out; /* n calls, then n puts */
	int n;
};

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;

	blackscholes<<<(c->n + 255) / 256, 256>>>(c->s, c->x, c->t, c->out, c->out + c->n, c->n);
}

static void measure(const struct bench_args *a, const float *hin, float *hout, int n)
{
	struct ctx c;

	c.s = (const float *)bench_to_device(hin, n * sizeof(float));
	c.x = (const float *)bench_to_device(hin + n, n * sizeof(float));
	c.t = (const float *)bench_to_device(hin + 2 * n, n * sizeof(float));
	c.out = (float *)bench_device(2 * n * sizeof(float));
	c.n = n;
	bench_warm_up(a, run, &c, BENCH_F32, hout, c.out, 2 * n);
	bench_time(a, "blackscholes", run, &c, 20.0 * n, 0);
	CK(cudaFree((void *)c.s));
	CK(cudaFree((void *)c.x));
	CK(cudaFree((void *)c.t));
	CK(cudaFree(c.out));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	float *hin, *hout;
	int n;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 10007 : 1 << 22;
	hin = (float *)bench_alloc(3 * n * sizeof(float));
	hout = (float *)bench_alloc(2 * n * sizeof(float));
	bench_fill_f32(hin, n, 12, 5, 30);
	bench_fill_f32(hin + n, n, 13, 1, 100);
	bench_fill_f32(hin + 2 * n, n, 14, 0.25f, 10);
	if (!a.host_only)
		measure(&a, hin, hout, n);
	free(hin);
	free(hout);
	return 0;
}
