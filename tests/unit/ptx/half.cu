#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;
__global__ void hk(const __half *a, __half2 *b, __nv_bfloat16 *c, float *f, int n)
{
	cg::thread_block tb = cg::this_thread_block();
	cg::thread_block_tile<32> w = cg::tiled_partition<32>(tb);
	int i = tb.thread_rank();
	__half h = __hadd(a[i], __float2half(1.5f));
	b[i] = __hmul2(b[i], __halves2half2(h, h));
	c[i] = __float2bfloat16(__bfloat162float(c[i]) * 2.f);
	float v = w.shfl_down(f[i], 1);
	tb.sync();
	f[i] = cg::reduce(w, v, cg::plus<float>()) + __expf(v) + sinf(v) + sqrtf(v) + __fdividef(v, 3.f);
	f[i + 1] = (float)pow((double)v, 2.5) + (float)n;
}
__global__ void tk(cudaTextureObject_t t, float *o)
{
	float2 c = make_float2(threadIdx.x, threadIdx.y);
	float4 v = tex2D<float4>(t, c.x, c.y);
	o[threadIdx.x] = v.x + v.y + v.z + v.w + tex1Dfetch<float>(t, threadIdx.x);
}
