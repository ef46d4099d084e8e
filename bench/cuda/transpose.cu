/*
 * transpose.cu - out = in^T for a 4096 x 4096 float matrix through a
 * 32 x 33 shared-memory tile (the padding column avoids bank conflicts), so
 * that both the reads and the writes of global memory are coalesced.
 * Blocks of 32 x 8 threads each move four rows of the tile.  The small size
 * of the correctness mode is not square and not a multiple of the tile.
 */
#define GRID_NAME "transpose"
#include "grid_main.h"

#define TILE 32
#define ROWS 8

/* in is h rows of w; out is w rows of h. */
__global__ void transpose(const float *in, float *out, int w, int h)
{
	__shared__ float tile[TILE][TILE + 1];
	int x = blockIdx.x * TILE + threadIdx.x;
	int y = blockIdx.y * TILE + threadIdx.y;
	int j;

	for (j = 0; j < TILE; j += ROWS)
		if (x < w && y + j < h)
			tile[threadIdx.y + j][threadIdx.x] = in[(size_t)(y + j) * w + x];
	__syncthreads();
	x = blockIdx.y * TILE + threadIdx.x;
	y = blockIdx.x * TILE + threadIdx.y;
	for (j = 0; j < TILE; j += ROWS)
		if (x < h && y + j < w)
			out[(size_t)(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

static void run(void *p)
{
	struct ctx *c = (struct ctx *)p;
	dim3 block(TILE, ROWS);
	dim3 grid((c->w + TILE - 1) / TILE, (c->h + TILE - 1) / TILE);

	transpose<<<grid, block>>>(c->in, c->out, c->w, c->h);
}
