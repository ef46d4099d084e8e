/*
 * warp_groups: kernels with shuffles that the cpu backend runs a warp a
 * call, as two row groups of 16 lanes (src/cpu/group.c, shape.c's warp
 * calls), checked against the host.  A block scan of four elements a
 * thread (bounds tests behind each load and store, the warp's index and
 * lane from threadIdx.x, two barriers), on sizes whose last block is
 * partial; the same kernel on blocks whose rows are not whole warps,
 * which run in lockstep instead; 2D blocks whose rows are one or two
 * warps; a shuffle's predicate and %laneid; a shuffle whose source
 * lane differs from lane to lane; whole warps picked by tests of
 * threadIdx.x, which shuffle inside; and stores of some lanes of a warp
 * to one place of shared and of global memory, one of which must win.
 */
#include "check.h"

#define FULL 0xffffffffu
#define PER 4

__device__ unsigned warp_incl_scan(unsigned v, int lane)
{
	for (int off = 1; off < 32; off <<= 1) {
		unsigned up = __shfl_up_sync(FULL, v, off);
		if (lane >= off)
			v += up;
	}
	return v;
}

/* Each block scans blockDim.x * PER elements; its total goes to sums. */
__global__ void block_scan(const unsigned *in, unsigned *out, unsigned *sums, int n)
{
	__shared__ unsigned warps[32];
	int base = blockIdx.x * blockDim.x * PER + threadIdx.x * PER;
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
	unsigned v[PER], sum = 0;

	for (int k = 0; k < PER; k++) {
		v[k] = base + k < n ? in[base + k] : 0;
		sum += v[k];
	}
	unsigned incl = warp_incl_scan(sum, lane);
	if (lane == 31)
		warps[warp] = incl;
	__syncthreads();
	if (warp == 0) {
		unsigned w = lane < nw ? warps[lane] : 0;
		w = warp_incl_scan(w, lane);
		if (lane < nw)
			warps[lane] = w;
	}
	__syncthreads();
	unsigned offset = incl - sum + (warp > 0 ? warps[warp - 1] : 0);
	for (int k = 0; k < PER; k++) {
		if (base + k < n)
			out[base + k] = offset;
		offset += v[k];
	}
	if (threadIdx.x == 0)
		sums[blockIdx.x] = warps[nw - 1];
}

/* A 2D block: each warp sums its lanes' elements of a matrix with
 * __shfl_xor_sync; each lane at a multiple of 32 in its row adds the sum
 * to its row's.  A row of 16 threads is half a warp: such blocks run in
 * lockstep. */
__global__ void row_sums(const int *m, int *rows, int width)
{
	int x = threadIdx.x, y = blockIdx.x * blockDim.y + threadIdx.y;
	int v = m[y * width + x];

	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_xor_sync(FULL, v, d);
	if ((x & 31) == 0)
		atomicAdd(&rows[y], v);
}

/* The predicate of shfl.sync.down in 8-lane segments (lanes past their
 * segment's end keep their own value), %laneid, and a source lane that
 * differs from lane to lane. */
__global__ void lanes(int *valid, int *lane_ids, int *rotated, int *down)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int lane;
	int v = t * 3 + 1, ok;

	asm("mov.u32 %0, %%laneid;" : "=r"(lane));
	asm("{\n\t.reg .pred p;\n\t"
	    "shfl.sync.down.b32 %0|p, %2, 1, 0x181f, -1;\n\t"
	    "selp.s32 %1, 1, 0, p;\n}"
	    : "=r"(down[t]), "=r"(ok) : "r"(v));
	valid[t] = ok;
	lane_ids[t] = lane;
	rotated[t] = __shfl_sync(FULL, v, (lane * 5 + 3) & 31);
}

/* The lanes whose bit of pick is set store their lane, passed through a
 * shuffle (a warp call), to one place of shared and one of global memory
 * per warp: CUDA keeps one of them; with none the places keep what they
 * held (-1 in shared, the host's value in global). */
__global__ void one_place(unsigned pick, int *global, int *shared_out)
{
	__shared__ int place[32];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
	int v = __shfl_xor_sync(FULL, lane, 1) ^ 1;

	if (lane == 0)
		place[warp] = -1;
	__syncthreads();
	if (pick >> lane & 1) {
		place[warp] = v;
		global[blockIdx.x * nw + warp] = v;
	}
	__syncthreads();
	if (lane == 0)
		shared_out[blockIdx.x * nw + warp] = place[warp];
}

__device__ int warp_sum(int v)
{
	for (int d = 16; d > 0; d >>= 1)
		v += __shfl_xor_sync(FULL, v, d);
	return v;
}

