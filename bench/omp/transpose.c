/*
 * transpose.c - out = in^T for a 4096 x 4096 float matrix: the OpenMP
 * reference of cuda/transpose.cu (in is h rows of w, out w rows of h), in
 * 16 x 16 tiles shared out over the threads.  A tile's rows stay in L1; 32 x 32 tiles measured twice as slow
 * here, their 32 rows 16 KiB apart overflowing the cache's ways.
 */
#define GRID_NAME "transpose"
#include "grid_main.h"

#define TILE 16

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static void tile(const float *restrict in, float *restrict out, int w, int h, int y0, int x0)
{
	int y1 = min_int(y0 + TILE, h), x1 = min_int(x0 + TILE, w);
	int x, y;

	for (x = x0; x < x1; x++)
		for (y = y0; y < y1; y++)
			out[(size_t)x * h + y] = in[(size_t)y * w + x];
}

static void run(void *p)
{
	struct ctx *c = p;
	int x0, y0;

#pragma omp parallel for collapse(2) schedule(static)
	for (y0 = 0; y0 < c->h; y0 += TILE)
		for (x0 = 0; x0 < c->w; x0 += TILE)
			tile(c->in, c->out, c->w, c->h, y0, x0);
}
