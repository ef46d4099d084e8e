/*
 * scan_floor.c - the least time the scan's memory traffic takes on this
 * machine, for each way of scanning: the passes of cuda/scan.cu as anygpu
 * runs them (read the input and write the output, then read and write the
 * output again: add_offsets), and those of omp/scan.c (read the input
 * twice, write the output once), each pass a plain loop that moves the same
 * bytes and does next to no arithmetic.  Not part of the suite: a probe
 * that says how far each side of the scan is from its bandwidth bound
 * (docs/PERFORMANCE.md, "2026-12-05 14:00 UTC").
 *
 *   cc -O3 -march=native -fopenmp -o scan_floor bench/probes/scan_floor.c
 *   OMP_NUM_THREADS=2 ./scan_floor
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N (1u << 24)
#define ROUNDS 10

static uint32_t *in, *out;

/* out = in + c: one read and one write of 64 MiB. */
static void copy_pass(uint32_t c)
{
#pragma omp parallel for simd schedule(static)
	for (size_t i = 0; i < N; i++)
		out[i] = in[i] + c;
}

/* out += c: a read and a write of the same 64 MiB. */
static void update_pass(uint32_t c)
{
#pragma omp parallel for simd schedule(static)
	for (size_t i = 0; i < N; i++)
		out[i] += c;
}

/* The sum of in: one read of 64 MiB. */
static uint32_t sum_pass(void)
{
	uint32_t s = 0;

#pragma omp parallel for simd schedule(static) reduction(+ : s)
	for (size_t i = 0; i < N; i++)
		s += in[i];
	return s;
}

static double best_of(void (*passes)(uint32_t))
{
	double best = 1e30;

	for (uint32_t r = 0; r < ROUNDS; r++) {
		double t = omp_get_wtime();

		passes(r);
		t = omp_get_wtime() - t;
		if (t < best)
			best = t;
	}
	return best * 1e3;
}

static volatile uint32_t sink;

static void cuda_passes(uint32_t r)
{
	copy_pass(r);
	update_pass(r);
}

static void omp_passes(uint32_t r)
{
	sink = sum_pass();
	copy_pass(r);
}

int main(void)
{
	in = aligned_alloc(64, N * sizeof(uint32_t));
	out = aligned_alloc(64, N * sizeof(uint32_t));
	if (!in || !out) {
		fprintf(stderr, "scan_floor: out of memory\n");
		return 1;
	}
	memset(in, 1, N * sizeof(uint32_t));
	memset(out, 2, N * sizeof(uint32_t));
	printf("scan floor, %u elements, %d threads, best of %d:\n", N, omp_get_max_threads(), ROUNDS);
	printf("  cuda/scan.cu's passes (in -> out, out += c): %.2f ms\n", best_of(cuda_passes));
	printf("  omp/scan.c's passes (sum in, in -> out):     %.2f ms\n", best_of(omp_passes));
	return 0;
}
