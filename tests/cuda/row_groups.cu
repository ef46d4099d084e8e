/*
 * row_groups: kernels without barriers whose threads loop over global
 * memory, which the cpu backend runs sixteen threads of a row at a time
 * as vector code (src/cpu/group.c, shapes from src/cpu/shape.c).  Rows of
 * 20 threads (a full group and one of 4 lanes), bounds tests that send
 * threads to return before and inside the loop, k loops whose length is
 * not a multiple of nvcc's unrolling, a branch on threadIdx.y (uniform in
 * a row, not in the block), short if-converted branches on each thread's
 * own data, atomics in the loop, a value that outlives the loop it is
 * made in, a shared tile between barriers, and
 * 32-bit indices widened to 64 bits whose group of threads crosses the
 * wrap at INT32_MAX or UINT32_MAX (those groups, and with barriers their
 * blocks, run one thread at a time instead, from their start).
 * Values are small integers in floats, so every sum is exact.
 */
#include "check.h"

#include <cstdint>

#define NX 20
#define NY 3
#define N 37            /* matrix size: not a multiple of 4 nor of 20 */

/* c = a * b, one thread per element of c; threads past n return */
__global__ void matmul(const float *a, const float *b, float *c, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	float sum = 0;

	if (row >= n || col >= n)
		return;
	for (int k = 0; k < n; k++)
		sum += a[row * n + k] * b[k * n + col];
	if (threadIdx.y == 1)
		sum = -sum;
	c[row * n + col] = sum;
}

/* a thread whose column holds a negative value leaves in the loop; every
 * third element of a column counts twice (a guard per thread) */
__global__ void leave_early(const float *b, float *out, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	float sum = 0;

	if (col >= n)
		return;
	for (int k = 0; k < n; k++) {
		float v = b[k * n + col];

		if (v < 0)
			return;
		if ((col + k) % 3 == 0)
			v *= 2;
		sum += v;
	}
	out[col] = sum;
}

/* the last element of each column, squared into a sum in the loop and
 * read again after it: it outlives the loop over the lanes that makes it */
__global__ void last_square(const float *b, float *out, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	float v = 0, sum = 0;

	if (col >= n)
		return;
	for (int k = 0; k < n; k++) {
		v = b[k * n + col];
		sum += v * v;
	}
	out[col] = sum + v;
}

/* each thread counts the residues mod 8 of its column */
__global__ void count(const float *b, unsigned *hist, int n)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;

	if (col >= n)
		return;
	for (int k = 0; k < n; k++)
		atomicAdd(&hist[(int)b[k * n + col] & 7], 1u);
}

/* i = base + the thread's global index, widened after a loop of loads */
__global__ void widen(const float *b, long long *s, unsigned long long *u, int n, int base)
{
	int g = blockIdx.x * blockDim.x + threadIdx.x;
	int i = base + g;
	unsigned v = (unsigned)base * 2u + (unsigned)g;
	float sum = 0;

	for (int k = 0; k < n; k++)
		sum += b[k];
	s[g] = (long long)i + (long long)sum;
	u[g] = (unsigned long long)v;
}

/* a tile of NY rows of b in shared memory between barriers, per block of
 * NX x NY threads; i = base + the column, widened after the loop */
__global__ void tiles(const float *b, float *out, long long *idx, int n, int base)
{
	__shared__ float t[NY][NX];
	int x = threadIdx.x, y = threadIdx.y;
	int g = blockIdx.x * blockDim.x + x;
	int i = base + g;
	float s1 = 0, s2 = 0, s3 = 0;

	for (int k = 0; k < n; k += NY) {
		t[y][x] = k + y < n && g < n ? b[(k + y) * n + g] : 0;
		__syncthreads();
		for (int j = 0; j < NY; j++) {
			float v = t[(j + y) % NY][x];

			s1 += v * (j + 1);
			s2 += v * v;
			s3 -= v * 3;
		}
		__syncthreads();
	}
	if (g < n) {
		idx[y * n + g] = (long long)i;
		out[y * n + g] = s1 + 2 * s2 + 5 * s3;
	}
}

static int32_t wrap32(int64_t v)
{
	return (int32_t)(uint32_t)(uint64_t)v;
}