/* Whole warps picked by tests of threadIdx.x against multiples of 32
 * (the same in every lane of a warp, so the warp may shuffle inside),
 * each written another way; and a bound inside a warp, lanes 0-39. */
__global__ void picked(int *out)
{
	int t = threadIdx.x, v = t + 1000 * blockIdx.x;
	int *o = out + 6 * (blockIdx.x * blockDim.x + t);
	unsigned late;

	o[0] = o[1] = o[2] = o[3] = o[4] = -1;
	if (t < 64)
		o[0] = warp_sum(v);
	if (t > 95)
		o[1] = warp_sum(v);
	if (2 * t >= 64)
		o[2] = warp_sum(v);
	if (t - 64 < 0)
		o[3] = warp_sum(v);
	asm("{\n\t.reg .pred p;\n\tsetp.lt.u32 p, 63, %1;\n\tselp.u32 %0, 1, 0, p;\n}"
	    : "=r"(late) : "r"(t));
	if (late)
		o[4] = warp_sum(v);
	o[5] = t < 40;
}

static void scan_host(const unsigned *in, unsigned *out, unsigned *sums, int n, int per_block)
{
	for (int b = 0; b * per_block < n; b++) {
		unsigned s = 0;
		for (int i = b * per_block; i < n && i < (b + 1) * per_block; i++) {
			out[i] = s;
			s += in[i];
		}
		sums[b] = s;
	}
}

static void test_block_scan(int n, int threads)
{
	int per_block = threads * PER, blocks = (n + per_block - 1) / per_block;
	unsigned *in = (unsigned *)malloc(n * sizeof(unsigned));
	unsigned *out = (unsigned *)malloc(n * sizeof(unsigned));
	unsigned *want = (unsigned *)malloc(n * sizeof(unsigned));
	unsigned *sums = (unsigned *)malloc(blocks * sizeof(unsigned));
	unsigned *want_sums = (unsigned *)malloc(blocks * sizeof(unsigned));
	unsigned *din, *dout, *dsums;
	char what[64];

	for (int i = 0; i < n; i++)
		in[i] = (unsigned)(i * 2654435761u) >> 20;
	scan_host(in, want, want_sums, n, per_block);
	CK(cudaMalloc(&din, n * sizeof(unsigned)));
	CK(cudaMalloc(&dout, n * sizeof(unsigned)));
	CK(cudaMalloc(&dsums, blocks * sizeof(unsigned)));
	CK(cudaMemcpy(din, in, n * sizeof(unsigned), cudaMemcpyHostToDevice));
	CK(cudaMemset(dout, 0xff, n * sizeof(unsigned)));
	block_scan<<<blocks, threads>>>(din, dout, dsums, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(sums, dsums, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "scan of %d, %d threads", n, threads);
	check_array(what, out, want, n);
	snprintf(what, sizeof(what), "block totals of %d, %d threads", n, threads);
	check_array(what, sums, want_sums, blocks);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dsums));
	free(in), free(out), free(want), free(sums), free(want_sums);
}

