/*
 * warp_vote: warp-wide votes and masks.  __ballot_sync, __any_sync,
 * __all_sync over data-dependent predicates; __activemask inside divergent
 * branches (the lanes that took the branch); __match_any_sync grouping
 * lanes by value; __syncwarp with a partial mask; lanes of a partial last
 * warp (block of 48 threads) are absent from the masks.
 */
#include "check.h"

#define FULL 0xffffffffu

struct out {
	unsigned ballot[2], any[2], all[2], even_mask[2], odd_mask[2], match[64], tail_ballot;
	int group_sum[64];
};

__global__ void votes(const int *v, struct out *o)
{
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, x = v[threadIdx.x];
	unsigned b = __ballot_sync(FULL, x > 10);
	int any = __any_sync(FULL, x == 7);
	int all = __all_sync(FULL, x >= 0);
	if (lane == 0) {
		o->ballot[warp] = b;
		o->any[warp] = any;
		o->all[warp] = all;
	}
	if (lane % 2 == 0) {
		unsigned m = __activemask();
		if (lane == 0)
			o->even_mask[warp] = m;
	} else {
		unsigned m = __activemask();
		if (lane == 1)
			o->odd_mask[warp] = m;
	}
	o->match[threadIdx.x] = __match_any_sync(FULL, x % 4);
	/* Lanes 0-15 cooperate alone: a __syncwarp over half the warp. */
	if (lane < 16) {
		int s = x;
		for (int d = 8; d > 0; d >>= 1) {
			s += __shfl_down_sync(0xffffu, s, d, 16);
			__syncwarp(0xffffu);
		}
		o->group_sum[threadIdx.x] = s;
	}
}

__global__ void partial_warp(struct out *o)
{
	unsigned b = __ballot_sync(__activemask(), 1);
	if (threadIdx.x == 32)
		o->tail_ballot = b;
}

int main()
{
	int v[64];
	for (int i = 0; i < 64; i++)
		v[i] = (i * 13) % 17;
	v[40] = 7;
	struct out *d, got;
	int *dv;
	CK(cudaMalloc(&d, sizeof(got)));
	CK(cudaMalloc(&dv, sizeof(v)));
	CK(cudaMemset(d, 0, sizeof(got)));
	CK(cudaMemcpy(dv, v, sizeof(v), cudaMemcpyHostToDevice));
	votes<<<1, 64>>>(dv, d);
	CK(cudaGetLastError());
	partial_warp<<<1, 48>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));
	for (int w = 0; w < 2; w++) {
		unsigned ballot = 0, any = 0, all = 1;
		for (int l = 0; l < 32; l++) {
			int x = v[w * 32 + l];
			ballot |= (unsigned)(x > 10) << l;
			any |= x == 7;
			all &= x >= 0;
		}
		check(got.ballot[w] == ballot, "warp %d __ballot_sync: got %#x, want %#x", w,
		      got.ballot[w], ballot);
		check(!!got.any[w] == !!any, "warp %d __any_sync: got %u, want %u", w, got.any[w], any);
		check(!!got.all[w] == !!all, "warp %d __all_sync: got %u, want %u", w, got.all[w], all);
		check(got.even_mask[w] == 0x55555555u, "warp %d __activemask in the even branch: %#x",
		      w, got.even_mask[w]);
		check(got.odd_mask[w] == 0xaaaaaaaau, "warp %d __activemask in the odd branch: %#x",
		      w, got.odd_mask[w]);
	}
	unsigned match[64];
	int sums[64];
	for (int i = 0; i < 64; i++) {
		int w = i / 32, l = i % 32;
		match[i] = 0;
		for (int j = 0; j < 32; j++)
			match[i] |= (unsigned)(v[w * 32 + j] % 4 == v[i] % 4) << j;
		sums[i] = 0;
		if (l < 16) {
			/* Lane l sums lanes l..15 of its half warp by a down-sweep. */
			int s[16];
			for (int k = 0; k < 16; k++)
				s[k] = v[w * 32 + k];
			for (int dd = 8; dd > 0; dd >>= 1)
				for (int k = 0; k < 16; k++)
					s[k] += k + dd < 16 ? s[k + dd] : s[k];
			sums[i] = s[l];
		}
	}
	check_array("__match_any_sync", got.match, match, 64);
	int group[64];
	for (int i = 0; i < 64; i++)
		group[i] = i % 32 < 16 ? got.group_sum[i] : 0;
	check_array("half-warp shuffles with __syncwarp", group, sums, 64);
	check(got.tail_ballot == 0xffffu, "ballot in a 16-lane partial warp: %#x, want 0xffff",
	      got.tail_ballot);
	CK(cudaFree(d));
	CK(cudaFree(dv));
	return verdict("warp_vote");
}
