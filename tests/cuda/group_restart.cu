/*
 * group_restart: a kernel with a barrier whose row groups (the cpu
 * engine's ANYGPU_CPU_GROUPS=all, src/cpu/group.c) widen a 32-bit index
 * that crosses INT32_MAX in one group of the block but not in the others.
 * The engine cannot keep such a widened index linear in that group: the
 * whole block must run again one thread at a time, and every thread must
 * still add to its counter once, even those of the groups that had gone
 * past the widening and added before the group that crosses got there,
 * and those of another row that took another way and added there.
 */
#include "check.h"

#include <climits>

#define THREADS 64

__global__ void count_once(long long *idx, unsigned *hits, int base)
{
	__shared__ unsigned one[THREADS];
	int i;
	long long w;

	one[threadIdx.x] = 1;
	__syncthreads();
	i = base + (int)threadIdx.x;
	w = i;
	/* the widened index picks the counter, so it comes before the add */
	atomicAdd(&hits[threadIdx.x + (w < 0 ? THREADS : 0)], one[threadIdx.x]);
	idx[threadIdx.x] = w;
}

/* Row 0 adds; row 1 widens its index, which it keeps in shared memory
 * until after the next barrier. */
__global__ void rows_apart(long long *idx, unsigned *hits, int base)
{
	__shared__ unsigned one[32];
	__shared__ long long kept[32];

	if (threadIdx.y == 0)
		one[threadIdx.x] = 1;
	__syncthreads();
	if (threadIdx.y == 0) {
		atomicAdd(&hits[threadIdx.x], one[threadIdx.x]);
	} else {
		int i = base + (int)threadIdx.x;

		kept[threadIdx.x] = i;
	}
	__syncthreads();
	if (threadIdx.y == 1)
		idx[threadIdx.x] = kept[threadIdx.x];
}

static void run(int base, const char *what)
{
	long long *idx, hidx[THREADS], want_idx[THREADS];
	unsigned *hits, hhits[2 * THREADS], want_hits[2 * THREADS];
	char name[96];
	int t;

	CK(cudaMalloc(&idx, sizeof(hidx)));
	CK(cudaMalloc(&hits, sizeof(hhits)));
	CK(cudaMemset(hits, 0, sizeof(hhits)));
	count_once<<<1, THREADS>>>(idx, hits, base);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hidx, idx, sizeof(hidx), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hhits, hits, sizeof(hhits), cudaMemcpyDeviceToHost));
	memset(want_hits, 0, sizeof(want_hits));
	for (t = 0; t < THREADS; t++) {
		/* base + t wraps in two's complement, as on a GPU */
		want_idx[t] = (int)(unsigned)((unsigned)base + (unsigned)t);
		want_hits[t + (want_idx[t] < 0 ? THREADS : 0)] = 1;
	}
	snprintf(name, sizeof(name), "%s: widened indices", what);
	check_array(name, hidx, want_idx, THREADS);
	snprintf(name, sizeof(name), "%s: adds per thread", what);
	check_array(name, hhits, want_hits, 2 * THREADS);
	CK(cudaFree(idx));
	CK(cudaFree(hits));
}

static void run_rows(int base, const char *what)
{
	long long *idx, hidx[32], want_idx[32];
	unsigned *hits, hhits[32], want_hits[32];
	char name[96];
	int t;

	CK(cudaMalloc(&idx, sizeof(hidx)));
	CK(cudaMalloc(&hits, sizeof(hhits)));
	CK(cudaMemset(hits, 0, sizeof(hhits)));
	rows_apart<<<1, dim3(32, 2)>>>(idx, hits, base);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hidx, idx, sizeof(hidx), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hhits, hits, sizeof(hhits), cudaMemcpyDeviceToHost));
	for (t = 0; t < 32; t++) {
		want_idx[t] = (int)(unsigned)((unsigned)base + (unsigned)t);
		want_hits[t] = 1;
	}
	snprintf(name, sizeof(name), "%s, rows apart: widened indices", what);
	check_array(name, hidx, want_idx, 32);
	snprintf(name, sizeof(name), "%s, rows apart: adds per thread", what);
	check_array(name, hhits, want_hits, 32);
	CK(cudaFree(idx));
	CK(cudaFree(hits));
}

int main(void)
{
	run(INT_MAX - 40, "a group across INT32_MAX");
	run(1000, "far from the wrap");
	run_rows(INT_MAX - 20, "a group across INT32_MAX");
	run_rows(1000, "far from the wrap");
	return verdict("group_restart");
}
