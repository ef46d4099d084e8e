/*
 * guarded_tiles: bounds-checked loads and stores around a barrier, as
 * nvcc writes them for tiled kernels (a branch over a few instructions,
 * which the cpu engine turns into guards, ifconv.c).  The transposes read
 * a column of a shared tile behind the bounds check (a load the fast path
 * makes in every thread, emit_mem.c); keep_zero reads such a value where
 * the check failed too (it must stay 0 there); carry loads a value before
 * the barrier under a check and stores it after the barrier under the
 * same check (live across the barrier); late_write has a thread whose
 * check fails keep an older value; odd_lanes, in lockstep (a shuffle),
 * guards a load and a product after the barrier with a predicate made
 * before it, which is live across the barrier only as a guard.  Sizes
 * are not multiples of the tiles.
 */
#include "check.h"

/* A tile of T x T through blocks of T x R threads, each moving T / R
 * rows; the padding column keeps a column read from hitting one bank. */
template <int T, int R>
__global__ void transpose(const float *in, float *out, int w, int h)
{
	__shared__ float tile[T][T + 1];
	int col = blockIdx.x * T + threadIdx.x, row = blockIdx.y * T + threadIdx.y;

	for (int k = 0; k < T; k += R)
		if (col < w && row + k < h)
			tile[threadIdx.y + k][threadIdx.x] = in[(size_t)(row + k) * w + col];
	__syncthreads();
	col = blockIdx.y * T + threadIdx.x;
	row = blockIdx.x * T + threadIdx.y;
	for (int k = 0; k < T; k += R)
		if (col < h && row + k < w)
			out[(size_t)(row + k) * h + col] = tile[threadIdx.x][threadIdx.y + k];
}

/* out[i] is the tile's transposed element where the check holds, else 0. */
__global__ void keep_zero(const float *in, float *out, int n, int limit)
{
	__shared__ float tile[16][17];
	int i = blockIdx.x * 256 + threadIdx.y * 16 + threadIdx.x;
	float v = 0;

	tile[threadIdx.y][threadIdx.x] = i < n ? in[i] : -1;
	__syncthreads();
	if ((int)threadIdx.x < limit)
		v = tile[threadIdx.x][threadIdx.y];
	if (i < n)
		out[i] = v;
}

/* A value loaded under a check before the barrier, stored under it after. */
__global__ void carry(const float *in, float *out, float *mirror, int n)
{
	__shared__ float s[256];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v;

	if (i < n)
		v = in[i];
	s[threadIdx.x] = threadIdx.x;
	__syncthreads();
	if (i < n) {
		out[i] = v;
		mirror[i] = s[255 - threadIdx.x];
	}
}

/* Threads whose second check fails keep the first value. */
__global__ void late_write(const int *in, int *out, int n)
{
	__shared__ int s[64][65];
	int i = blockIdx.x * 64 + threadIdx.x;
	int v = -7;

	s[threadIdx.x][0] = i < n ? in[i] : 0;
	__syncthreads();
	if (threadIdx.x % 3)
		v = s[63 - threadIdx.x][0];
	if (i < n)
		out[i] = v;
}

/* Odd values are replaced by three times another thread's, and each is
 * summed with its neighbour's in the warp. */
__global__ void odd_lanes(const int *in, int *out, int n)
{
	__shared__ int s[256];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	int v = i < n ? in[i] : 0;
	bool odd = (v & 1) != 0;
	int w;

	s[t] = v;
	__syncthreads();
	w = s[255 - t];
	if (odd)
		w = s[(t + 7) % 256] * 3;
	w += __shfl_down_sync(0xffffffffu, w, 1);
	if (i < n)
		out[i] = w;
}

template <int T, int R>
static void run_transpose(int w, int h)
{
	size_t n = (size_t)w * h, i;
	float *hin = (float *)malloc(n * 4), *hout = (float *)malloc(n * 4);
	float *want = (float *)malloc(n * 4), *in, *out;
	char what[64];

	for (i = 0; i < n; i++)
		hin[i] = (float)(i * 7 % 1000) + 0.5f;
	for (i = 0; i < n; i++)
		want[(i % w) * h + i / w] = hin[i];
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMemcpy(in, hin, n * 4, cudaMemcpyHostToDevice));
	transpose<T, R><<<dim3((w + T - 1) / T, (h + T - 1) / T), dim3(T, R)>>>(in, out, w, h);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * 4, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "transpose of %d x %d, tiles of %d", w, h, T);
	check_array(what, hout, want, n);
	CK(cudaFree(in));
	CK(cudaFree(out));
	free(hin), free(hout), free(want);
}

