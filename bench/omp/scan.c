/*
 * scan.c - the exclusive prefix sum of 16 Mi unsigned integers: the OpenMP
 * reference of cuda/scan.cu, the usual two-pass parallel scan.  Each thread
 * sums its contiguous chunk, the chunk totals are scanned by one thread, and
 * each thread scans its chunk from its offset.
 */
#include "omp_bench.h"

#define MAX_THREADS 1024

struct ctx {
	const uint32_t *in;
	uint32_t *out;
	int n;
};

static uint32_t chunk_sum(const uint32_t *restrict in, int lo, int hi)
{
	uint32_t s = 0;
	int i;

#pragma omp simd reduction(+ : s)
	for (i = lo; i < hi; i++)
		s += in[i];
	return s;
}

static void chunk_scan(const uint32_t *restrict in, uint32_t *restrict out, int lo, int hi,
		       uint32_t sum)
{
	int i;

	for (i = lo; i < hi; i++) {
		out[i] = sum;
		sum += in[i];
	}
}

static void run(void *p)
{
	struct ctx *c = p;
	uint32_t offset[MAX_THREADS + 1];

#pragma omp parallel num_threads(omp_get_max_threads() < MAX_THREADS ? omp_get_max_threads() : MAX_THREADS)
	{
		int t = omp_get_thread_num(), nt = omp_get_num_threads();
		int lo = (int)((long long)c->n * t / nt), hi = (int)((long long)c->n * (t + 1) / nt);
		int k;

		offset[t + 1] = chunk_sum(c->in, lo, hi);
#pragma omp barrier
#pragma omp single
		{
			offset[0] = 0;
			for (k = 1; k <= nt; k++)
				offset[k] += offset[k - 1];
		}
		chunk_scan(c->in, c->out, lo, hi, offset[t]);
	}
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	uint32_t *hin, *hout;

	bench_parse(&a, argc, argv, 0);
	c.n = a.small ? 100003 : 1 << 24;
	hin = bench_alloc(c.n * sizeof(uint32_t));
	hout = bench_alloc(c.n * sizeof(uint32_t));
	bench_fill_u32(hin, c.n, 15, 16);
	c.in = hin;
	c.out = hout;
	bench_warm_up(&a, run, &c, BENCH_U32, hout, c.n);
	bench_time(&a, "scan", run, &c, 8.0 * c.n, 0);
	free(hin);
	free(hout);
	return 0;
}