static void test_row_sums(int width, int rows_per_block)
{
	const int blocks = 3, nrows = blocks * rows_per_block;
	int *m = (int *)malloc(nrows * width * sizeof(int));
	int *rows = (int *)malloc(nrows * sizeof(int)), *want = (int *)calloc(nrows, sizeof(int));
	int *dm, *drows;
	char what[64];

	for (int i = 0; i < nrows * width; i++)
		m[i] = (i * 7919) % 1000 - 500;
	/* warps are 32 threads of a block in row-major order */
	for (int b = 0; b < blocks; b++)
		for (int w = 0; w < width * rows_per_block / 32; w++) {
			int s = 0, base = b * width * rows_per_block + 32 * w;

			for (int k = 0; k < 32; k++)
				s += m[base + k];
			for (int k = 0; k < 32; k++)
				if ((base + k) % width % 32 == 0)
					want[(base + k) / width] += s;
		}
	CK(cudaMalloc(&dm, nrows * width * sizeof(int)));
	CK(cudaMalloc(&drows, nrows * sizeof(int)));
	CK(cudaMemcpy(dm, m, nrows * width * sizeof(int), cudaMemcpyHostToDevice));
	CK(cudaMemset(drows, 0, nrows * sizeof(int)));
	row_sums<<<blocks, dim3(width, rows_per_block)>>>(dm, drows, width);
	CK(cudaGetLastError());
	CK(cudaMemcpy(rows, drows, nrows * sizeof(int), cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "row sums, %d x %d blocks", width, rows_per_block);
	check_array(what, rows, want, nrows);
	CK(cudaFree(dm));
	CK(cudaFree(drows));
	free(m), free(rows), free(want);
}

static void test_lanes(void)
{
	const int n = 96;
	int valid[n], ids[n], rotated[n], down[n];
	int want_valid[n], want_ids[n], want_rotated[n], want_down[n];
	int *d;

	for (int t = 0; t < n; t++) {
		int lane = t % 32, w = t - lane, seg_end = lane | 7;

		want_ids[t] = lane;
		want_valid[t] = lane + 1 <= seg_end;
		want_down[t] = (lane + 1 <= seg_end ? t + 1 : t) * 3 + 1;
		want_rotated[t] = (w + ((lane * 5 + 3) & 31)) * 3 + 1;
	}
	CK(cudaMalloc(&d, 4 * n * sizeof(int)));
	lanes<<<n / 32, 32>>>(d, d + n, d + 2 * n, d + 3 * n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(valid, d, n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(ids, d + n, n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(rotated, d + 2 * n, n * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(down, d + 3 * n, n * sizeof(int), cudaMemcpyDeviceToHost));
	check_array("shfl predicates", valid, want_valid, n);
	check_array("%laneid", ids, want_ids, n);
	check_array("per-lane sources", rotated, want_rotated, n);
	check_array("down in segments of 8", down, want_down, n);
	CK(cudaFree(d));
}

static void test_picked(void)
{
	enum { BLOCKS = 3, THREADS = 128, N = BLOCKS * THREADS };
	int *got = (int *)malloc(6 * N * sizeof(int)), *want = (int *)malloc(6 * N * sizeof(int));
	int *d;

	for (int i = 0; i < N; i++) {
		int t = i % THREADS, w = i - i % 32, sum = 0;
		bool in[5] = { t < 64, t > 95, 2 * t >= 64, t - 64 < 0, t > 63 };

		for (int k = 0; k < 32; k++)
			sum += (w + k) % THREADS + 1000 * ((w + k) / THREADS);
		for (int k = 0; k < 5; k++)
			want[6 * i + k] = in[k] ? sum : -1;
		want[6 * i + 5] = t < 40;
	}
	CK(cudaMalloc(&d, 6 * N * sizeof(int)));
	picked<<<BLOCKS, THREADS>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, 6 * N * sizeof(int), cudaMemcpyDeviceToHost));
	check_array("warps picked by threadIdx.x", got, want, 6 * N);
	CK(cudaFree(d));
	free(got), free(want);
}

static void test_one_place(unsigned pick)
{
	enum { BLOCKS = 3, THREADS = 128, N = BLOCKS * THREADS / 32 };
	int global[N], shared[N], *d;
	bool ok = true;

	for (int i = 0; i < N; i++)
		global[i] = -7;
	CK(cudaMalloc(&d, 2 * N * sizeof(int)));
	CK(cudaMemcpy(d, global, N * sizeof(int), cudaMemcpyHostToDevice));
	one_place<<<BLOCKS, THREADS>>>(pick, d, d + N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(global, d, N * sizeof(int), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(shared, d + N, N * sizeof(int), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N && ok; i++) {
		if (!pick)
			ok = check(global[i] == -7 && shared[i] == -1,
				   "one place, no lane: warp %d holds %d and %d", i, global[i], shared[i]);
		else
			ok = check(global[i] >= 0 && global[i] < 32 && (pick >> global[i] & 1) &&
				   shared[i] >= 0 && shared[i] < 32 && (pick >> shared[i] & 1),
				   "one place, lanes %#x: warp %d holds lanes %d and %d", pick, i,
				   global[i], shared[i]);
	}
	CK(cudaFree(d));
}

int main(void)
{
	test_block_scan(1 << 16, 256);         /* whole blocks */
	test_block_scan(100003, 256);          /* a partial last block */
	test_block_scan(5000, 64);
	test_block_scan(777, 32);              /* one warp a block */
	test_row_sums(32, 4);                  /* a warp a row */
	test_row_sums(64, 2);                  /* two warps a row */
	test_row_sums(16, 4);                  /* half a warp a row: lockstep */
	test_lanes();
	test_picked();
	test_one_place(1u << 31);              /* a warp's total, by its last lane */
	test_one_place(1u);
	test_one_place(1u << 7);               /* a lane inside the first half */
	test_one_place(1u << 16);              /* the second half's first lane */
	test_one_place(1u << 3 | 1u << 20);    /* one in each half */
	test_one_place(0xaaaaaaaau);
	test_one_place(0xffffffffu);
	test_one_place(0);
	return verdict("warp_groups");
}
