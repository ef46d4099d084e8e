/*
 * reduce_shuffle: warp shuffles.  A block sum built from __shfl_down_sync
 * and one shared slot per warp; a butterfly all-reduce with __shfl_xor_sync
 * that every lane must see; and the exact lane mapping of __shfl_sync,
 * __shfl_up_sync and __shfl_down_sync with widths below 32, for int, float,
 * and 64-bit values.
 */
#include "check.h"

#define FULL 0xffffffffu

__global__ void block_sum(const int *in, int *out, int n)
{
	__shared__ int warp_sums[32];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	int v = i < n ? in[i] : 0;
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_down_sync(FULL, v, d);
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	if (warp == 0) {
		int nwarps = blockDim.x / 32;
		v = lane < nwarps ? warp_sums[lane] : 0;
		for (int d = 16; d > 0; d >>= 1)
			v += __shfl_down_sync(FULL, v, d);
		if (lane == 0)
			out[blockIdx.x] = v;
	}
}

__global__ void butterfly(const float *in, float *out)
{
	float v = in[threadIdx.x];
	for (int m = 1; m < 32; m <<= 1)
		v = fmaxf(v, __shfl_xor_sync(FULL, v, m));
	out[threadIdx.x] = v;
}

struct lanes {
	int down16[32], up8[32], idx8[32], xor5[32];
	float fdown[32];
	long long ll[32];
	double dbl[32];
};

__global__ void mapping(struct lanes *o)
{
	int lane = threadIdx.x;
	int v = lane * 3 + 1;
	o->down16[lane] = __shfl_down_sync(FULL, v, 3, 16);
	o->up8[lane] = __shfl_up_sync(FULL, v, 5, 8);
	o->idx8[lane] = __shfl_sync(FULL, v, lane * 7 + 2, 8);
	o->xor5[lane] = __shfl_xor_sync(FULL, v, 5);
	o->fdown[lane] = __shfl_down_sync(FULL, lane + 0.25f, 1);
	o->ll[lane] = __shfl_sync(FULL, (long long)lane << 40 | lane, 31 - lane);
	o->dbl[lane] = __shfl_up_sync(FULL, lane * 1e300, 2);
}

static void test_block_sum(void)
{
	const int n = 10000, threads = 320, blocks = (n + threads - 1) / threads;
	int *in = (int *)malloc(n * sizeof(int)), *out = (int *)malloc(blocks * sizeof(int));
	int *want = (int *)calloc(blocks, sizeof(int));
	for (int i = 0; i < n; i++) {
		in[i] = (i * 37) % 101 - 50;
		want[i / threads] += in[i];
	}
	int *din, *dout;
	CK(cudaMalloc(&din, n * sizeof(int)));
	CK(cudaMalloc(&dout, blocks * sizeof(int)));
	CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	block_sum<<<blocks, threads>>>(din, dout, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, blocks * sizeof(int), cudaMemcpyDeviceToHost));
	check_array("block sums", out, want, blocks);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	free(in), free(out), free(want);
}

static void test_butterfly(void)
{
	float in[64], out[64], want[64];
	for (int i = 0; i < 64; i++)
		in[i] = (float)((i * 13) % 64) - 20.5f;
	for (int w = 0; w < 2; w++) {
		float m = in[w * 32];
		for (int l = 0; l < 32; l++)
			m = in[w * 32 + l] > m ? in[w * 32 + l] : m;
		for (int l = 0; l < 32; l++)
			want[w * 32 + l] = m;
	}
	float *din, *dout;
	CK(cudaMalloc(&din, sizeof(in)));
	CK(cudaMalloc(&dout, sizeof(out)));
	CK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	butterfly<<<1, 64>>>(din, dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	check_array("butterfly max", out, want, 64);
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

static void test_mapping(void)
{
	struct lanes got, want;
	for (int l = 0; l < 32; l++) {
		int v[32];
		for (int j = 0; j < 32; j++)
			v[j] = j * 3 + 1;
		int seg8 = l / 8 * 8;
		want.down16[l] = l % 16 + 3 < 16 ? v[l + 3] : v[l];
		want.up8[l] = l % 8 >= 5 ? v[l - 5] : v[l];
		want.idx8[l] = v[seg8 + (l * 7 + 2) % 8];
		want.xor5[l] = v[l ^ 5];
		want.fdown[l] = (l < 31 ? l + 1 : l) + 0.25f;
		want.ll[l] = (long long)(31 - l) << 40 | (31 - l);
		want.dbl[l] = (l >= 2 ? l - 2 : l) * 1e300;
	}
	struct lanes *d;
	CK(cudaMalloc(&d, sizeof(*d)));
	mapping<<<1, 32>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));
	check_array("__shfl_down_sync width 16", got.down16, want.down16, 32);
	check_array("__shfl_up_sync width 8", got.up8, want.up8, 32);
	check_array("__shfl_sync width 8", got.idx8, want.idx8, 32);
	check_array("__shfl_xor_sync 5", got.xor5, want.xor5, 32);
	check_array("__shfl_down_sync float", got.fdown, want.fdown, 32);
	check_array("__shfl_sync long long", got.ll, want.ll, 32);
	check_array("__shfl_up_sync double", got.dbl, want.dbl, 32);
	CK(cudaFree(d));
}

int main()
{
	test_block_sum();
	test_butterfly();
	test_mapping();
	return verdict("reduce_shuffle");
}
