/*
 * cooperative_groups: the cooperative groups API most CUDA code now uses.
 * this_thread_block() and its sync(), tiled_partition into tiles of 32, 16
 * and 8 with shfl_down / shfl_xor / ballot / any on the tile, the tile's
 * thread_rank and meta_group_rank, and cg::reduce over a tile.  Then the
 * CUDA samples' reduce4 written with them: a shared-memory tree down to
 * 64, the first warp picked by the block's thread_rank() < 32 finishing
 * with a tile's shfl_down, on 1D and 2D blocks and data that ends inside
 * a block.
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

__global__ void tree_then_tile(const int *in, int *sums, unsigned n)
{
	extern __shared__ int sdata[];
	cg::thread_block cta = cg::this_thread_block();
	unsigned tid = cta.thread_rank(), size = cta.size();
	unsigned i = blockIdx.x * size * 2 + tid;
	int sum = i < n ? in[i] : 0;

	if (i + size < n)
		sum += in[i + size];
	sdata[tid] = sum;
	cg::sync(cta);
	for (unsigned s = size / 2; s > 32; s >>= 1) {
		if (tid < s)
			sdata[tid] = sum = sum + sdata[tid + s];
		cg::sync(cta);
	}
	cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);
	if (cta.thread_rank() < 32) {
		sum += sdata[tid + 32];
		for (int off = tile32.size() / 2; off > 0; off /= 2)
			sum += tile32.shfl_down(sum, off);
	}
	if (cta.thread_rank() == 0)
		sums[blockIdx.x] = sum;
}

static void test_tree_then_tile(unsigned n, dim3 block)
{
	unsigned size = block.x * block.y * block.z, blocks = (n + 2 * size - 1) / (2 * size);
	int *in = (int *)malloc(n * sizeof(int)), *got = (int *)malloc(blocks * sizeof(int));
	int *want = (int *)calloc(blocks, sizeof(int)), *din, *dsums;
	char what[80];

	for (unsigned k = 0; k < n; k++) {
		in[k] = (int)(k * 7919 % 201) - 100;
		want[k / (2 * size)] += in[k];
	}
	CK(cudaMalloc(&din, n * sizeof(int)));
	CK(cudaMalloc(&dsums, blocks * sizeof(int)));
	CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	tree_then_tile<<<blocks, block, size * sizeof(int)>>>(din, dsums, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dsums, blocks * sizeof(int), cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "reduce4 of %u, blocks of %u x %u x %u", n, block.x, block.y,
		 block.z);
	check_array(what, got, want, blocks);
	CK(cudaFree(din));
	CK(cudaFree(dsums));
	free(in), free(got), free(want);
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
	test_tree_then_tile(1 << 16, dim3(256));
	test_tree_then_tile(100003, dim3(256));
	test_tree_then_tile(50000, dim3(64, 4));       /* rows of two warps */
	test_tree_then_tile(30001, dim3(32, 4));       /* rows of one */
	test_tree_then_tile(20000, dim3(128, 1, 2));
	return verdict("cooperative_groups");
}
