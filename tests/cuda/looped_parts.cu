/*
 * looped_parts: kernels with barriers and no loop between them, which the
 * cpu engine runs eight row groups a call in a loop over the groups
 * (src/cpu/group.c, open_parts): every part of a call runs a basic block
 * before the next part does.  Blocks whose rows are not a multiple of
 * eight (calls with parts that have no threads), rows narrower than a
 * group and wider than two, values made from threadIdx.y kept across
 * barriers, shared tiles read at another row's place, a branch on a
 * parameter between barriers, and threads past the matrix that skip the
 * loads and stores.  Integers, so every result is exact.
 */
#include "check.h"

#define W 53
#define H 37
#define MAXX 48
#define MAXY 16

__global__ void stage(const int *in, int *out, int w, int h, int flip)
{
	__shared__ int tile[MAXY][MAXX + 1];
	int x = threadIdx.x, y = threadIdx.y;
	int gx = blockIdx.x * blockDim.x + x, gy = blockIdx.y * blockDim.y + y;
	int v = gx < w && gy < h ? in[gy * w + gx] : -1;
	int keep = v * 3 + y;
	int u;

	tile[y][x] = v;
	__syncthreads();
	if (flip)
		u = tile[blockDim.y - 1 - y][x];
	else
		u = tile[y][blockDim.x - 1 - x];
	__syncthreads();
	tile[y][x] = u + keep;
	__syncthreads();
	if (gx < w && gy < h)
		out[gy * w + gx] = tile[y][(x + 1) % blockDim.x] ^ (y << 8);
}

/* What stage computes, thread by thread, block by block. */
static void reference(const int *in, int *out, int w, int h, int flip, dim3 b)
{
	static int tile[MAXY][MAXX + 1], next[MAXY][MAXX + 1];
	unsigned bx, by, x, y;

	for (by = 0; by * b.y < (unsigned)h; by++)
		for (bx = 0; bx * b.x < (unsigned)w; bx++) {
			for (y = 0; y < b.y; y++)
				for (x = 0; x < b.x; x++) {
					unsigned gx = bx * b.x + x, gy = by * b.y + y;

					tile[y][x] = gx < (unsigned)w && gy < (unsigned)h ?
						in[gy * w + gx] : -1;
				}
			for (y = 0; y < b.y; y++)
				for (x = 0; x < b.x; x++)
					next[y][x] = (flip ? tile[b.y - 1 - y][x] : tile[y][b.x - 1 - x]) +
						tile[y][x] * 3 + (int)y;
			for (y = 0; y < b.y; y++)
				for (x = 0; x < b.x; x++) {
					unsigned gx = bx * b.x + x, gy = by * b.y + y;

					if (gx < (unsigned)w && gy < (unsigned)h)
						out[gy * w + gx] = next[y][(x + 1) % b.x] ^ (int)(y << 8);
				}
		}
}

static void run(const int *din, int *dout, const int *hin, dim3 b, int flip)
{
	int got[W * H], want[W * H];
	dim3 grid((W + b.x - 1) / b.x, (H + b.y - 1) / b.y);
	char what[64];

	CK(cudaMemset(dout, 0, sizeof(got)));
	stage<<<grid, b>>>(din, dout, W, H, flip);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	reference(hin, want, W, H, flip, b);
	snprintf(what, sizeof(what), "%ux%u blocks, flip %d", b.x, b.y, flip);
	check_array(what, got, want, W * H);
}

int main(void)
{
	static int hin[W * H];
	/* 11 rows: a call of eight parts, then one of three; 6 rows of 40:
	 * three groups a row, the last of 8 lanes; 7 threads a row: less than
	 * a group */
	const dim3 shapes[] = { dim3(16, 11), dim3(40, 6), dim3(16, 16), dim3(7, 9),
				dim3(48, 1), dim3(32, 3) };
	int *din, *dout;

	for (int i = 0; i < W * H; i++)
		hin[i] = (i * 7919) % 1000 - 500;
	CK(cudaMalloc(&din, sizeof(hin)));
	CK(cudaMalloc(&dout, sizeof(hin)));
	CK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
	for (const dim3 &b : shapes) {
		run(din, dout, hin, b, 0);
		run(din, dout, hin, b, 1);
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
	return verdict("looped_parts");
}
