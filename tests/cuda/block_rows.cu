/*
 * block_rows: the cpu engine runs a whole row of a grid's blocks in one
 * call when a kernel's threads cannot see each other (docs/cpu-engine.md,
 * "Rows of blocks"), each row of threads of every block before the next
 * row of threads.  Every thread must still see its own blockIdx and
 * threadIdx, a row must stop at the grid's edge and at the end of the run
 * of blocks a worker claimed, and a failed assertion names the block and
 * thread it failed in (on stderr: block [5,2,0], thread [1,1,0]).  Dynamic shared
 * memory in a kernel without barriers works too (such a launch runs one
 * block a call).
 */
// expect-stderr: block: \[5,2,0\], thread: \[1,1,0\] Assertion
#include <cassert>
#include "check.h"

__global__ void stamp(unsigned *out, unsigned *hits)
{
	unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
	unsigned i = (blockIdx.z * gridDim.y * blockDim.y + y) * gridDim.x * blockDim.x + x;

	out[i] = threadIdx.x | threadIdx.y << 6 | blockIdx.x << 12 | blockIdx.y << 20 |
		 blockIdx.z << 28;
	atomicAdd(&hits[i], 1u);
}

/* Each thread keeps its own value in its slot of dynamic shared memory. */
__global__ void own_slot(unsigned *out)
{
	extern __shared__ unsigned s[];
	unsigned t = threadIdx.y * blockDim.x + threadIdx.x;
	unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y + t;

	s[t] = i * 3u;
	out[i] = s[t] + blockIdx.x;
}

/* The thread (1, 1) of block (5, 2) fails its assertion. */
__global__ void assert_at(unsigned *out)
{
	unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned y = blockIdx.y * blockDim.y + threadIdx.y;

	assert(blockIdx.x != 5 || blockIdx.y != 2 || threadIdx.x != 1 || threadIdx.y != 1);
	out[y * gridDim.x * blockDim.x + x] = 1;
}

static void run_stamp(dim3 grid, dim3 block)
{
	unsigned w = grid.x * block.x, h = grid.y * block.y;
	size_t n = (size_t)w * h * grid.z;
	unsigned *out, *hits;
	unsigned *hout = (unsigned *)malloc(n * 4), *hhits = (unsigned *)malloc(n * 4);
	unsigned *want = (unsigned *)malloc(n * 4), *ones = (unsigned *)malloc(n * 4);
	char what[96];

	CK(cudaMalloc(&out, n * 4));
	CK(cudaMalloc(&hits, n * 4));
	CK(cudaMemset(hits, 0, n * 4));
	stamp<<<grid, block>>>(out, hits);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hhits, hits, n * 4, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < n; i++) {
		unsigned x = (unsigned)(i % w), y = (unsigned)(i / w % h), z = (unsigned)(i / w / h);

		want[i] = x % block.x | (y % block.y) << 6 | (x / block.x) << 12 |
			  (y / block.y) << 20 | z << 28;
		ones[i] = 1;
	}
	snprintf(what, sizeof(what), "grid (%u,%u,%u) of blocks (%u,%u): indices", grid.x, grid.y,
		 grid.z, block.x, block.y);
	check_array(what, hout, want, n);
	snprintf(what, sizeof(what), "grid (%u,%u,%u) of blocks (%u,%u): runs per thread", grid.x,
		 grid.y, grid.z, block.x, block.y);
	check_array(what, hhits, ones, n);
	CK(cudaFree(out));
	CK(cudaFree(hits));
	free(hout), free(hhits), free(want), free(ones);
}

static void run_own_slot(void)
{
	dim3 grid(7, 3), block(16, 4);
	unsigned n = grid.x * grid.y * block.x * block.y, i;
	unsigned *out, *h = (unsigned *)malloc(n * 4), *want = (unsigned *)malloc(n * 4);

	CK(cudaMalloc(&out, n * 4));
	own_slot<<<grid, block, block.x * block.y * 4>>>(out);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, n * 4, cudaMemcpyDeviceToHost));
	for (i = 0; i < n; i++)
		want[i] = i * 3u + i / (block.x * block.y) % grid.x;
	check_array("dynamic shared memory, one slot per thread", h, want, n);
	CK(cudaFree(out));
	free(h), free(want);
}

static void run_assert(void)
{
	dim3 grid(8, 4), block(4, 2);
	unsigned *out;

	CK(cudaMalloc(&out, grid.x * grid.y * block.x * block.y * 4));
	assert_at<<<grid, block>>>(out);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorAssert, "an assertion failed in block (5,2): %s", cudaGetErrorName(e));
}

int main(void)
{
	/* 2D blocks in rows of several blocks, rows of one block, a grid
	 * whose rows a worker's run of blocks splits (300 blocks wide), and
	 * a 3D grid */
	run_stamp(dim3(9, 5), dim3(8, 4));
	run_stamp(dim3(1, 6), dim3(32, 3));
	run_stamp(dim3(300, 3), dim3(4, 2));
	run_stamp(dim3(3, 2, 4), dim3(16, 2));
	run_stamp(dim3(1000, 1), dim3(64, 1));
	run_own_slot();
	run_assert();
	return verdict("block_rows");
}
