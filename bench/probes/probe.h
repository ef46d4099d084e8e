/*
 * probe.h - what the CUDA probes share: a CUDA call that must succeed,
 * and the time of a launch, the best of several.  A probe defines
 * PROBE_NAME (its name in messages) before it includes this file.
 */
#ifndef PROBE_H
#define PROBE_H

#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static void check(cudaError_t e, const char *what)
{
	if (e != cudaSuccess) {
		fprintf(stderr, "%s: %s: %s\n", PROBE_NAME, what, cudaGetErrorString(e));
		exit(1);
	}
}

/* The fewest milliseconds of reps runs of launch() (kernel launches),
 * each timed by events around it on the default stream. */
template <typename Launch>
static float best_ms(int reps, Launch launch)
{
	float best = 1e30f, ms;
	cudaEvent_t a, b;

	check(cudaEventCreate(&a), "cudaEventCreate");
	check(cudaEventCreate(&b), "cudaEventCreate");
	for (int r = 0; r < reps; r++) {
		check(cudaEventRecord(a), "cudaEventRecord");
		launch();
		check(cudaGetLastError(), "launch");
		check(cudaEventRecord(b), "cudaEventRecord");
		check(cudaEventSynchronize(b), "cudaEventSynchronize");
		check(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
		if (ms < best)
			best = ms;
	}
	check(cudaEventDestroy(a), "cudaEventDestroy");
	check(cudaEventDestroy(b), "cudaEventDestroy");
	return best;
}

#endif
