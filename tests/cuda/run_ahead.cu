/*
 * run_ahead: a kernel whose group calls may arrive at a barrier ahead
 * (src/cpu/ahead.c): in a loop with three barriers a turn, after the
 * first every block but each third one branches straight to the second
 * (its calls run that way at the first barrier and sit the next round
 * out), while the others sum a row of the tile there.  The value the
 * branch leaves (0, or the row's sum) is kept to the end of the turn.
 * Blocks of 16 x 16 threads (rows of groups, no warp operation) and of
 * 32 x 8; checked against the host.
 */
#include "check.h"

#define TILE 16

__global__ void tile_rows(const int *in, int *out, int scale)
{
	__shared__ int tile[TILE * 32];
	int tx = threadIdx.x, ty = threadIdx.y, nx = blockDim.x;
	int base = blockIdx.x * nx * blockDim.y, at = ty * nx + tx;
	int acc = 0;

	for (int r = 0; r < 4; r++) {
		int bonus = 0;

		tile[at] = in[base + at] + r;
		__syncthreads();
		if (blockIdx.x % 3 == 0) {
			for (int k = 0; k < nx; k++)
				bonus += tile[ty * nx + k];
		}
		__syncthreads();
		acc += tile[(at + 1) % (nx * blockDim.y)] * scale + bonus;
		__syncthreads();
	}
	out[base + at] = acc;
}

static void host(const int *in, int *out, int blocks, int nx, int ny, int scale)
{
	int n = nx * ny;

	for (int b = 0; b < blocks; b++)
		for (int at = 0; at < n; at++) {
			int acc = 0;

			for (int r = 0; r < 4; r++) {
				int bonus = 0, ty = at / nx;

				if (b % 3 == 0)
					for (int k = 0; k < nx; k++)
						bonus += in[b * n + ty * nx + k] + r;
				acc += (in[b * n + (at + 1) % n] + r) * scale + bonus;
			}
			out[b * n + at] = acc;
		}
}

static void test_shape(int nx, int ny)
{
	const int blocks = 7, n = blocks * nx * ny, scale = 3;
	int *in = (int *)malloc(n * sizeof(int)), *out = (int *)malloc(n * sizeof(int));
	int *want = (int *)malloc(n * sizeof(int));
	int *din, *dout;
	char what[64];

	for (int i = 0; i < n; i++)
		in[i] = (i * 37) % 101 - 50;
	host(in, want, blocks, nx, ny, scale);
	CK(cudaMalloc(&din, n * sizeof(int)));
	CK(cudaMalloc(&dout, n * sizeof(int)));
	CK(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	tile_rows<<<blocks, dim3(nx, ny)>>>(din, dout, scale);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
	snprintf(what, sizeof(what), "tile_rows %d x %d", nx, ny);
	check_array(what, out, want, n);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	free(in);
	free(out);
	free(want);
}

int main(void)
{
	test_shape(16, 16);
	test_shape(32, 8);
	return verdict("run_ahead");
}
