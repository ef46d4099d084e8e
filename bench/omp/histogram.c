/*
 * histogram.c - a 256-bin histogram of 64 MiB of bytes: the OpenMP
 * reference of cuda/histogram.cu.  Each thread counts into four private
 * histograms (one per byte of a word, so consecutive increments rarely hit
 * the same counter), then adds them to the shared one atomically.
 */
#include "omp_bench.h"

#define BINS 256

struct ctx {
	const uint32_t *words;
	uint32_t hist[BINS];
	int nwords;
};

static void run(void *p)
{
	struct ctx *c = p;

	memset(c->hist, 0, sizeof(c->hist));
#pragma omp parallel
	{
		uint32_t local[4][BINS];
		uint32_t w;
		int i, b;

		memset(local, 0, sizeof(local));
#pragma omp for schedule(static)
		for (i = 0; i < c->nwords; i++) {
			w = c->words[i];
			local[0][w & 0xff]++;
			local[1][(w >> 8) & 0xff]++;
			local[2][(w >> 16) & 0xff]++;
			local[3][w >> 24]++;
		}
		for (b = 0; b < BINS; b++) {
#pragma omp atomic
			c->hist[b] += local[0][b] + local[1][b] + local[2][b] + local[3][b];
		}
	}
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	uint32_t *hwords;

	bench_parse(&a, argc, argv, 0);
	c.nwords = a.small ? 25013 : 1 << 24;
	hwords = bench_alloc(c.nwords * sizeof(uint32_t));
	bench_fill_u32(hwords, c.nwords, 9, 0xffffffffu);
	c.words = hwords;
	bench_warm_up(&a, run, &c, BENCH_U32, c.hist, BINS);
	bench_time(&a, "histogram", run, &c, 4.0 * c.nwords, 0);
	free(hwords);
	return 0;
}
