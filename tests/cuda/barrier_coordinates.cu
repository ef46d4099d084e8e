/*
 * barrier_coordinates: values made from the launch's indices and the
 * kernel's parameters (a global pointer, a scale, an offset), used after
 * each of three barriers, and a shared tile addressed through them.  The
 * cpu backend runs such a kernel on its fast path, where a barrier
 * computes those registers again instead of keeping them
 * (src/cpu/remat.c) and a row of threads addresses the tile as a base plus
 * a multiple of threadIdx.x (src/cpu/affine.c); on any device the
 * results are the same functions of the coordinates.  Blocks of
 * 20 x 3 x 2 threads (x not a multiple of 32) on a 3 x 2 x 2 grid.
 */
#include "check.h"

#define NX 20
#define NY 3
#define NZ 2
#define NT (NX * NY * NZ)
#define GX 3
#define GY 2
#define GZ 2
#define NB (GX * GY * GZ)
#define NOUT 4

__global__ void coords(const int *in, long long *out, int scale, int offset)
{
	__shared__ int tile[NZ][NY][NX + 1];
	int x = threadIdx.x, y = threadIdx.y, z = threadIdx.z;
	int block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
	int t = (z * blockDim.y + y) * blockDim.x + x;
	long long *o = out + ((long long)block * NT + t) * NOUT;

	tile[z][y][x] = in[block * NT + t] * scale;
	__syncthreads();
	/* the right-hand neighbour's value, and the block's coordinates */
	o[0] = tile[z][y][(x + 1) % NX] + offset + blockIdx.x * 1000 + blockIdx.y * 100 +
	       blockIdx.z * 10;
	__syncthreads();
	tile[z][y][x] = t + blockDim.x * blockDim.y * blockDim.z;
	__syncthreads();
	/* the mirrored thread's value, and the grid's size */
	o[1] = tile[NZ - 1 - z][NY - 1 - y][NX - 1 - x] + gridDim.x * gridDim.y * gridDim.z;
	__syncthreads();
	o[2] = (long long)(block * NT + t) * scale - offset;
	o[3] = in[block * NT + (NT - 1 - t)];
}

int main()
{
	const int n = NB * NT, scale = 7, offset = 123456;
	int *hin = new int[n], *din;
	long long *hout = new long long[n * NOUT], *dout;

	for (int i = 0; i < n; i++)
		hin[i] = (i * 37 + 11) % 1009 - 500;
	CK(cudaMalloc(&din, n * sizeof(*din)));
	CK(cudaMalloc(&dout, n * NOUT * sizeof(*dout)));
	CK(cudaMemcpy(din, hin, n * sizeof(*din), cudaMemcpyHostToDevice));
	CK(cudaMemset(dout, 0, n * NOUT * sizeof(*dout)));

	coords<<<dim3(GX, GY, GZ), dim3(NX, NY, NZ)>>>(din, dout, scale, offset);
	CK(cudaGetLastError());
	CK(cudaMemcpy(hout, dout, n * NOUT * sizeof(*dout), cudaMemcpyDeviceToHost));

	for (int bz = 0; bz < GZ; bz++)
		for (int by = 0; by < GY; by++)
			for (int bx = 0; bx < GX; bx++)
				for (int t = 0; t < NT; t++) {
					int b = (bz * GY + by) * GX + bx;
					int x = t % NX, y = t / NX % NY, z = t / (NX * NY);
					int right = (z * NY + y) * NX + (x + 1) % NX;
					int mirror = ((NZ - 1 - z) * NY + NY - 1 - y) * NX + NX - 1 - x;
					const long long *o = hout + ((long long)b * NT + t) * NOUT;
					long long want[NOUT] = {
						(long long)hin[b * NT + right] * scale + offset +
							bx * 1000 + by * 100 + bz * 10,
						mirror + NT + NB,
						(long long)(b * NT + t) * scale - offset,
						hin[b * NT + NT - 1 - t],
					};

					for (int k = 0; k < NOUT; k++)
						check(o[k] == want[k],
						      "block (%d,%d,%d) thread %d, value %d: %lld, want %lld",
						      bx, by, bz, t, k, o[k], want[k]);
				}

	CK(cudaFree(din));
	CK(cudaFree(dout));
	delete[] hin;
	delete[] hout;
	return verdict("barrier_coordinates");
}
