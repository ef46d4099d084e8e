/*
 * block_prefetch: a tiled kernel with a barrier and no branches, run by
 * the cpu engine's fast path in rounds, tells the block function where
 * each thread row's loads and stores go so that the next block's lines
 * are asked for (docs/cpu-engine.md, "Prefetching the next block").
 * Whatever that machinery sees, results must not change: here ten load
 * sites and nine store sites (more than its slots of each kind), blocks
 * of 8 x 40 threads (more thread rows than it keeps a history for), a 3D
 * block with partial blocks at the edge, and kernels in turn that leave
 * each other's history in the worker's memory; and the same tiled kernel
 * with bounds checks around its loads and stores (a body with branches,
 * which records nothing), over sizes that leave partial blocks.
 */
#include "check.h"

#define TX 8
#define TY 40
#define LOADS 10
#define STORES 9

/* Each thread sums ten rows of its column, weighted; after the barrier it
 * writes nine planes from the sum of the thread row below it (wrapping). */
__global__ void spread(const float *in, float *out, int w, int h)
{
	__shared__ float tile[TY][TX + 1];
	int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
	float s = 0;

	if (x < w && y < h) {
#pragma unroll
		for (int k = 0; k < LOADS; k++)
			s += in[(size_t)((y + k) % h) * w + x] * (float)(k + 1);
	}
	tile[threadIdx.y][threadIdx.x] = s;
	__syncthreads();
	if (x < w && y < h) {
		float v = tile[(threadIdx.y + 1) % TY][threadIdx.x];

#pragma unroll
		for (int k = 0; k < STORES; k++)
			out[((size_t)k * h + y) * w + x] = v + (float)k;
	}
}

/* spread without bounds checks, for sizes whole blocks cover: no branch
 * in the thread body. */
__global__ void spread_whole(const float *in, float *out, int w, int h)
{
	__shared__ float tile[TY][TX + 1];
	int x = blockIdx.x * TX + threadIdx.x, y = blockIdx.y * TY + threadIdx.y;
	float s = 0, v;

#pragma unroll
	for (int k = 0; k < LOADS; k++)
		s += in[(size_t)((y + k) % h) * w + x] * (float)(k + 1);
	tile[threadIdx.y][threadIdx.x] = s;
	__syncthreads();
	v = tile[(threadIdx.y + 1) % TY][threadIdx.x];
#pragma unroll
	for (int k = 0; k < STORES; k++)
		out[((size_t)k * h + y) * w + x] = v + (float)k;
}

/* A 3D block of 4 x 4 x 4 threads: each copies its element, doubled by
 * the neighbour that a barrier lets it read. */
__global__ void cube(const float *in, float *out, int n)
{
	__shared__ float t[4][4][4];
	int x = blockIdx.x * 4 + threadIdx.x;
	int i = ((x * 4) + threadIdx.y) * 4 + threadIdx.z;

	t[threadIdx.z][threadIdx.y][threadIdx.x] = x < n ? in[i] : 0;
	__syncthreads();
	if (x < n)
		out[i] = 2 * t[threadIdx.z][threadIdx.y][(threadIdx.x + 1) % 4];
}

static void run_spread(int w, int h, int whole)
{
	size_t n = (size_t)w * h;
	float *hin = (float *)malloc(n * 4), *hout = (float *)malloc(n * STORES * 4);
	float *want = (float *)malloc(n * STORES * 4), *sum = (float *)malloc(n * 4);
	float *in, *out;
	char what[80];

	for (size_t i = 0; i < n; i++)
		hin[i] = (float)(i % 7);
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			float s = 0;

			for (int k = 0; k < LOADS; k++)
				s += hin[(size_t)((y + k) % h) * w + x] * (float)(k + 1);
			sum[(size_t)y * w + x] = s;
		}
	for (int y = 0; y < h; y++)
		for (int x = 0; x < w; x++) {
			/* the thread row below within the block, wrapping in the
			 * block; past the data it summed nothing */
			int by = y / TY * TY, below = by + (y - by + 1) % TY;
			float v = below < h ? sum[(size_t)below * w + x] : 0;

			for (int k = 0; k < STORES; k++)
				want[((size_t)k * h + y) * w + x] = v + (float)k;
		}
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * STORES * 4));
	CK(cudaMemcpy(in, hin, n * 4, cudaMemcpyHostToDevice));
	if (whole)
		spread_whole<<<dim3(w / TX, h / TY), dim3(TX, TY)>>>(in, out, w, h);
	else
		spread<<<dim3((w + TX - 1) / TX, (h + TY - 1) / TY), dim3(TX, TY)>>>(in, out, w, h);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * STORES * 4, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "spread%s over %d x %d", whole ? "_whole" : "", w, h);
	check_array(what, hout, want, n * STORES);
	CK(cudaFree(in));
	CK(cudaFree(out));
	free(hin), free(hout), free(want), free(sum);
}

static void run_cube(int n)
{
	size_t total = (size_t)n * 16;
	float *hin = (float *)malloc(total * 4), *hout = (float *)malloc(total * 4);
	float *want = (float *)malloc(total * 4);
	float *in, *out;

	for (size_t i = 0; i < total; i++)
		hin[i] = (float)(i % 13);
	for (int x = 0; x < n; x++)
		for (int j = 0; j < 16; j++) {
			int b = x / 4 * 4, next = b + (x - b + 1) % 4;

			want[(size_t)x * 16 + j] = next < n ? 2 * hin[(size_t)next * 16 + j] : 0;
		}
	CK(cudaMalloc(&in, total * 4));
	CK(cudaMalloc(&out, total * 4));
	CK(cudaMemcpy(in, hin, total * 4, cudaMemcpyHostToDevice));
	cube<<<(n + 3) / 4, dim3(4, 4, 4)>>>(in, out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, total * 4, cudaMemcpyDeviceToHost));
	check_array("cube", hout, want, total);
	CK(cudaFree(in));
	CK(cudaFree(out));
	free(hin), free(hout), free(want);
}

int main(void)
{
	/* whole blocks without and with bounds checks; partial blocks on
	 * both edges; the kernels in turn */
	run_spread(64, 160, 1);
	run_spread(64, 160, 0);
	run_cube(50);
	run_spread(61, 97, 0);
	run_spread(200, 120, 1);
	run_cube(37);
	run_spread(203, 45, 0);
	return verdict("block_prefetch");
}
