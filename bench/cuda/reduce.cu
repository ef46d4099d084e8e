/*
 * reduce.cu - the sum of 16 Mi floats in two launches: each thread sums a
 * grid-stride slice, warps fold with __shfl_down_sync, warp sums meet in
 * shared memory after __syncthreads(), and the first warp folds those; the
 * second launch, one block, reduces the per-block partial sums.
 */
#include "cuda_bench.h"
#include "reduce_kernels.h"

struct ctx {
	const float *in;
	float *partial, *sum;
	int n;
};

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;

	reduce<<<BLOCKS, THREADS>>>(c->in, c->partial, c->n);
	reduce<<<1, THREADS>>>(c->partial, c->sum, BLOCKS);
}

static void measure(const struct bench_args *a, const float *hin, int n)
{
	struct ctx c;
	float sum;

	c.in = (const float *)bench_to_device(hin, n * sizeof(float));
	c.partial = (float *)bench_device(BLOCKS * sizeof(float));
	c.sum = (float *)bench_device(sizeof(float));
	c.n = n;
	bench_warm_up(a, run, &c, BENCH_F32, &sum, c.sum, 1);
	bench_time(a, "reduce", run, &c, 4.0 * n, 0);
	CK(cudaFree((void *)c.in));
	CK(cudaFree(c.partial));
	CK(cudaFree(c.sum));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	float *hin;
	int n;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 100003 : 1 << 24;
	hin = (float *)bench_alloc(n * sizeof(float));
	bench_fill_f32(hin, n, 8, 0, 1);
	if (!a.host_only)
		measure(&a, hin, n);
	free(hin);
	return 0;
}
