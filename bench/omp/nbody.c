/*
 * nbody.c - all-pairs gravitational accelerations of 8192 bodies: the
 * OpenMP reference of cuda/nbody.cu.  The bodies are laid out as separate
 * arrays (x, y, z, m) so that the inner loop over j vectorises; 1/r is
 * 1/sqrtf, the CPU's way to an accurate rsqrt.
 */
#include <math.h>
#include "omp_bench.h"

#define SOFT2 0.01f

struct ctx {
	const float *x, *y, *z, *m;
	float *acc;
	int n;
};

static void body(const struct ctx *c, int i)
{
	const float *restrict x = c->x, *restrict y = c->y, *restrict z = c->z, *restrict m = c->m;
	float ax = 0, ay = 0, az = 0;
	int j;

#pragma omp simd reduction(+ : ax, ay, az)
	for (j = 0; j < c->n; j++) {
		float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
		float r2 = dx * dx + dy * dy + dz * dz + SOFT2;
		float inv = 1.0f / sqrtf(r2);
		float s = m[j] * inv * inv * inv;

		ax += dx * s;
		ay += dy * s;
		az += dz * s;
	}
	c->acc[3 * i] = ax;
	c->acc[3 * i + 1] = ay;
	c->acc[3 * i + 2] = az;
}

static void run(void *p)
{
	struct ctx *c = p;
	int i;

#pragma omp parallel for schedule(static)
	for (i = 0; i < c->n; i++)
		body(c, i);
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ctx c;
	float *hpos, *soa, *hacc;
	int n, i;

	bench_parse(&a, argc, argv, 0);
	n = a.small ? 300 : 8192;
	hpos = bench_alloc(4 * n * sizeof(float));
	soa = bench_alloc(4 * n * sizeof(float));
	hacc = bench_alloc(3 * n * sizeof(float));
	bench_fill_f32(hpos, 4 * n, 11, -1, 1);
	for (i = 0; i < n; i++) {
		soa[i] = hpos[4 * i];
		soa[n + i] = hpos[4 * i + 1];
		soa[2 * n + i] = hpos[4 * i + 2];
		soa[3 * n + i] = 0.5f + 0.5f * hpos[4 * i + 3];
	}
	c.x = soa;
	c.y = soa + n;
	c.z = soa + 2 * n;
	c.m = soa + 3 * n;
	c.acc = hacc;
	c.n = n;
	bench_warm_up(&a, run, &c, BENCH_F32, hacc, 3 * n);
	bench_time(&a, "nbody", run, &c, 0, 20.0 * n * n);
	free(hpos);
	free(soa);
	free(hacc);
	return 0;
}
