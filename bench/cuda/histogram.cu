/*
 * histogram.cu - a 256-bin histogram of 64 MiB of bytes: each block counts
 * into its own histogram in shared memory with atomicAdd, then adds it to
 * the global one with atomicAdd.  Threads read whole 32-bit words (4 bytes).
 */
#include "cuda_bench.h"

#define BINS 256
#define THREADS 256
#define BLOCKS 240

__global__ void histogram(const unsigned *words, unsigned *hist, int nwords)
{
	__shared__ unsigned local[BINS];
	unsigned w;
	int i;

	for (i = threadIdx.x; i < BINS; i += blockDim.x)
		local[i] = 0;
	__syncthreads();
	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < nwords; i += gridDim.x * blockDim.x) {
		w = words[i];
		atomicAdd(&local[w & 0xff], 1u);
		atomicAdd(&local[(w >> 8) & 0xff], 1u);
		atomicAdd(&local[(w >> 16) & 0xff], 1u);
		atomicAdd(&local[w >> 24], 1u);
	}
	__syncthreads();
	for (i = threadIdx.x; i < BINS; i += blockDim.x)
		atomicAdd(&hist[i], local[i]);
}

struct ctx {
	const unsigned *words;
	unsigned *hist;
	int nwords;
};

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;

	CK(cudaMemsetAsync(c->hist, 0, BINS * sizeof(unsigned), 0));
	histogram<<<BLOCKS, THREADS>>>(c->words, c->hist, c->nwords);
}

static void measure(const struct bench_args *a, const uint32_t *hwords, int nwords)
{
	uint32_t hist[BINS];
	struct ctx c;

	c.words = (const unsigned *)bench_to_device(hwords, nwords * sizeof(uint32_t));
	c.hist = (unsigned *)bench_device(BINS * sizeof(unsigned));
	c.nwords = nwords;
	bench_warm_up(a, run, &c, BENCH_U32, hist, c.hist, BINS);
	bench_time(a, "histogram", run, &c, 4.0 * nwords, 0);
	CK(cudaFree((void *)c.words));
	CK(cudaFree(c.hist));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	uint32_t *hwords;
	int nwords;

	bench_parse(&a, argc, argv, 1);
	nwords = a.small ? 25013 : 1 << 24;
	hwords = (uint32_t *)bench_alloc(nwords * sizeof(uint32_t));
	bench_fill_u32(hwords, nwords, 9, 0xffffffffu);
	if (!a.host_only)
		measure(&a, hwords, nwords);
	free(hwords);
	return 0;
}
