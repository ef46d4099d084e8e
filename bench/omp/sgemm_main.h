/*
 * sgemm_main.h - the host side both OpenMP SGEMMs share: the same inputs as
 * cuda/sgemm_main.h, the warm-up and the timing.  The including file defines
 * SGEMM_NAME and, after this header, run() computing x->c.
 */
#ifndef SGEMM_MAIN_H
#define SGEMM_MAIN_H

#include "omp_bench.h"

struct ctx {
	const float *a, *b;
	float *c;
	int n;
};

static void run(void *p);

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx x;
	float *ha, *hb, *hc;
	size_t n2;

	bench_parse(&a, argc, argv, 0);
	x.n = a.small ? 67 : 512;
	n2 = (size_t)x.n * x.n;
	ha = bench_alloc(n2 * sizeof(float));
	hb = bench_alloc(n2 * sizeof(float));
	hc = bench_alloc(n2 * sizeof(float));
	bench_fill_f32(ha, n2, 6, -1, 1);
	bench_fill_f32(hb, n2, 7, -1, 1);
	x.a = ha;
	x.b = hb;
	x.c = hc;
	bench_warm_up(&a, run, &x, BENCH_F32, hc, n2);
	bench_time(&a, SGEMM_NAME, run, &x, 0, 2.0 * x.n * x.n * x.n);
	free(ha);
	free(hb);
	free(hc);
	return 0;
}

#endif
