/*
 * barriers_named_pending.cu - named barriers with thread counts, which
 * the engine refuses today ("only barrier 0 without a thread count"):
 * the two halves of a 128-thread block synchronize on barriers 1 and 2
 * with a count of 64 each (bar.sync 1, 64 / bar.sync 2, 64), each half
 * exchanging values through shared memory; and bar.arrive 3, 128 from the
 * producer half with bar.sync 3, 128 in the consumer half.  Moves into
 * barriers.cu when it passes.
 */
// pending: bar.sync/bar.arrive with a barrier number other than 0 or a thread count are refused
#include "conf.h"

__global__ void k_named(u32 *out)
{
	__shared__ u32 s[128], msg[64];
	u32 t = threadIdx.x, half = t / 64, i = t % 64;

	s[t] = t * 3 + 1;
	if (half == 0)
		asm volatile("bar.sync 1, 64;" ::: "memory");
	else
		asm volatile("bar.sync 2, 64;" ::: "memory");
	/* within a half: read a neighbour's value written before the barrier */
	out[t] = s[half * 64 + (i + 1) % 64];
	if (half == 0) {
		msg[i] = 1000 + i;
		asm volatile("bar.arrive 3, 128;" ::: "memory");
	} else {
		asm volatile("bar.sync 3, 128;" ::: "memory");
		out[128 + i] = msg[63 - i];
	}
}

int main()
{
	u32 got[192], *d;

	CK(cudaMalloc(&d, sizeof(got)));
	k_named<<<1, 128>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (u32 t = 0; t < 128; t++) {
		u32 want = ((t / 64) * 64 + (t % 64 + 1) % 64) * 3 + 1;
		check(got[t] == want, "bar.sync 1/2, 64: thread %u read %u, want %u", t, got[t], want);
	}
	for (u32 i = 0; i < 64; i++)
		check(got[128 + i] == 1000 + 63 - i, "bar.arrive/bar.sync 3, 128: consumer %u read %u, want %u",
		      i, got[128 + i], 1000 + 63 - i);
	return verdict("barriers_named_pending");
}
