/*
 * barriers.cu - conformance of the barrier reductions: bar.red.popc.u32
 * (the number of threads of the block whose predicate is true),
 * bar.red.and.pred and bar.red.or.pred, for blocks of several sizes
 * (including one that is not a multiple of the warp size) and predicate
 * patterns (none, all, one thread, every third, the last thread).
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

int main()
{
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
