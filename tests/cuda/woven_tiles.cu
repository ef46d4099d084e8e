/*
 * woven_tiles: tiled products after a barrier, which the cpu engine runs
 * with a call's eight rows of sixteen threads side by side (weave.c),
 * reading one copy of what every row reads the same when the block is
 * sixteen threads wide.  Blocks 16 wide (the rows share threadIdx.x) and
 * 32 wide (they do not), sizes that are multiples of the tile (every lane
 * of a call runs) and sizes that are not; with scale, each product is
 * weighted by the thread's row in its block, made after the barrier, so
 * that no row may take another's.  Entries are small integers: every sum
 * is exact in float.
 */
#include "matmul.h"

/* C = A * B (m x k by k x n) with W x W tiles, blocks of W x H threads,
 * each moving W / H rows of each tile; with scale, each product times
 * threadIdx.y + 1. */
template <int W, int H>
__global__ void matmul(const float *a, const float *b, float *c, int m, int n, int k, int scale)
{
	__shared__ float ta[W][W];
	__shared__ float tb[W][W];
	int tx = threadIdx.x, ty = threadIdx.y;
	int col = blockIdx.x * W + tx;
	float sum[W / H];

	for (int r = 0; r < W / H; r++)
		sum[r] = 0;
	for (int t = 0; t < k; t += W) {
		for (int r = 0; r < W; r += H) {
			int row = blockIdx.y * W + ty + r;
			ta[ty + r][tx] = row < m && t + tx < k ? a[row * k + t + tx] : 0;
			tb[ty + r][tx] = t + ty + r < k && col < n ? b[(t + ty + r) * n + col] : 0;
		}
		__syncthreads();
		float f = scale ? (float)(ty + 1) : 1.0f;
		for (int r = 0; r < W / H; r++)
			for (int i = 0; i < W; i++)
				sum[r] += ta[ty + r * H][i] * tb[i][tx] * f;
		__syncthreads();
	}
	for (int r = 0; r < W / H; r++) {
		int row = blockIdx.y * W + ty + r * H;
		if (row < m && col < n)
			c[row * n + col] = sum[r];
	}
}

template <int W, int H>
static void run(int m, int n, int k, int scale)
{
	struct matmul_case p;
	char what[96];

	matmul_begin(&p, m, n, k, scale ? W : 0, H);
	matmul<W, H><<<dim3((n + W - 1) / W, (m + W - 1) / W), dim3(W, H)>>>(p.da, p.db, p.dc, m, n,
									  k, scale);
	snprintf(what, sizeof(what), "%d x %d by %d x %d, blocks %d x %d%s", m, k, k, n, W, H,
		 scale ? ", weighted by row" : "");
	matmul_end(&p, what);
}

int main()
{
	for (int scale = 0; scale < 2; scale++) {
		run<16, 16>(64, 48, 80, scale);
		run<16, 16>(70, 45, 83, scale);
		run<16, 8>(64, 32, 48, scale);
		run<32, 8>(64, 64, 64, scale);
		run<32, 8>(50, 70, 40, scale);
	}
	return verdict("woven_tiles");
}
