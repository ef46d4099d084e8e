/*
 * memory_isspacep_pending.cu - isspacep.global/.shared/.local on generic
 * addresses of a global, a shared and a local variable, which the engine
 * refuses today ("unsupported instruction 'isspacep.global'").  Each
 * address must be in its own space and in no other.  Moves into
 * memory.cu when it passes.
 */
// pending: isspacep is refused by the translator
#include "conf.h"

/* isspacep of generic addresses of a global, a shared and a local
 * variable: bit 3*space + test (space and test: 0 global, 1 shared,
 * 2 local). */
__device__ u32 isspace_bits(const void *p, u32 space)
{
	u32 g, s, l;

	asm volatile("{ .reg .pred p; isspacep.global p, %3; selp.u32 %0, 1, 0, p;"
		     " isspacep.shared p, %3; selp.u32 %1, 1, 0, p;"
		     " isspacep.local p, %3; selp.u32 %2, 1, 0, p; }"
		     : "=r"(g), "=r"(s), "=r"(l) : "l"(p));
	return (g | s << 1 | l << 2) << (3 * space);
}

__global__ void k_isspacep(u32 *g, u32 *out)
{
	__shared__ u32 s;
	volatile u32 l[2];

	l[threadIdx.x & 1] = threadIdx.x;
	s = 0;
	out[threadIdx.x] = isspace_bits(g, 0) | isspace_bits(&s, 1) | isspace_bits((const void *)l, 2);
}

int main()
{
	u32 got[32], *d;
	/* global: isspacep.global only; shared: .shared only; local: .local only */
	u32 want = 1 | 2 << 3 | 4 << 6;

	CK(cudaMalloc(&d, sizeof(got) + 4));
	k_isspacep<<<1, 32>>>(d, d + 1);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d + 1, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (u32 t = 0; t < 32; t++)
		check(got[t] == want, "isspacep, thread %u: got %#o, want %#o (octal: local, shared, global)",
		      t, got[t], want);
	return verdict("memory_isspacep_pending");
}
