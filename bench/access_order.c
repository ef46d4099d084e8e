/*
 * access_order.c - does the order in which the cpu engine's warps read a
 * grid-stride loop's memory cost anything by itself?
 *
 * The reduction of the suite (1024 blocks of 256 threads over 16 Mi
 * floats) reads, in lockstep, 128 bytes per warp and loop turn, the grid's
 * stride (1 MiB) apart from one turn to the next; a block's 8 warps take
 * turns every AG_TURNS (16) loop turns, and each warp asks for the lines
 * four strides ahead (ag_prefetch_next).  This program reads the same
 * array in that order, G blocks at a time turn by turn (G = 1 is the
 * engine's order), with a tight loop per 128 bytes, and in plain
 * sequential order, and prints both times: when they are alike, what the
 * engine loses against OpenMP on such loops is the work of each turn, not
 * where its loads go.  Not part of `make bench`; run it by hand:
 *
 *   cc -O3 -march=native -ffast-math bench/access_order.c -o /tmp/order
 *   taskset -c 1 /tmp/order 1     (and 2, 4, 8: blocks read together)
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N (1 << 24)
#define BLOCKS 1024
#define WARPS 8
#define TURNS 64        /* loop turns of each thread: N / (BLOCKS * 256) */
#define TAKE 16         /* turns a warp takes before the next warp runs */
#define REPS 5

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The sum of a in the engine's order, group blocks turn by turn together. */
static float engine_order(const float *a, int group)
{
	const size_t stride = (size_t)BLOCKS * 256;
	float acc[32] = { 0 }, s = 0;
	int b0, t0, b, w, t, l;

	for (b0 = 0; b0 < BLOCKS; b0 += group)
		for (t0 = 0; t0 < TURNS; t0 += TAKE)
			for (b = b0; b < b0 + group && b < BLOCKS; b++)
				for (w = 0; w < WARPS; w++)
					for (t = t0; t < t0 + TAKE; t++) {
						const float *p = a + (size_t)b * 256 + w * 32 + t * stride;

						__builtin_prefetch(p + 4 * stride);
						for (l = 0; l < 32; l++)
							acc[l] += p[l];
					}
	for (l = 0; l < 32; l++)
		s += acc[l];
	return s;
}

static float sequential(const float *a)
{
	float s = 0;
	size_t i;

	for (i = 0; i < N; i++)
		s += a[i];
	return s;
}

int main(int argc, char **argv)
{
	int group = argc > 1 ? atoi(argv[1]) : 1, r;
	float *a = aligned_alloc(64, (size_t)N * sizeof(float));
	double best_e = 1e30, best_s = 1e30;
	float se = 0, ss = 0;
	size_t i;

	if (!a || group < 1) {
		fprintf(stderr, "usage: access_order [BLOCKS-TOGETHER >= 1]\n");
		return 2;
	}
	for (i = 0; i < N; i++)
		a[i] = (float)(i & 7);
	for (r = 0; r < REPS; r++) {
		double t0 = now_ms(), t1, t2;

		se = engine_order(a, group);
		t1 = now_ms();
		ss = sequential(a);
		t2 = now_ms();
		best_e = t1 - t0 < best_e ? t1 - t0 : best_e;
		best_s = t2 - t1 < best_s ? t2 - t1 : best_s;
	}
	printf("blocks together %d: engine order %.2f ms, sequential %.2f ms (best of %d; sums %g %g)\n",
	       group, best_e, best_s, REPS, se, ss);
	free(a);
	return 0;
}
