/*
 * stride_loop: the cpu engine runs a grid-stride loop whose body depends
 * on its thread only through the index as one loop over virtual blocks,
 * a turn at a time (docs/cpu-engine.md, "Grid-stride loops, swept").  Each
 * element must still be visited exactly as often as on a GPU: once in a
 * 1D launch, whatever the grid, the block (warps cut short included) and
 * n (past the grid, short of it, zero, negative); once per y thread or y
 * block when the launch is 2D, where the engine falls back to lockstep.
 * Loops that carry values from one turn to the next (of 32 and 64 bits)
 * and go on after the loop with warp shuffles, shared memory and barriers
 * (a reduction: the engine sweeps the loop, then runs the rest in calls
 * of a warp, or in lockstep when blocks are not whole warps, from where
 * the loop left each thread), that branch inside, compare unsigned, or
 * read their thread's own index (which stay in lockstep) must keep their
 * meaning too, bit for bit, and a fault in the loop is an illegal
 * address.
 */
#include <cstdint>
#include "check.h"

/* The loop the engine runs turn by turn. */
__global__ void axpy(float a, const float *x, float *y, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

/* The same with 64-bit indices, as nvcc writes them two ways: the index
 * made in 64 bits, or made in 32 and widened. */
__global__ void axpy64(float a, const float *x, float *y, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

__global__ void axpy64_from32(float a, const float *x, float *y, size_t n)
{
	size_t stride = (size_t)blockDim.x * gridDim.x;

	for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
		y[i] = a * x[i] + y[i];
}

/* A signed 64-bit bound (nvcc unrolls this one by four, with the trip
 * count worked out first). */
__global__ void axpy64_signed(float a, const float *x, float *y, long long n)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
	     i += (long long)blockDim.x * gridDim.x)
		y[i] = a * x[i] + y[i];
}

/* So does this one: each visit of an element counts. */
__global__ void visits(unsigned *hits, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&hits[i], 1u);
}

/* The body reads the grid's and the block's sizes, which a sweep's virtual
 * blocks see unchanged. */
__global__ void sizes(unsigned *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		out[i] = (unsigned)i ^ (gridDim.x << 20 | blockDim.x << 10);
}

/* The body reads its thread's block and thread index. */
__global__ void owner(unsigned *out, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		out[i] = blockIdx.x << 16 | threadIdx.x;
}

/* A sum carried from one turn to the next, and used after the loop. */
__global__ void running(const unsigned *in, unsigned *out, unsigned *total, int n)
{
	unsigned s = 0;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		s += in[i];
		out[i] = s;
	}
	atomicAdd(total, s);
}

#define WARPS_MAX 32

/* The sum of in over the block's threads' turns, as the bench's reduction
 * sums: each thread its turns, in order, then a shuffle tree in each warp,
 * the warps' sums through shared memory, and a tree over them. */
__device__ float warp_sum(float v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__global__ void block_sum(const float *in, float *out, int n)
{
	__shared__ float warps[WARPS_MAX];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	float sum = 0;

	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		sum += in[i];
	sum = warp_sum(sum);
	if (lane == 0)
		warps[warp] = sum;
	__syncthreads();
	if (warp == 0) {
		sum = lane < (int)(blockDim.x + 31) / 32 ? warps[lane] : 0;
		sum = warp_sum(sum);
		if (lane == 0)
			out[blockIdx.y * gridDim.x + blockIdx.x] = sum;
	}
}

/* 64-bit sums over a 64-bit index, carried out of the loop into 64-bit
 * shuffles (two 32-bit ones each in PTX), shared memory and a barrier:
 * exact, the values being whole numbers, in any order. */
__device__ double warp_dsum(double v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__device__ long long warp_lsum(long long v)
{
	for (int off = 16; off > 0; off >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, off);
	return v;
}

__global__ void wide_sums(const double *in, double *out, long long *count, size_t n)
{
	__shared__ double ws[WARPS_MAX];
	__shared__ long long wc[WARPS_MAX];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = (blockDim.x + 31) / 32;
	double s = 0;
	long long c = 0;

	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)blockDim.x * gridDim.x) {
		s += in[i];
		c += (long long)i;
	}
	s = warp_dsum(s);
	c = warp_lsum(c);
	if (lane == 0) {
		ws[warp] = s;
		wc[warp] = c;
	}
	__syncthreads();
	if (warp == 0) {
		s = warp_dsum(lane < nw ? ws[lane] : 0);
		c = warp_lsum(lane < nw ? wc[lane] : 0);
		if (lane == 0) {
			out[blockIdx.x] = s;
			count[blockIdx.x] = c;
		}
	}
}

