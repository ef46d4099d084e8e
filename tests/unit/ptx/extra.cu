#include <cstdio>
#include <mma.h>
#include <cuda_pipeline.h>
using namespace nvcuda;

__device__ int dense_switch(int k, int v)
{
	switch (k) {
	case 0: return v + 3;
	case 1: return v * 7;
	case 2: return v - 11;
	case 3: return v ^ 0x55;
	case 4: return v << 3;
	case 5: return v / 9;
	case 6: return v % 13;
	case 7: return ~v;
	case 8: return v * v;
	default: return -1;
	}
}

__global__ void sw(int *o, const int *k)
{
	int i = threadIdx.x;
	o[i] = dense_switch(k[i], i);
	int *m = (int *)malloc(16 * sizeof(int));
	if (m) {
		m[i & 15] = i;
		o[i] += m[i & 15];
		free(m);
	}
}

__global__ void wmma_k(const half *a, const half *b, float *c)
{
	wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
	wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
	wmma::fill_fragment(fc, 0.0f);
	wmma::load_matrix_sync(fa, a, 16);
	wmma::load_matrix_sync(fb, b, 16);
	wmma::mma_sync(fc, fa, fb, fc);
	wmma::store_matrix_sync(c, fc, 16, wmma::mem_row_major);
}

__global__ void async_copy(const float4 *g, float4 *o)
{
	__shared__ float4 s[128];
	__pipeline_memcpy_async(&s[threadIdx.x], &g[threadIdx.x], sizeof(float4));
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	o[threadIdx.x] = s[127 - threadIdx.x];
}

__global__ void asm_regs(unsigned *o)
{
	unsigned r;
	asm("{\n\t.reg .u32 t1, acc<2>;\n\t"
	    "mov.u32 t1, %1;\n\t"
	    "add.u32 acc1, t1, 0x10U;\n\t"
	    "mov.u32 %0, acc1;\n\t}"
	    : "=r"(r) : "r"(threadIdx.x));
	unsigned lane;
	asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
	o[threadIdx.x] = r + lane + __popc(r) + __brev(lane) + __clz(r);
	printf("%d %f %s %c %p\n", (int)r, 1.5, "x", 'c', o);
}