/* blocks 20 x 3, 16 x 3 (two rows of a block run together, a part of
 * the call each, and in the last rows of the matrix one leaves while the
 * other goes on) and 20 x 5 */
static void test_matmul(const float *ha, const float *hb, const float *da, const float *db)
{
	static const unsigned shapes[][2] = { { NX, NY }, { 16, 3 }, { 20, 5 } };
	float *dc, *hc = new float[N * N];

	CK(cudaMalloc(&dc, N * N * sizeof(float)));
	for (int v = 0; v < 3; v++) {
		dim3 block(shapes[v][0], shapes[v][1]);
		dim3 grid((N + block.x - 1) / block.x, (N + block.y - 1) / block.y);

		CK(cudaMemset(dc, 0, N * N * sizeof(float)));
		matmul<<<grid, block>>>(da, db, dc, N);
		CK(cudaMemcpy(hc, dc, N * N * sizeof(float), cudaMemcpyDeviceToHost));
		for (int r = 0; r < N; r++)
			for (int c = 0; c < N; c++) {
				float want = 0;

				for (int k = 0; k < N; k++)
					want += ha[r * N + k] * hb[k * N + c];
				if (r % block.y == 1)
					want = -want;
				check(hc[r * N + c] == want, "matmul %ux%u c[%d][%d] = %g, want %g",
				      block.x, block.y, r, c, hc[r * N + c], want);
			}
	}
	CK(cudaFree(dc));
	delete[] hc;
}

