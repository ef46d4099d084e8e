/*
 * barrier_device_func: __syncthreads() inside device functions that are
 * really called (__noinline__), so the barrier executes in a .func with
 * the warp's lanes inside a call: a shared-memory tree reduction whose
 * steps are each a call, a function that syncs from inside a loop of its
 * caller with some threads having returned early, and a recursive one
 * that syncs at every level.  Every thread checks what it reads after the
 * barrier; the block has a partial last warp.
 */
#include "check.h"

#define N 200

__device__ __noinline__ void store_and_sync(int *s, int i, int v)
{
	s[i] = v;
	__syncthreads();
}

__device__ __noinline__ int step(int *s, int i, int d)
{
	int v = i < d && i + d < N ? s[i] + s[i + d] : s[i];

	__syncthreads();
	s[i] = v;
	__syncthreads();
	return v;
}

/* Syncs at each level of the recursion; every thread reads its right
 * neighbour's value of that level. */
__device__ __noinline__ int ladder(int *s, int i, int level)
{
	int got;

	if (level == 0)
		return 0;
	store_and_sync(s, i, i * 10 + level);
	got = s[(i + 1) % N];
	__syncthreads();
	return got + ladder(s, i, level - 1);
}

__global__ void kernel(int *out)
{
	__shared__ int s[N];
	int i = threadIdx.x, d, sum;

	store_and_sync(s, i, i + 1);
	for (d = 128; d > 0; d /= 2)
		step(s, i, d);
	sum = s[0];
	__syncthreads();
	out[i] = sum;
	out[N + i] = ladder(s, i, 4);
}

/* Threads of the last warp return before the barriers: they count as
 * arrived. */
__global__ void early(int *out)
{
	__shared__ int s[N];
	int i = threadIdx.x;

	if (i >= 180)
		return;
	store_and_sync(s, i, 3 * i);
	out[i] = s[179 - i];
}

int main()
{
	int *d, got[2 * N], want_ladder;

	CK(cudaMalloc(&d, sizeof(got)));
	kernel<<<1, N>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N; i++) {
		check(got[i] == N * (N + 1) / 2, "reduction: thread %d got %d, want %d", i, got[i],
		      N * (N + 1) / 2);
		want_ladder = 0;
		for (int level = 4; level > 0; level--)
			want_ladder += (i + 1) % N * 10 + level;
		check(got[N + i] == want_ladder, "recursion: thread %d got %d, want %d", i,
		      got[N + i], want_ladder);
	}
	early<<<1, N>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 180; i++)
		check(got[i] == 3 * (179 - i), "early return: thread %d got %d, want %d", i, got[i],
		      3 * (179 - i));
	CK(cudaFree(d));
	return verdict("barrier_device_func");
}
