/*
 * row_index: kernels without loops that see their thread only through
 * the grid-wide index blockIdx.x * blockDim.x + threadIdx.x, which the cpu
 * engine runs a row of blocks at a time as one block as wide as the row
 * (src/cpu/stride.c, tr_index_only; translate_fast.c), the index made in
 * 32 bits or in 64 (size_t), beside kernels that
 * read threadIdx.x or blockIdx.x alone, which it must not run so.  1D and
 * 2D grids, blocks of 32 and of 48 threads, sizes that leave the last
 * block part empty, and a row of blocks longer than one call's share.
 */
#include "check.h"

#define N 100003
#define W 333
#define H 47

__global__ void scale(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = in[i] * 3 + i;
}

/* the index in 64 bits, as size_t code makes it */
__global__ void scale64(const int *in, int *out, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = in[i] * 5 - (int)i;
}

__global__ void plane(int *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < w && y < h)
		out[y * w + x] = x * 1000 + y;
}

/* threadIdx.x and blockIdx.x apart: one block at a time */
__global__ void coordinates(int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < n)
		out[i] = (int)threadIdx.x + 100000 * (int)blockIdx.x;
}

int main(void)
{
	static int hin[N], got[N], want[N];
	int *in, *out;
	int i, x, y;

	for (i = 0; i < N; i++)
		hin[i] = (i * 7919) % 2001 - 1000;
	CK(cudaMalloc(&in, sizeof(hin)));
	CK(cudaMalloc(&out, sizeof(hin)));
	CK(cudaMemcpy(in, hin, sizeof(hin), cudaMemcpyHostToDevice));

	for (unsigned threads : { 32u, 48u }) {
		CK(cudaMemset(out, 0, sizeof(got)));
		scale<<<(N + threads - 1) / threads, threads>>>(in, out, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
		for (i = 0; i < N; i++)
			want[i] = hin[i] * 3 + i;
		check_array(threads == 32 ? "scale, blocks of 32" : "scale, blocks of 48", got,
			    want, N);

		CK(cudaMemset(out, 0, sizeof(got)));
		scale64<<<(N + threads - 1) / threads, threads>>>(in, out, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
		for (i = 0; i < N; i++)
			want[i] = hin[i] * 5 - i;
		check_array("scale64", got, want, N);

		CK(cudaMemset(out, 0, sizeof(got)));
		coordinates<<<(N + threads - 1) / threads, threads>>>(out, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
		for (i = 0; i < N; i++)
			want[i] = (int)(i % threads) + 100000 * (int)(i / threads);
		check_array("coordinates", got, want, N);
	}

	CK(cudaMemset(out, 0, sizeof(got)));
	plane<<<dim3((W + 31) / 32, (H + 7) / 8), dim3(32, 8)>>>(out, W, H);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, out, W * H * sizeof(int), cudaMemcpyDeviceToHost));
	for (y = 0; y < H; y++)
		for (x = 0; x < W; x++)
			want[y * W + x] = x * 1000 + y;
	check_array("plane", got, want, W * H);

	CK(cudaFree(in));
	CK(cudaFree(out));
	return verdict("row_index");
}