static void run_keep_zero(int limit)
{
	const int n = 1000, blocks = 4;
	float hin[1024], hout[1024], want[1024], *in, *out;
	char what[64];
	int i;

	for (i = 0; i < n; i++)
		hin[i] = (float)i;
	for (i = 0; i < n; i++) {
		int b = i / 256, t = i % 256, tx = t % 16, ty = t / 16, src = b * 256 + tx * 16 + ty;

		want[i] = tx < limit ? (src < n ? hin[src] : -1) : 0;
	}
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMemcpy(in, hin, n * 4, cudaMemcpyHostToDevice));
	keep_zero<<<blocks, dim3(16, 16)>>>(in, out, n, limit);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * 4, cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "guarded tile column, limit %d", limit);
	check_array(what, hout, want, n);
	CK(cudaFree(in));
	CK(cudaFree(out));
}

static void run_carry(void)
{
	const int n = 700;
	float hin[768], hout[768], hmirror[768], want[768], wmirror[768], *in, *out, *mirror;
	int i;

	for (i = 0; i < n; i++) {
		hin[i] = (float)(3 * i);
		want[i] = hin[i];
		wmirror[i] = (float)(255 - i % 256);
	}
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMalloc(&mirror, n * 4));
	CK(cudaMemcpy(in, hin, n * 4, cudaMemcpyHostToDevice));
	carry<<<3, 256>>>(in, out, mirror, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hmirror, mirror, n * 4, cudaMemcpyDeviceToHost));
	check_array("a guarded value across a barrier", hout, want, n);
	check_array("shared memory after the barrier", hmirror, wmirror, n);
	CK(cudaFree(in));
	CK(cudaFree(out));
	CK(cudaFree(mirror));
}

static void run_late_write(void)
{
	const int n = 150;
	int hin[192], hout[192], want[192], *in, *out, i;

	for (i = 0; i < n; i++)
		hin[i] = 10 * i + 1;
	for (i = 0; i < n; i++) {
		int t = i % 64, src = i - t + 63 - t;

		want[i] = t % 3 ? (src < n ? hin[src] : 0) : -7;
	}
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMemcpy(in, hin, n * 4, cudaMemcpyHostToDevice));
	late_write<<<3, 64>>>(in, out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * 4, cudaMemcpyDeviceToHost));
	check_array("a guarded tile load that keeps the older value", hout, want, n);
	CK(cudaFree(in));
	CK(cudaFree(out));
}

static void run_odd_lanes(void)
{
	const int n = 600, blocks = 3;
	int hin[768], hout[768], want[768], val[768], *in, *out, i;

	for (i = 0; i < blocks * 256; i++)
		hin[i] = i < n ? (i * 37 + 11) % 1000 : 0;
	for (i = 0; i < blocks * 256; i++) {
		int b = i / 256, t = i % 256, v = hin[i];

		val[i] = v & 1 ? hin[b * 256 + (t + 7) % 256] * 3 : hin[b * 256 + 255 - t];
	}
	for (i = 0; i < n; i++) {
		int t = i % 256, next = t % 32 == 31 ? val[i] : val[i + 1];

		want[i] = val[i] + next;
	}
	CK(cudaMalloc(&in, sizeof(hin)));
	CK(cudaMalloc(&out, sizeof(hout)));
	CK(cudaMemcpy(in, hin, sizeof(hin), cudaMemcpyHostToDevice));
	odd_lanes<<<blocks, 256>>>(in, out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, sizeof(hout), cudaMemcpyDeviceToHost));
	check_array("a guard made before the barrier, in lockstep", hout, want, n);
	CK(cudaFree(in));
	CK(cudaFree(out));
}

int main(void)
{
	run_transpose<32, 8>(64, 32);
	run_transpose<32, 8>(67, 45);
	run_transpose<32, 8>(33, 100);
	run_transpose<16, 4>(50, 19);
	run_keep_zero(16);
	run_keep_zero(5);
	run_carry();
	run_late_write();
	run_odd_lanes();
	return verdict("guarded_tiles");
}
