/*
 * grid3d: 2D and 3D grids and blocks of odd sizes.  Every thread writes its
 * coordinates at its own linear index, so the host can check that each
 * thread of the grid ran exactly once and saw the right threadIdx,
 * blockIdx, blockDim and gridDim; plus a 1D grid wider than 65535 blocks,
 * and the threadIdx of blocks whose rows are whole warps and of others, in
 * lockstep and between barriers.
 */
#include "check.h"

__global__ void coords(unsigned *out, unsigned *hits)
{
	unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
	unsigned bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
	unsigned x = bx * blockDim.x + tx, y = by * blockDim.y + ty, z = bz * blockDim.z + tz;
	unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
	unsigned i = (z * h + y) * w + x;
	out[i] = tx | ty << 4 | tz << 8 | bx << 12 | by << 18 | bz << 24;
	atomicAdd(&hits[i], 1u);
}

/* threadIdx of each thread of one block, by its linear index: in lockstep
 * (a shuffle) or one thread at a time between barriers, the two ways the
 * cpu backend lays a block's threads out in warps. */
__global__ void tids_lockstep(unsigned *out)
{
	unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
	unsigned zero = __shfl_sync(0xffffffffu, 0u, 0);

	out[3 * t] = threadIdx.x + zero;
	out[3 * t + 1] = threadIdx.y;
	out[3 * t + 2] = threadIdx.z;
}

__global__ void tids_barrier(unsigned *out)
{
	__shared__ unsigned seen;
	unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;

	if (t == 0)
		seen = 0;
	__syncthreads();
	out[3 * t] = threadIdx.x + seen;
	out[3 * t + 1] = threadIdx.y;
	out[3 * t + 2] = threadIdx.z;
}

static void run_tids(void (*kernel)(unsigned *), const char *how, dim3 block)
{
	unsigned n = block.x * block.y * block.z, t;
	unsigned *out, *hout = (unsigned *)malloc(3 * n * 4), *want = (unsigned *)malloc(3 * n * 4);
	char what[96];

	CK(cudaMalloc(&out, 3 * n * 4));
	kernel<<<2, block>>>(out);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, 3 * n * 4, cudaMemcpyDeviceToHost));
	for (t = 0; t < n; t++) {
		want[3 * t] = t % block.x;
		want[3 * t + 1] = t / block.x % block.y;
		want[3 * t + 2] = t / (block.x * block.y);
	}
	snprintf(what, sizeof(what), "block (%u,%u,%u) threadIdx, %s", block.x, block.y, block.z,
		 how);
	check_array(what, hout, want, 3 * n);
	CK(cudaFree(out));
	free(hout), free(want);
}

__global__ void wide(unsigned *last)
{
	atomicMax(last, blockIdx.x);
}

static void run(dim3 grid, dim3 block)
{
	unsigned w = grid.x * block.x, h = grid.y * block.y, d = grid.z * block.z;
	size_t n = (size_t)w * h * d;
	unsigned *out, *hits, *hout = (unsigned *)malloc(n * 4), *hhits = (unsigned *)malloc(n * 4);
	unsigned *want = (unsigned *)malloc(n * 4), *ones = (unsigned *)malloc(n * 4);
	CK(cudaMalloc(&out, n * 4));
	CK(cudaMalloc(&hits, n * 4));
	CK(cudaMemset(hits, 0, n * 4));
	coords<<<grid, block>>>(out, hits);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, out, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hhits, hits, n * 4, cudaMemcpyDeviceToHost));
	for (unsigned z = 0; z < d; z++)
		for (unsigned y = 0; y < h; y++)
			for (unsigned x = 0; x < w; x++) {
				size_t i = ((size_t)z * h + y) * w + x;
				want[i] = x % block.x | y % block.y << 4 | z % block.z << 8 |
					  x / block.x << 12 | y / block.y << 18 | z / block.z << 24;
				ones[i] = 1;
			}
	char what[96];
	snprintf(what, sizeof(what), "grid (%u,%u,%u) block (%u,%u,%u) coordinates", grid.x,
		 grid.y, grid.z, block.x, block.y, block.z);
	check_array(what, hout, want, n);
	snprintf(what, sizeof(what), "grid (%u,%u,%u) block (%u,%u,%u) runs per thread", grid.x,
		 grid.y, grid.z, block.x, block.y, block.z);
	check_array(what, hhits, ones, n);
	CK(cudaFree(out));
	CK(cudaFree(hits));
	free(hout), free(hhits), free(want), free(ones);
}

int main()
{
	run(dim3(3, 5, 2), dim3(7, 3, 5));
	run(dim3(13, 1, 1), dim3(5, 9, 1));
	run(dim3(2, 3, 1), dim3(11, 13, 1));
	run(dim3(1, 1, 7), dim3(1, 1, 3));
	run(dim3(5, 2, 3), dim3(3, 1, 11));
	for (const dim3 b : { dim3(64, 3, 2), dim3(32, 4, 1), dim3(96, 1, 1), dim3(7, 3, 5) }) {
		run_tids(tids_lockstep, "lockstep", b);
		run_tids(tids_barrier, "between barriers", b);
	}

	unsigned *last, got = 0;
	CK(cudaMalloc(&last, sizeof(unsigned)));
	CK(cudaMemset(last, 0, sizeof(unsigned)));
	wide<<<70001, 32>>>(last);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, last, sizeof(got), cudaMemcpyDeviceToHost));
	check(got == 70000, "largest blockIdx.x of a 70001-block grid: got %u", got);
	CK(cudaFree(last));
	return verdict("grid3d");
}