/* Four values of different types carried over the turns, each thread's
 * written out after the loop. */
__global__ void stats(const float *in, float *lo, float *hi, unsigned *count,
		      unsigned char *neg, int n)
{
	float a = 1e30f, z = -1e30f;
	unsigned c = 0;
	bool seen = false;
	int t = blockIdx.x * blockDim.x + threadIdx.x;

	for (int i = t; i < n; i += gridDim.x * blockDim.x) {
		float v = in[i];

		a = fminf(a, v);
		z = fmaxf(z, v);
		c += v > 0.5f;
		seen |= v < -0.9f;
	}
	__syncthreads();
	lo[t] = a;
	hi[t] = z;
	count[t] = c;
	neg[t] = seen;
}

/* An unsigned bound and index: another comparison. */
__global__ void scale_unsigned(float *y, unsigned n)
{
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		y[i] *= 3.0f;
}

/* Branches in the body, and a step nvcc makes from a 64-bit copy of i. */
__global__ void fold(const float *x, float *y, int n)
{
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		float v = x[i];

		if (v > 0.25f)
			y[i] = v * 2.0f;
		else if (v < -0.25f)
			y[i] = -v;
		else
			y[i] = 0.5f;
	}
}

static float value(int i)
{
	return (float)((i * 7919) % 2001 - 1000) / 1000.0f;
}

/* Which of the axpy kernels run_axpy launches. */
enum axpy_kind { AXPY32, AXPY64, AXPY64_FROM32, AXPY64_SIGNED };

static void run_axpy_kind(enum axpy_kind kind, unsigned blocks, unsigned threads, int n)
{
	int m = n > 0 ? n : 1;
	size_t bytes = (size_t)m * 4;
	float *x, *y, *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
	float *want = (float *)malloc(bytes);
	char what[96];

	for (int i = 0; i < m; i++) {
		hx[i] = value(i);
		hy[i] = value(i + 17);
		want[i] = i < n ? fmaf(2.5f, hx[i], hy[i]) : hy[i];
	}
	CK(cudaMalloc(&x, bytes));
	CK(cudaMalloc(&y, bytes));
	CK(cudaMemcpy(x, hx, bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(y, hy, bytes, cudaMemcpyHostToDevice));
	switch (kind) {
	case AXPY32:
		axpy<<<blocks, threads>>>(2.5f, x, y, n);
		break;
	case AXPY64:
		axpy64<<<blocks, threads>>>(2.5f, x, y, n > 0 ? (size_t)n : 0);
		break;
	case AXPY64_FROM32:
		axpy64_from32<<<blocks, threads>>>(2.5f, x, y, n > 0 ? (size_t)n : 0);
		break;
	case AXPY64_SIGNED:
		axpy64_signed<<<blocks, threads>>>(2.5f, x, y, n);
		break;
	}
	CK(cudaGetLastError());
	CK(cudaMemcpy(hy, y, bytes, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "axpy (kind %d) in %u blocks of %u threads over %d", kind,
		 blocks, threads, n);
	check_array(what, hy, want, m);
	CK(cudaFree(x));
	CK(cudaFree(y));
	free(hx), free(hy), free(want);
}

static void run_axpy(unsigned blocks, unsigned threads, int n)
{
	run_axpy_kind(AXPY32, blocks, threads, n);
}

static void run_visits(dim3 grid, dim3 block, int n)
{
	unsigned *hits, *h = (unsigned *)malloc((size_t)n * 4), *want = (unsigned *)malloc((size_t)n * 4);
	char what[96];

	for (int i = 0; i < n; i++)
		want[i] = grid.y * grid.z * block.y * block.z;
	CK(cudaMalloc(&hits, (size_t)n * 4));
	CK(cudaMemset(hits, 0, (size_t)n * 4));
	visits<<<grid, block>>>(hits, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, hits, (size_t)n * 4, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "visits by grid (%u,%u,%u) of blocks (%u,%u,%u) over %d",
		 grid.x, grid.y, grid.z, block.x, block.y, block.z, n);
	check_array(what, h, want, n);
	CK(cudaFree(hits));
	free(h), free(want);
}

static void run_sizes(unsigned blocks, unsigned threads, int n)
{
	unsigned *out, *h = (unsigned *)malloc((size_t)n * 4), *want = (unsigned *)malloc((size_t)n * 4);

	for (int i = 0; i < n; i++)
		want[i] = (unsigned)i ^ (blocks << 20 | threads << 10);
	CK(cudaMalloc(&out, (size_t)n * 4));
	sizes<<<blocks, threads>>>(out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, (size_t)n * 4, cudaMemcpyDeviceToHost));
	check_array("sizes: the grid's and the block's, every turn", h, want, n);
	CK(cudaFree(out));
	free(h), free(want);
}

static void run_owner(unsigned blocks, unsigned threads, int n)
{
	unsigned *out, *h = (unsigned *)malloc((size_t)n * 4), *want = (unsigned *)malloc((size_t)n * 4);
	unsigned width = blocks * threads;

	for (int i = 0; i < n; i++)
		want[i] = (unsigned)i % width / threads << 16 | (unsigned)i % width % threads;
	CK(cudaMalloc(&out, (size_t)n * 4));
	owner<<<blocks, threads>>>(out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, (size_t)n * 4, cudaMemcpyDeviceToHost));
	check_array("owner: each element names its thread", h, want, n);
	CK(cudaFree(out));
	free(h), free(want);
}

