/*
 * reduce.c - the sum of 16 Mi floats: the OpenMP reference of
 * cuda/reduce.cu.  Chunks of 4096 are summed in float with SIMD lanes (as
 * the GPU's threads and warps do), the chunk sums in double so that the
 * order of 4096 chunks costs no accuracy.
 */
#include "omp_bench.h"

#define CHUNK 4096

struct ctx {
	const float *in;
	float sum;
	int n;
};

static float chunk_sum(const float *restrict in, int n)
{
	float s = 0;
	int i;

#pragma omp simd reduction(+ : s)
	for (i = 0; i < n; i++)
		s += in[i];
	return s;
}

static void run(void *p)
{
	struct ctx *c = p;
	double total = 0;
	int i;

#pragma omp parallel for reduction(+ : total) schedule(static)
	for (i = 0; i < c->n; i += CHUNK)
		total += chunk_sum(c->in + i, c->n - i < CHUNK ? c->n - i : CHUNK);
	c->sum = (float)total;
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	float *hin;

	bench_parse(&a, argc, argv, 0);
	c.n = a.small ? 100003 : 1 << 24;
	hin = bench_alloc(c.n * sizeof(float));
	bench_fill_f32(hin, c.n, 8, 0, 1);
	c.in = hin;
	bench_warm_up(&a, run, &c, BENCH_F32, &c.sum, 1);
	bench_time(&a, "reduce", run, &c, 4.0 * c.n, 0);
	free(hin);
	return 0;
}
