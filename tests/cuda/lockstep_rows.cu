/*
 * lockstep_rows: the cpu engine runs a few blocks of a row together in
 * lockstep when a kernel is a grid-stride loop whose blocks share nothing
 * (no barriers, no shared memory): their warps take turns of the loop
 * together (docs/cpu-engine.md, "Rows of blocks").  Every thread must
 * still see its own blockIdx and threadIdx and run each of its turns
 * once, whatever the grid's shape, the block's size (warps cut short
 * included) and the number of elements; a shuffle stays within its warp;
 * and a failed assertion names the block and thread it failed in (on
 * stderr: block [37,1,0], thread [5,0,0]).
 */
// expect-stderr: block: \[37,1,0\], thread: \[5,0,0\] Assertion
#include <cassert>
#include "check.h"

/* Element i of row blockIdx.y, in turns of the whole grid's width. */
__global__ void stamp(unsigned *out, unsigned *hits, int n)
{
	unsigned *row = out + (size_t)blockIdx.y * n, *hrow = hits + (size_t)blockIdx.y * n;
	int i, turn = 0;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		row[i] = threadIdx.x | blockIdx.x << 10 | turn << 20 | blockIdx.y << 28;
		atomicAdd(&hrow[i], 1u);
		turn++;
	}
}

/* Each element gets the next lane's, within the warp (the last lane its
 * own): a shuffle keeps the kernel in lockstep. */
__global__ void next_lane(const unsigned *in, unsigned *out, int n)
{
	int i;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		out[i] = __shfl_down_sync(0xffffffffu, in[i], 1);
}

/* The thread 5 of block (37, 1) fails its assertion in its second turn. */
__global__ void assert_at(unsigned *out, int n)
{
	int i, turn = 0;

	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
		assert(blockIdx.x != 37 || blockIdx.y != 1 || threadIdx.x != 5 || turn != 1);
		out[(size_t)blockIdx.y * n + i] = 1;
		turn++;
	}
}

static void run_stamp(dim3 grid, unsigned threads, int n)
{
	size_t total = (size_t)n * grid.y;
	unsigned *out, *hits;
	unsigned *hout = (unsigned *)malloc(total * 4), *hhits = (unsigned *)malloc(total * 4);
	unsigned *want = (unsigned *)malloc(total * 4), *ones = (unsigned *)malloc(total * 4);
	unsigned width = grid.x * threads;
	char what[96];

	CK(cudaMalloc(&out, total * 4));
	CK(cudaMalloc(&hits, total * 4));
	CK(cudaMemset(hits, 0, total * 4));
	stamp<<<grid, threads>>>(out, hits, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, total * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hhits, hits, total * 4, cudaMemcpyDeviceToHost));
	for (size_t k = 0; k < total; k++) {
		unsigned i = (unsigned)(k % n), y = (unsigned)(k / n), g = i % width;

		want[k] = g % threads | (g / threads) << 10 | (i / width) << 20 | y << 28;
		ones[k] = 1;
	}
	snprintf(what, sizeof(what), "grid (%u,%u) of %u threads over %d: indices and turns",
		 grid.x, grid.y, threads, n);
	check_array(what, hout, want, total);
	snprintf(what, sizeof(what), "grid (%u,%u) of %u threads over %d: runs per element",
		 grid.x, grid.y, threads, n);
	check_array(what, hhits, ones, total);
	CK(cudaFree(out));
	CK(cudaFree(hits));
	free(hout), free(hhits), free(want), free(ones);
}

static void run_next_lane(unsigned blocks, unsigned threads, int n)
{
	unsigned *in, *out, *h = (unsigned *)malloc(n * 4), *hin = (unsigned *)malloc(n * 4);
	unsigned *want = (unsigned *)malloc(n * 4), width = blocks * threads;
	char what[96];
	int i;

	for (i = 0; i < n; i++)
		hin[i] = (unsigned)i * 2654435761u;
	CK(cudaMalloc(&in, n * 4));
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMemcpy(in, hin, n * 4, cudaMemcpyHostToDevice));
	next_lane<<<blocks, threads>>>(in, out, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, n * 4, cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++) {
		unsigned t = (unsigned)i % width % threads;

		/* the next lane's element, unless this is its warp's last lane */
		want[i] = t % 32 == 31 ? hin[i] : hin[i + 1];
	}
	snprintf(what, sizeof(what), "shuffle in %u blocks of %u threads over %d", blocks,
		 threads, n);
	check_array(what, h, want, n);
	CK(cudaFree(in));
	CK(cudaFree(out));
	free(h), free(hin), free(want);
}

static void run_assert(void)
{
	dim3 grid(64, 2);
	int n = 64 * 32 * 3;
	unsigned *out;

	CK(cudaMalloc(&out, (size_t)n * grid.y * 4));
	assert_at<<<grid, 32>>>(out, n);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorAssert, "an assertion failed in block (37,1): %s", cudaGetErrorName(e));
}

int main(void)
{
	/* whole turns and a last turn cut short, rows of many blocks and of
	 * few, warps cut short (48 and 20 threads), 2D grids whose rows run
	 * apart */
	run_stamp(dim3(64), 256, 64 * 256 * 8);
	run_stamp(dim3(100), 64, 100 * 64 * 5 + 77);
	run_stamp(dim3(13, 3), 48, 13 * 48 * 7 + 5);
	run_stamp(dim3(3, 5), 20, 1000);
	run_stamp(dim3(1000), 32, 1000 * 32 * 2 + 999);
	run_next_lane(40, 128, 40 * 128 * 6);
	run_next_lane(9, 64, 9 * 64 * 3 + 64);
	run_assert();
	return verdict("lockstep_rows");
}
