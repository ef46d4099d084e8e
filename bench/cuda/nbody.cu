/*
 * nbody.cu - the gravitational acceleration of each of 8192 bodies from all
 * the others (softened, so a body's own term is zero): the all-pairs kernel
 * of GPU Gems 3, chapter 31.  Positions and masses travel as float4 and are
 * staged a block at a time in shared memory; rsqrtf gives 1/r.
 * Compute-bound: 20 flops per interaction by the usual count.
 */
#include "cuda_bench.h"

#define THREADS 256
#define SOFT2 0.01f

__device__ float3 interact(float4 bi, float4 bj, float3 acc)
{
	float dx = bj.x - bi.x, dy = bj.y - bi.y, dz = bj.z - bi.z;
	float r2 = dx * dx + dy * dy + dz * dz + SOFT2;
	float inv = rsqrtf(r2);
	float s = bj.w * inv * inv * inv;

	acc.x += dx * s;
	acc.y += dy * s;
	acc.z += dz * s;
	return acc;
}

/* Bodies past n load as zero mass: they add nothing. */
__global__ void nbody(const float4 *pos, float *acc, int n)
{
	__shared__ float4 tile[THREADS];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 bi = i < n ? pos[i] : make_float4(0, 0, 0, 0);
	float3 a = make_float3(0, 0, 0);
	int t, j;

	for (t = 0; t < n; t += THREADS) {
		j = t + threadIdx.x;
		tile[threadIdx.x] = j < n ? pos[j] : make_float4(0, 0, 0, 0);
		__syncthreads();
		for (j = 0; j < THREADS; j++)
			a = interact(bi, tile[j], a);
		__syncthreads();
	}
	if (i < n) {
		acc[3 * i] = a.x;
		acc[3 * i + 1] = a.y;
		acc[3 * i + 2] = a.z;
	}
}

struct ctx {
	const float4 *pos;
	float *acc;
	int n;
};

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;

	nbody<<<(c->n + THREADS - 1) / THREADS, THREADS>>>(c->pos, c->acc, c->n);
}

static void measure(const struct bench_args *a, const float *hpos, float *hacc, int n)
{
	struct ctx c;

	c.pos = (const float4 *)bench_to_device(hpos, n * sizeof(float4));
	c.acc = (float *)bench_device(3 * n * sizeof(float));
	c.n = n;
	bench_warm_up(a, run, &c, BENCH_F32, hacc, c.acc, 3 * n);
	bench_time(a, "nbody", run, &c, 0, 20.0 * n * n);
	CK(cudaFree((void *)c.pos));
	CK(cudaFree(c.acc));
}

int main(int argc, char **argv)
{
	struct bench_args a;
	float *hpos, *hacc;
	int n, i;

	bench_parse(&a, argc, argv, 1);
	n = a.small ? 300 : 8192;
	hpos = (float *)bench_alloc(4 * n * sizeof(float));
	hacc = (float *)bench_alloc(3 * n * sizeof(float));
	bench_fill_f32(hpos, 4 * n, 11, -1, 1);
	for (i = 0; i < n; i++)
		hpos[4 * i + 3] = 0.5f + 0.5f * hpos[4 * i + 3];
	if (!a.host_only)
		measure(&a, hpos, hacc, n);
	free(hpos);
	free(hacc);
	return 0;
}