static void run_running(unsigned blocks, unsigned threads, int n)
{
	unsigned *in, *out, *total, htotal, sum = 0, width = blocks * threads;
	unsigned *hin = (unsigned *)malloc((size_t)n * 4), *h = (unsigned *)malloc((size_t)n * 4);
	unsigned *want = (unsigned *)malloc((size_t)n * 4);

	for (int i = 0; i < n; i++) {
		hin[i] = (unsigned)i * 2654435761u >> 20;
		want[i] = hin[i] + (i >= (int)width ? want[i - width] : 0);
		sum += hin[i];
	}
	CK(cudaMalloc(&in, (size_t)n * 4));
	CK(cudaMalloc(&out, (size_t)n * 4));
	CK(cudaMalloc(&total, 4));
	CK(cudaMemset(total, 0, 4));
	CK(cudaMemcpy(in, hin, (size_t)n * 4, cudaMemcpyHostToDevice));
	running<<<blocks, threads>>>(in, out, total, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, (size_t)n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(&htotal, total, 4, cudaMemcpyDeviceToHost));
	check_array("running: each thread's sum over its turns", h, want, n);
	check(htotal == sum, "running: the total %u, want %u", htotal, sum);
	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(total));
	free(hin), free(h), free(want);
}

static void run_unsigned_and_fold(unsigned blocks, unsigned threads, int n)
{
	float *x, *y, *hx = (float *)malloc((size_t)n * 4), *h = (float *)malloc((size_t)n * 4);
	float *want = (float *)malloc((size_t)n * 4);

	for (int i = 0; i < n; i++) {
		float v = value(i);

		hx[i] = v;
		want[i] = 3.0f * (v > 0.25f ? v * 2.0f : v < -0.25f ? -v : 0.5f);
	}
	CK(cudaMalloc(&x, (size_t)n * 4));
	CK(cudaMalloc(&y, (size_t)n * 4));
	CK(cudaMemcpy(x, hx, (size_t)n * 4, cudaMemcpyHostToDevice));
	fold<<<blocks, threads>>>(x, y, n);
	scale_unsigned<<<blocks, threads>>>(y, (unsigned)n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, y, (size_t)n * 4, cudaMemcpyDeviceToHost));
	check_array("fold, then scale with an unsigned bound", h, want, n);
	CK(cudaFree(x));
	CK(cudaFree(y));
	free(hx), free(h), free(want);
}

/* The block sums as a GPU computes them, in the same order. */
static float host_warp_sum(float *v)
{
	for (int off = 16; off > 0; off >>= 1)
		for (int l = 0; l < 32; l++)
			v[l] += l + off < 32 ? v[l + off] : v[l];
	return v[0];
}

