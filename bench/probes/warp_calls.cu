/*
 * warp_calls.cu - what a warp call costs the cpu backend: a kernel that
 * does almost nothing but a shuffle and a store by one lane of each warp
 * (run as calls of a warp each, src/cpu/group.c), beside a kernel of plain
 * stores (one loop over the threads), on 2^22 threads in blocks of 32, 64,
 * 256 and 1024, in nanoseconds a warp.  Not part of the suite: a probe for
 * the engine's fixed costs, which the suite's kernels hide in their work
 * (docs/PERFORMANCE.md, "2026-12-05 10:57 UTC").
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o warp_calls bench/probes/warp_calls.cu
 *   ANYGPU_THREADS=1 taskset -c 1 build/bin/anygpu run --backend cpu -- ./warp_calls
 */
#define PROBE_NAME "warp_calls"
#include "probe.h"

#define N (1 << 22)

/* A shuffle, and lane 31's value stored: a warp call of a few lines. */
__global__ void shuffle_store(unsigned *out)
{
	unsigned v = threadIdx.x;

	v += __shfl_up_sync(0xffffffffu, v, 1);
	if (threadIdx.x % 32 == 31)
		out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = v;
}

/* Every thread stores: no warp operation, no barrier. */
__global__ void plain_store(unsigned *out)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

/* Milliseconds one launch of k on nb blocks of tpb takes. */
static float time_launch(void (*k)(unsigned *), int nb, int tpb, unsigned *out)
{
	return best_ms(1, [&] { k<<<nb, tpb>>>(out); });
}

int main(void)
{
	static const int tpb[] = { 32, 64, 256, 1024 };
	unsigned *out;

	check(cudaMalloc(&out, N * sizeof(unsigned)), "cudaMalloc");
	printf("%-8s %8s %22s %22s\n", "threads", "blocks", "shuffle+store ns/warp",
	       "plain store ns/warp");
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 4; i++) {
			int nb = N / tpb[i];
			float s = time_launch(shuffle_store, nb, tpb[i], out);
			float p = time_launch(plain_store, nb, tpb[i], out);

			if (round)	/* the first round warms up (and compiles) */
				printf("%-8d %8d %22.1f %22.1f\n", tpb[i], nb, s * 1e6f / (N / 32),
				       p * 1e6f / (N / 32));
		}
	check(cudaFree(out), "cudaFree");
	return 0;
}
