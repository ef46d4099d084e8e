/*
 * bench.h - what every benchmark program shares, on both sides: the command
 * line, the deterministic inputs, the result file that bench/check compares,
 * and the one machine-readable line that bench/run.sh reads.  The OpenMP
 * references include it as C, the .cu programs from host code compiled as
 * C++, so it is written in the language both accept.
 *
 * Every program runs its algorithm once untimed (the warm-up; on anygpu it
 * also pays the PTX-to-C compile), writes that run's result with -o, then
 * times -r further runs and prints
 *   BENCH name=N impl=I reps=R median_ms=M min_ms=M bytes=B flops=F
 * where bytes and flops count one run's useful work (one of them may be 0).
 */
#ifndef BENCH_H
#define BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum bench_type { BENCH_F32 = 1, BENCH_U32 = 2 };

#define BENCH_MAGIC 0x31424741u /* "AGB1" */

/* The header of a result file; the elements follow it. */
struct bench_file {
	uint32_t magic;
	uint32_t type;  /* enum bench_type */
	uint64_t count;
};

struct bench_args {
	int small;       /* -s: the small sizes of the correctness mode */
	int host_only;   /* -H (.cu only): make the inputs, then stop; the
			  * baseline of the start-up overhead */
	int reps;        /* -r: timed runs after the warm-up */
	const char *out; /* -o: where the warm-up's result goes */
};

#define BENCH_MAX_REPS 1000

static inline void bench_die(const char *what)
{
	fprintf(stderr, "bench: %s\n", what);
	exit(1);
}

/* device_side: whether -H is accepted (it means nothing to OpenMP). */
static inline void bench_parse(struct bench_args *a, int argc, char **argv, int device_side)
{
	int c;

	a->small = 0;
	a->host_only = 0;
	a->reps = 5;
	a->out = NULL;
	while ((c = getopt(argc, argv, "sHr:o:")) != -1) {
		switch (c) {
		case 's': a->small = 1; break;
		case 'H': a->host_only = 1; break;
		case 'r': a->reps = atoi(optarg); break;
		case 'o': a->out = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-s] [-H] [-r reps] [-o result]\n", argv[0]);
			exit(2);
		}
	}
	if (a->host_only && !device_side)
		bench_die("-H is for the .cu programs");
	if (a->reps < 0 || a->reps > BENCH_MAX_REPS)
		bench_die("-r out of range");
}

static inline void *bench_alloc(size_t bytes)
{
	void *p = malloc(bytes);

	if (!p)
		bench_die("out of memory");
	return p;
}

/* splitmix64: the same stream of numbers on both sides for a given seed. */
static inline uint64_t bench_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi), from the top 24 bits: exact in a float. */
static inline void bench_fill_f32(float *p, size_t n, uint64_t seed, float lo, float hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = lo + (hi - lo) * (float)(bench_next(&seed) >> 40) * (1.0f / 16777216.0f);
}

/* Uniform in [0, bound). */
static inline void bench_fill_u32(uint32_t *p, size_t n, uint64_t seed, uint32_t bound)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint32_t)(bench_next(&seed) % bound);
}

static inline void bench_write(const struct bench_args *a, enum bench_type type,
			       const void *data, size_t count)
{
	struct bench_file h;
	FILE *f;
	int bad;

	if (!a->out)
		return;
	h.magic = BENCH_MAGIC;
	h.type = type;
	h.count = count;
	f = fopen(a->out, "wb");
	if (!f)
		bench_die("cannot create the result file");
	bad = fwrite(&h, sizeof(h), 1, f) != 1 || fwrite(data, 4, count, f) != count;
	if (fclose(f) || bad)
		bench_die("cannot write the result file");
}

static inline int bench_cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* Prints the BENCH line for reps timed runs (ms[] is sorted in place). */
static inline void bench_report(const char *name, const char *impl, double *ms, int reps,
				double bytes, double flops)
{
	double median = 0, min = 0;

	if (reps > 0) {
		qsort(ms, reps, sizeof(*ms), bench_cmp_double);
		median = reps % 2 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2;
		min = ms[0];
	}
	printf("BENCH name=%s impl=%s reps=%d median_ms=%.4f min_ms=%.4f bytes=%.0f flops=%.0f\n",
	       name, impl, reps, median, min, bytes, flops);
	fflush(stdout);
}

#endif