static void run_block_sum(dim3 grid, unsigned threads, int n)
{
	int m = n > 0 ? n : 1, nw = (threads + 31) / 32, nout = grid.x * grid.y;
	float *in, *out, *hin = (float *)malloc((size_t)m * 4), *h = (float *)malloc(nout * 4);
	float *want = (float *)malloc(nout * 4);
	char what[96];

	for (int i = 0; i < m; i++)
		hin[i] = value(i * 3 + 1);
	for (unsigned bx = 0; bx < grid.x; bx++) {
		float warps[WARPS_MAX] = { 0 };

		for (int w = 0; w < nw; w++) {
			float v[32];

			for (int l = 0; l < 32; l++) {
				unsigned t = w * 32 + l;

				v[l] = 0;
				for (long long i = (long long)bx * threads + t; t < threads && i < n;
				     i += (long long)grid.x * threads)
					v[l] += hin[i];
			}
			warps[w] = host_warp_sum(v);
		}
		for (unsigned by = 0; by < grid.y; by++) {
			float v[32];

			for (int l = 0; l < 32; l++)
				v[l] = l < nw ? warps[l] : 0;
			want[by * grid.x + bx] = host_warp_sum(v);
		}
	}
	CK(cudaMalloc(&in, (size_t)m * 4));
	CK(cudaMalloc(&out, nout * 4));
	CK(cudaMemcpy(in, hin, (size_t)m * 4, cudaMemcpyHostToDevice));
	block_sum<<<grid, threads>>>(in, out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, nout * 4, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "block sums of grid (%u,%u) of %u threads over %d", grid.x,
		 grid.y, threads, n);
	check_array(what, h, want, nout);
	CK(cudaFree(in));
	CK(cudaFree(out));
	free(hin), free(h), free(want);
}

static void run_stats(unsigned blocks, unsigned threads, int n)
{
	int nt = blocks * threads;
	float *in, *lo, *hi, *hin = (float *)malloc((size_t)n * 4);
	float *hlo = (float *)malloc(nt * 4), *hhi = (float *)malloc(nt * 4);
	float *wlo = (float *)malloc(nt * 4), *whi = (float *)malloc(nt * 4);
	unsigned *count, *hcount = (unsigned *)malloc(nt * 4), *wcount = (unsigned *)malloc(nt * 4);
	unsigned char *neg, *hneg = (unsigned char *)malloc(nt), *wneg = (unsigned char *)malloc(nt);

	for (int i = 0; i < n; i++)
		hin[i] = value(i * 5 + 2);
	for (int t = 0; t < nt; t++) {
		wlo[t] = 1e30f, whi[t] = -1e30f, wcount[t] = 0, wneg[t] = 0;
		for (int i = t; i < n; i += nt) {
			wlo[t] = fminf(wlo[t], hin[i]);
			whi[t] = fmaxf(whi[t], hin[i]);
			wcount[t] += hin[i] > 0.5f;
			wneg[t] |= hin[i] < -0.9f;
		}
	}
	CK(cudaMalloc(&in, (size_t)n * 4));
	CK(cudaMalloc(&lo, nt * 4));
	CK(cudaMalloc(&hi, nt * 4));
	CK(cudaMalloc(&count, nt * 4));
	CK(cudaMalloc(&neg, nt));
	CK(cudaMemcpy(in, hin, (size_t)n * 4, cudaMemcpyHostToDevice));
	stats<<<blocks, threads>>>(in, lo, hi, count, neg, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hlo, lo, nt * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hhi, hi, nt * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hcount, count, nt * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hneg, neg, nt, cudaMemcpyDeviceToHost));
	check_array("stats: each thread's minimum", hlo, wlo, nt);
	check_array("stats: each thread's maximum", hhi, whi, nt);
	check_array("stats: each thread's count", hcount, wcount, nt);
	check_array("stats: each thread's flag", hneg, wneg, nt);
	CK(cudaFree(in));
	CK(cudaFree(lo));
	CK(cudaFree(hi));
	CK(cudaFree(count));
	CK(cudaFree(neg));
	free(hin), free(hlo), free(hhi), free(wlo), free(whi), free(hcount), free(wcount);
	free(hneg), free(wneg);
}

