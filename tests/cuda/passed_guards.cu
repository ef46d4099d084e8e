/*
 * passed_guards: guards that the cpu engine tests once for a whole call,
 * from the first and last lane of each group of threads (ends.c), and
 * when every lane passes, runs without.  Each kernel has barriers (its
 * calls loop over eight groups of sixteen threads) and a guard made of
 * comparisons of threadIdx.x against a bound, and the threads are laid
 * out so that some calls pass whole, some in part, and some pass at both
 * ends but not between: a linear index that wraps inside the group,
 * signed and unsigned.  bound_after_barrier reads its bound from shared
 * memory after the barrier, in the same block as the guard: the test
 * must not use the bound the register held before.
 */
#include "check.h"

#define N 256

/* j wraps past INT_MAX inside a group when k is near it; j < limit holds
 * at both ends of such a group and not between (lanes 1-3 of 16). */
__global__ void wrap_signed(const int *in, int *out, int k, int limit)
{
	__shared__ int s[N];
	int t = threadIdx.x, i = blockIdx.x * N + t;
	int j = (int)((unsigned)k + ((unsigned)t << 20) + blockIdx.x);
	int v = 0;

	s[t] = in[i];
	__syncthreads();
	if (j < limit)
		v = s[N - 1 - t];
	out[i] = v;
}

/* the same across 2^32, unsigned (lane 4 of 16) */
__global__ void wrap_unsigned(const int *in, int *out, unsigned k, unsigned limit)
{
	__shared__ int s[N];
	int t = threadIdx.x, i = blockIdx.x * N + t;
	unsigned u = k + ((unsigned)t << 20) + blockIdx.x;
	int v = 0;

	s[t] = in[i];
	__syncthreads();
	if (u >= limit)
		v = s[N - 1 - t];
	out[i] = v;
}

/* either of two tests, and the negation of one */
__global__ void either_test(const int *in, int *out, int lo, int hi)
{
	__shared__ int s[N];
	int t = threadIdx.x, i = blockIdx.x * N + t;
	int x = t + (int)blockIdx.x * 40 - 100;
	int v = 0;

	s[t] = in[i];
	__syncthreads();
	if (x < lo || x >= hi)
		v = s[(t + 5) % N];
	if (!(x < hi))
		v += 2 * s[(t + 9) % N];
	out[i] = v;
}

/* a bound made after the barrier, different each round */
__global__ void bound_after_barrier(const int *in, int *out, const int *bounds, int rounds)
{
	__shared__ int s[N];
	__shared__ int bound;
	int t = threadIdx.x, i = blockIdx.x * N + t;
	int v = 0;

	for (int r = 0; r < rounds; r++) {
		s[t] = in[i] + r;
		if (t == 0)
			bound = bounds[r];
		__syncthreads();
		int b = bound;
		if (t < b)
			v += s[N - 1 - t];
		__syncthreads();
	}
	out[i] = v;
}

static int *dev(const int *h, size_t n)
{
	int *d;

	CK(cudaMalloc(&d, n * sizeof(int)));
	if (h)
		CK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
	return d;
}

static void fetch(const char *what, const int *d, const int *want, size_t n)
{
	int *got = (int *)malloc(n * sizeof(int));

	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, n * sizeof(int), cudaMemcpyDeviceToHost));
	check_array(what, got, want, n);
	free(got);
}

int main(void)
{
	const int blocks = 6;
	const size_t n = (size_t)blocks * N;
	int *hin = (int *)malloc(n * sizeof(int)), *want = (int *)malloc(n * sizeof(int));
	int *in, *out, *bounds;
	size_t i;

	for (i = 0; i < n; i++)
		hin[i] = (int)(i * 37 % 1001) + 1;
	in = dev(hin, n);
	out = dev(NULL, n);

	/* lane l of a group of sixteen: k + l * 2^20 + block; with k =
	 * 0x7fc00000, lanes 4-15 wrap negative */
	const int ks = 0x7fc00000, limit = 0x7fc00001;
	for (i = 0; i < n; i++) {
		unsigned t = i % N, b = (unsigned)(i / N);
		int j = (int)((unsigned)ks + (t << 20) + b);
		want[i] = j < limit ? hin[b * N + N - 1 - t] : 0;
	}
	wrap_signed<<<blocks, N>>>(in, out, ks, limit);
	fetch("signed index wrapping inside a group", out, want, n);

	const unsigned ku = 0xffc00000u, ulimit = 0x50000u;
	for (i = 0; i < n; i++) {
		unsigned t = i % N, b = (unsigned)(i / N);
		unsigned u = ku + (t << 20) + b;
		want[i] = u >= ulimit ? hin[b * N + N - 1 - t] : 0;
	}
	wrap_unsigned<<<blocks, N>>>(in, out, ku, ulimit);
	fetch("unsigned index wrapping inside a group", out, want, n);

	/* x runs from -100 + 40 * block; lo and hi cut some groups */
	for (int lo = -200; lo <= 100; lo += 150) {
		const int hi = 190;
		char what[64];

		for (i = 0; i < n; i++) {
			int t = (int)(i % N), b = (int)(i / N), x = t + b * 40 - 100;
			int v = x < lo || x >= hi ? hin[b * N + (t + 5) % N] : 0;
			want[i] = v + (!(x < hi) ? 2 * hin[b * N + (t + 9) % N] : 0);
		}
		either_test<<<blocks, N>>>(in, out, lo, hi);
		snprintf(what, sizeof(what), "either of two bounds, lo %d", lo);
		fetch(what, out, want, n);
	}

	/* every thread in, none, then a cut inside a group, then all again */
	const int hb[] = { 300, 0, 300, 37, 300, 0, 129 }, rounds = 7;
	bounds = dev(hb, rounds);
	for (i = 0; i < n; i++) {
		int t = (int)(i % N), b = (int)(i / N), v = 0;

		for (int r = 0; r < rounds; r++)
			if (t < hb[r])
				v += hin[b * N + N - 1 - t] + r;
		want[i] = v;
	}
	bound_after_barrier<<<blocks, N>>>(in, out, bounds, rounds);
	fetch("a bound loaded after the barrier", out, want, n);

	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(bounds));
	free(hin);
	free(want);
	return verdict("passed_guards");
}
