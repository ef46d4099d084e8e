/*
 * scan.cu - the exclusive prefix sum of 16 Mi unsigned integers.  Each
 * block scans 1024 elements: a thread scans its 4 in registers, warps scan
 * the thread totals with __shfl_up_sync, the warp totals are scanned by the
 * first warp through shared memory.  The block totals are scanned the same
 * way, recursively, and added back to each block's elements.
 */
#include "cuda_bench.h"
#include "scan_kernels.h"

#define MAX_LEVELS 8

/* Level l holds the block totals of level l - 1, and their scan. */
struct ctx {
	const unsigned *in;
	unsigned *out;
	unsigned *sums[MAX_LEVELS], *scanned[MAX_LEVELS];
	int n;
};

static int blocks_of(int n)
{
	return (n + PER_BLOCK - 1) / PER_BLOCK;
}

static void scan(struct ctx *c, const unsigned *in, unsigned *out, int n, int level)
{
	int nb = blocks_of(n);

	scan_blocks<<<nb, THREADS>>>(in, out, c->sums[level], n);
	if (nb == 1)
		return;
	scan(c, c->sums[level], c->scanned[level], nb, level + 1);
	add_offsets<<<nb, THREADS>>>(out, c->scanned[level], n);
}

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;

	scan(c, c->in, c->out, c->n, 0);
}

static void measure(const struct bench_args *a, const uint32_t *hin, uint32_t *hout, int n)
{
	struct ctx c;
	int level, nb = n;

	memset(&c, 0, sizeof(c));
	c.in = (const unsigned *)bench_to_device(hin, n * sizeof(uint32_t));
	c.out = (unsigned *)bench_device(n * sizeof(uint32_t));
	c.n = n;
	for (level = 0; level < MAX_LEVELS; level++) {
		nb = blocks_of(nb);
		c.sums[level] = (unsigned *)bench_device(nb * sizeof(unsigned));
		c.scanned[level] = (unsigned *)bench_device(nb * sizeof(unsigned));
		if (nb == 1)
			break;
	}
	if (level == MAX_LEVELS)
		bench_die("scan: too many levels");
	bench_warm_up(a, run, &c, BENCH_U32, hout, c.out, n);
	bench_time(a, "scan", run, &c, 8.0 * n, 0);
	for (level = 0; level < MAX_LEVELS; level++) {
		CK(cudaFree(c.sums[level]));
		CK(cudaFree(c.scanned[level]));
	}
	CK(cudaFree((void *)c.in));
	CK(cudaFree(c.out));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	uint32_t *hin, *hout;
	int n;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 100003 : 1 << 24;
	hin = (uint32_t *)bench_alloc(n * sizeof(uint32_t));
	hout = (uint32_t *)bench_alloc(n * sizeof(uint32_t));
	bench_fill_u32(hin, n, 15, 16);
	if (!a.host_only)
		measure(&a, hin, hout, n);
	free(hin);
	free(hout);
	return 0;
}
