/*
 * cooperative_groups: the cooperative groups API most CUDA code now uses.
 * this_thread_block() and its sync(), tiled_partition into tiles of 32, 16
 * and 8 with shfl_down / shfl_xor / ballot / any on the tile, the tile's
 * thread_rank and meta_group_rank, and cg::reduce over a tile.
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include "check.h"

namespace cg = cooperative_groups;

#define BLOCK 96

struct out {
	int sum32[BLOCK], sum16[BLOCK], max8[BLOCK], rank8[BLOCK], group8[BLOCK];
	unsigned ballot16[BLOCK];
	int any8[BLOCK], reduced16[BLOCK], block_total;
};

template <unsigned N>
__device__ int tile_sum(cg::thread_block_tile<N> t, int v)
{
	for (int d = N / 2; d > 0; d /= 2)
		v += t.shfl_down(v, d);
	return t.shfl(v, 0);
}

__global__ void groups(const int *in, struct out *o)
{
	__shared__ int total;
	cg::thread_block block = cg::this_thread_block();
	int i = block.thread_rank(), v = in[i];
	if (i == 0)
		total = 0;
	block.sync();

	cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
	cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
	cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
	o->sum32[i] = tile_sum(t32, v);
	o->sum16[i] = tile_sum(t16, v);
	int m = v;
	for (int d = 4; d > 0; d /= 2)
		m = max(m, t8.shfl_xor(m, d));
	o->max8[i] = m;
	o->rank8[i] = t8.thread_rank();
	o->group8[i] = t8.meta_group_rank();
	o->ballot16[i] = t16.ballot(v % 3 == 0);
	o->any8[i] = t8.any(v == 5);
	o->reduced16[i] = cg::reduce(t16, v, cg::plus<int>());
	if (t32.thread_rank() == 0)
		atomicAdd(&total, o->sum32[i]);
	block.sync();
	if (i == 0)
		o->block_total = total;
}

int main()
{
	int in[BLOCK];
	for (int i = 0; i < BLOCK; i++)
		in[i] = (i * 29) % 23 - 6;
	struct out want = {}, got;
	for (int i = 0; i < BLOCK; i++) {
		int b32 = i / 32 * 32, b16 = i / 16 * 16, b8 = i / 8 * 8;
		for (int k = 0; k < 32; k++)
			want.sum32[i] += in[b32 + k];
		for (int k = 0; k < 16; k++) {
			want.sum16[i] += in[b16 + k];
			want.ballot16[i] |= (unsigned)(in[b16 + k] % 3 == 0) << k;
		}
		want.max8[i] = in[b8];
		for (int k = 0; k < 8; k++) {
			want.max8[i] = in[b8 + k] > want.max8[i] ? in[b8 + k] : want.max8[i];
			want.any8[i] |= in[b8 + k] == 5;
		}
		want.rank8[i] = i % 8;
		want.group8[i] = i / 8;
		want.reduced16[i] = want.sum16[i];
		want.block_total += in[i];
	}
	int *din;
	struct out *dout;
	CK(cudaMalloc(&din, sizeof(in)));
	CK(cudaMalloc(&dout, sizeof(got)));
	CK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	groups<<<1, BLOCK>>>(din, dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	for (int i = 0; i < BLOCK; i++)
		got.any8[i] = !!got.any8[i];
	check_array("tile<32> sum", got.sum32, want.sum32, BLOCK);
	check_array("tile<16> sum", got.sum16, want.sum16, BLOCK);
	check_array("tile<8> max by shfl_xor", got.max8, want.max8, BLOCK);
	check_array("tile<8> thread_rank", got.rank8, want.rank8, BLOCK);
	check_array("tile<8> meta_group_rank", got.group8, want.group8, BLOCK);
	check_array("tile<16> ballot", got.ballot16, want.ballot16, BLOCK);
	check_array("tile<8> any", got.any8, want.any8, BLOCK);
	check_array("cg::reduce over tile<16>", got.reduced16, want.reduced16, BLOCK);
	check(got.block_total == want.block_total, "block total %d, want %d", got.block_total,
	      want.block_total);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	return verdict("cooperative_groups");
}