static void run_wide_sums(unsigned blocks, unsigned threads, size_t n)
{
	size_t m = n ? n : 1;
	double *in, *out, *hin = (double *)malloc(m * 8), *h = (double *)malloc(blocks * 8);
	double *want = (double *)calloc(blocks, 8);
	long long *count, *hc = (long long *)malloc(blocks * 8), *wc = (long long *)calloc(blocks, 8);
	char what[96];

	for (size_t i = 0; i < n; i++) {
		hin[i] = (double)(i % 1000);
		want[i / threads % blocks] += hin[i];
		wc[i / threads % blocks] += (long long)i;
	}
	CK(cudaMalloc(&in, m * 8));
	CK(cudaMalloc(&out, blocks * 8));
	CK(cudaMalloc(&count, blocks * 8));
	CK(cudaMemcpy(in, hin, n * 8, cudaMemcpyHostToDevice));
	wide_sums<<<blocks, threads>>>(in, out, count, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, blocks * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hc, count, blocks * 8, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "wide sums of %u blocks of %u threads over %zu", blocks,
		 threads, n);
	check_array(what, h, want, blocks);
	check_array(what, hc, wc, blocks);
	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(count));
	free(hin), free(h), free(want), free(hc), free(wc);
}

/* A loop that writes through a pointer it was not given faults. */
static void run_fault(void)
{
	float *x;
	int n = 4096;

	CK(cudaMalloc(&x, (size_t)n * 4));
	CK(cudaMemset(x, 0, (size_t)n * 4));
	axpy<<<8, 64>>>(1.0f, x, (float *)(uintptr_t)64, n);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorIllegalAddress, "a store to address 64 in the loop: %s",
	      cudaGetErrorName(e));
}

int main(void)
{
	/* whole turns and a last turn cut short, n short of the grid, warps
	 * cut short, a single thread, nothing to do */
	run_axpy(64, 256, 64 * 256 * 5 + 77);
	run_axpy(3, 96, 1000);
	run_axpy(1000, 32, 500);
	run_axpy(13, 33, 13 * 33 * 4);
	run_axpy(1, 1, 100);
	run_axpy(7, 64, 0);
	run_axpy(7, 64, -5);
	/* 64-bit indices and bounds */
	for (int kind = AXPY64; kind <= AXPY64_SIGNED; kind++) {
		run_axpy_kind((enum axpy_kind)kind, 64, 256, 64 * 256 * 5 + 77);
		run_axpy_kind((enum axpy_kind)kind, 1000, 32, 500);
		run_axpy_kind((enum axpy_kind)kind, 13, 33, 13 * 33 * 4);
		run_axpy_kind((enum axpy_kind)kind, 7, 64, 0);
	}
	run_axpy_kind(AXPY64_SIGNED, 7, 64, -5);
	/* 1D: once each; 2D blocks or grids (lockstep): once per y and z */
	run_visits(dim3(40), dim3(128), 40 * 128 * 3 + 11);
	run_visits(dim3(5), dim3(32, 2), 5000);
	run_visits(dim3(4, 3), dim3(64), 3000);
	run_visits(dim3(2, 1, 2), dim3(16, 1, 3), 777);
	run_sizes(9, 96, 9 * 96 * 7 + 3);
	run_owner(10, 64, 10 * 64 * 3 + 5);
	run_running(6, 96, 6 * 96 * 4 + 50);
	/* turns 1 to 4 share a loop, then 5 and 6, then the cut 7 alone */
	run_running(6, 96, 6 * 96 * 7 + 50);
	/* blocks of whole warps go on after the loop in calls of a warp,
	 * others in lockstep */
	run_running(5, 40, 5 * 40 * 3 + 7);
	run_unsigned_and_fold(9, 128, 9 * 128 * 2 + 3);
	/* sums carried out of the loop into shuffles, shared memory and a
	 * barrier: many turns, a last turn cut short, n short of the grid,
	 * nothing to sum, a 2D grid (lockstep); whole warps, as the shuffles
	 * of all 32 lanes need */
	run_block_sum(dim3(64), 256, 64 * 256 * 9 + 123);
	run_block_sum(dim3(300), 128, 20000);
	run_block_sum(dim3(40), 96, 40 * 96 * 3);
	run_block_sum(dim3(8), 256, 0);
	run_block_sum(dim3(12, 2), 64, 12 * 64 * 4 + 1);
	run_wide_sums(50, 128, 50 * 128 * 6 + 33);
	run_wide_sums(9, 96, 500);
	run_wide_sums(4, 64, 0);
	run_stats(30, 64, 30 * 64 * 5 + 17);
	run_stats(7, 256, 1000);
	run_fault();
	return verdict("stride_loop");
}
