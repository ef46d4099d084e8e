/*
 * barriers.cu - conformance of the barrier reductions: bar.red.popc.u32
 * (the number of threads of the block whose predicate is true),
 * bar.red.and.pred and bar.red.or.pred, for blocks of several sizes
 * (including one that is not a multiple of the warp size) and predicate
 * patterns (none, all, one thread, every third, the last thread); and
 * named barriers with thread counts: halves of a block synchronizing on
 * their own barriers (bar.sync 1, 64 / 2, 64, ids from a register too),
 * a producer half that bar.arrive's and a consumer half that bar.sync's on
 * the same id, round after round, and bar.red on barrier 5 with a count.
 */
#include "conf.h"

/* Thread t's predicate in pattern k. */
__host__ __device__ static bool pattern(u32 k, u32 t, u32 n)
{
	switch (k) {
	case 0:
		return false;
	case 1:
		return true;
	case 2:
		return t == 5 % n;
	case 3:
		return t % 3 == 0;
	default:
		return t == n - 1;
	}
}

/* out[t] = popc | and << 16 | or << 17, one block per pattern. */
__global__ void k_bar_red(u32 *out)
{
	u32 t = threadIdx.x, n = blockDim.x, k = blockIdx.x, c, a, o;
	u32 p = pattern(k, t, n);

	asm volatile("{ .reg .pred p, q; setp.ne.u32 p, %3, 0;"
		     " bar.red.popc.u32 %0, 0, p;"
		     " bar.red.and.pred q, 0, p; selp.u32 %1, 1, 0, q;"
		     " bar.red.or.pred q, 0, p; selp.u32 %2, 1, 0, q; }"
		     : "=r"(c), "=r"(a), "=r"(o) : "r"(p) : "memory");
	out[k * n + t] = c | a << 16 | o << 17;
}

/*
 * A 128-thread block in two halves of two warps.  Each half exchanges
 * values through shared memory behind its own barrier (1 and 2 with 64
 * threads; the id of the second from a register).  Then, for 8 rounds,
 * the first half produces msg[] and bar.arrive 3, 128 (barrier.arrive in
 * odd rounds) while the second
 * bar.sync 3, 128 and consumes it; bar.sync 4, 128 by everyone lets the
 * producers write the next round.  Last, bar.red.popc on barrier 5 with
 * 128 threads counts the odd threads.
 */
__global__ void k_named(u32 *out, u32 id2)
{
	__shared__ u32 s[128], msg[64];
	u32 t = threadIdx.x, half = t / 64, i = t % 64, acc = 0, c;

	s[t] = t * 3 + 1;
	if (half == 0)
		asm volatile("bar.sync 1, 64;" ::: "memory");
	else
		asm volatile("barrier.sync.aligned %0, 64;" ::"r"(id2) : "memory");
	out[t] = s[half * 64 + (i + 1) % 64];
	for (u32 r = 0; r < 8; r++) {
		if (half == 0) {
			msg[i] = 1000 * r + i;
			if (r & 1)
				asm volatile("barrier.arrive.aligned 3, 128;" ::: "memory");
			else
				asm volatile("bar.arrive 3, 128;" ::: "memory");
		} else {
			asm volatile("bar.sync 3, 128;" ::: "memory");
			acc += msg[63 - i] * (r + 1);
		}
		asm volatile("bar.sync 4, 128;" ::: "memory");
	}
	asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 5, 128, p; }"
		     : "=r"(c) : "r"(t & 1));
	out[128 + t] = acc;
	out[256 + t] = c;
}

static void run_named(void)
{
	u32 got[384], *d;

	CK(cudaMalloc(&d, sizeof(got)));
	k_named<<<1, 128>>>(d, 2);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (u32 t = 0; t < 128; t++) {
		u32 want = ((t / 64) * 64 + (t % 64 + 1) % 64) * 3 + 1, acc = 0;

		check(got[t] == want, "bar.sync 1/2, 64: thread %u read %u, want %u", t, got[t], want);
		for (u32 r = 0; t >= 64 && r < 8; r++)
			acc += (1000 * r + 63 - t % 64) * (r + 1);
		check(got[128 + t] == acc, "bar.arrive/bar.sync 3, 128: thread %u summed %u, want %u",
		      t, got[128 + t], acc);
		check(got[256 + t] == 64, "bar.red.popc 5, 128: thread %u got %u, want 64", t,
		      got[256 + t]);
	}
}

int main()
{
	run_named();
	for (u32 n : { 32u, 48u, 128u, 1024u }) {
		std::vector<u32> got(5 * n);
		u32 *d;

		CK(cudaMalloc(&d, got.size() * 4));
		k_bar_red<<<5, n>>>(d);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got.data(), d, got.size() * 4, cudaMemcpyDeviceToHost));
		CK(cudaFree(d));
		for (u32 k = 0; k < 5; k++) {
			u32 c = 0;
			for (u32 t = 0; t < n; t++)
				c += pattern(k, t, n);
			u32 want = c | (c == n) << 16 | (c > 0) << 17;
			for (u32 t = 0; t < n; t++)
				check(got[k * n + t] == want,
				      "bar.red (popc | and << 16 | or << 17), block of %u, pattern %u, "
				      "thread %u: got %#x, want %#x", n, k, t, got[k * n + t], want);
		}
	}
	return verdict("barriers");
}