static void test_leave_early(float *hb, float *db)
{
	float *dout, hout[N];

	/* columns 5 and 17 hold a negative value, at rows 30 and 3; columns
	 * 20 to 35, a group of the second block, at row 1: they leave while
	 * the block's columns 36 on go on */
	hb[30 * N + 5] = -1;
	hb[3 * N + 17] = -2;
	for (int c = 20; c < 36; c++)
		hb[1 * N + c] = -3;
	CK(cudaMemcpy(db, hb, N * N * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMalloc(&dout, N * sizeof(float)));
	CK(cudaMemset(dout, 0xff, N * sizeof(float)));
	leave_early<<<(N + NX - 1) / NX, NX>>>(db, dout, N);
	CK(cudaMemcpy(hout, dout, sizeof(hout), cudaMemcpyDeviceToHost));
	for (int c = 0; c < N; c++) {
		float want = 0;
		int left = 0;

		for (int k = 0; k < N && !left; k++) {
			float v = hb[k * N + c];

			left = v < 0;
			want += ((c + k) % 3 == 0 ? 2 : 1) * v;
		}
		if (left)
			check(hout[c] != hout[c], "leave_early column %d: %g, want it untouched", c,
			      hout[c]);
		else
			check(hout[c] == want, "leave_early column %d: %g, want %g", c, hout[c], want);
	}
	CK(cudaFree(dout));
}

static void test_last_square(const float *hb, const float *db)
{
	float *dout, hout[N];

	CK(cudaMalloc(&dout, N * sizeof(float)));
	last_square<<<(N + NX - 1) / NX, NX>>>(db, dout, N);
	CK(cudaMemcpy(hout, dout, sizeof(hout), cudaMemcpyDeviceToHost));
	for (int c = 0; c < N; c++) {
		float sum = 0, v = 0;

		for (int k = 0; k < N; k++) {
			v = hb[k * N + c];
			sum += v * v;
		}
		check(hout[c] == sum + v, "last_square column %d: %g, want %g", c, hout[c], sum + v);
	}
	CK(cudaFree(dout));
}

static void test_count(const float *hb, const float *db)
{
	unsigned *dh, hh[8], want[8] = { 0 };

	CK(cudaMalloc(&dh, sizeof(hh)));
	CK(cudaMemset(dh, 0, sizeof(hh)));
	count<<<(N + NX - 1) / NX, NX>>>(db, dh, N);
	CK(cudaMemcpy(hh, dh, sizeof(hh), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N * N; i++)
		want[(int)hb[i] & 7]++;
	for (int i = 0; i < 8; i++)
		check(hh[i] == want[i], "count[%d] = %u, want %u", i, hh[i], want[i]);
	CK(cudaFree(dh));
}

/* base puts INT32_MAX (and 2 * base UINT32_MAX) inside a group */
static void test_widen(const float *hb, const float *db, int base, const char *what)
{
	const int blocks = 6, n = blocks * 32;
	long long *ds, *hs = new long long[n];
	unsigned long long *du, *hu = new unsigned long long[n];
	float sum = 0;

	for (int k = 0; k < N; k++)
		sum += hb[k];
	CK(cudaMalloc(&ds, n * sizeof(*ds)));
	CK(cudaMalloc(&du, n * sizeof(*du)));
	widen<<<blocks, 32>>>(db, ds, du, N, base);
	CK(cudaMemcpy(hs, ds, n * sizeof(*hs), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hu, du, n * sizeof(*hu), cudaMemcpyDeviceToHost));
	for (int g = 0; g < n; g++) {
		long long ws = (long long)wrap32((int64_t)base + g) + (long long)sum;
		unsigned long long wu = (uint32_t)((uint32_t)base * 2u + (uint32_t)g);

		check(hs[g] == ws, "widen %s s[%d] = %lld, want %lld", what, g, hs[g], ws);
		check(hu[g] == wu, "widen %s u[%d] = %llu, want %llu", what, g, hu[g], wu);
	}
	CK(cudaFree(ds));
	CK(cudaFree(du));
	delete[] hs;
	delete[] hu;
}

/* base puts INT32_MAX inside the second block's first group */
static void test_tiles(const float *hb, const float *db, int base)
{
	float *dout, *hout = new float[NY * N];
	long long *didx, *hidx = new long long[NY * N];

	CK(cudaMalloc(&dout, NY * N * sizeof(float)));
	CK(cudaMalloc(&didx, NY * N * sizeof(long long)));
	tiles<<<(N + NX - 1) / NX, dim3(NX, NY)>>>(db, dout, didx, N, base);
	CK(cudaMemcpy(hout, dout, NY * N * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hidx, didx, NY * N * sizeof(long long), cudaMemcpyDeviceToHost));
	for (int y = 0; y < NY; y++)
		for (int g = 0; g < N; g++) {
			float s1 = 0, s2 = 0, s3 = 0;

			for (int k = 0; k < N; k += NY)
				for (int j = 0; j < NY; j++) {
					int r = k + (j + y) % NY;
					float v = r < N ? hb[r * N + g] : 0;

					s1 += v * (j + 1);
					s2 += v * v;
					s3 -= v * 3;
				}
			check(hout[y * N + g] == s1 + 2 * s2 + 5 * s3, "tiles out[%d][%d] = %g, want %g",
			      y, g, hout[y * N + g], s1 + 2 * s2 + 5 * s3);
			check(hidx[y * N + g] == wrap32((int64_t)base + g), "tiles idx[%d][%d] = %lld, "
			      "want %d", y, g, hidx[y * N + g], wrap32((int64_t)base + g));
		}
	CK(cudaFree(dout));
	CK(cudaFree(didx));
	delete[] hout;
	delete[] hidx;
}

int main()
{
	float *ha = new float[N * N], *hb = new float[N * N], *da, *db;

	for (int i = 0; i < N * N; i++) {
		ha[i] = (float)(i * 7 % 11) - 5;
		hb[i] = (float)(i * 5 % 13);
	}
	CK(cudaMalloc(&da, N * N * sizeof(float)));
	CK(cudaMalloc(&db, N * N * sizeof(float)));
	CK(cudaMemcpy(da, ha, N * N * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, hb, N * N * sizeof(float), cudaMemcpyHostToDevice));

	test_matmul(ha, hb, da, db);
	test_count(hb, db);
	test_last_square(hb, db);
	test_widen(hb, db, INT32_MAX - 40, "across INT32_MAX");
	test_widen(hb, db, 1000, "far from the wrap");
	test_widen(hb, db, INT32_MIN + 3, "at INT32_MIN");
	test_tiles(hb, db, 7);
	test_tiles(hb, db, INT32_MAX - 25);
	test_leave_early(hb, db);

	CK(cudaGetLastError());
	CK(cudaFree(da));
	CK(cudaFree(db));
	delete[] ha;
	delete[] hb;
	return verdict("row_groups");
}
