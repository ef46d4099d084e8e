/*
 * check.c - compares two result files written by the benchmark programs
 * (common/bench.h's format): same type, same count, and every element
 * within |a - b| <= atol + rtol * |b|, b being the reference.  Integers must
 * match exactly.  Prints one line saying how close they were; exits 0 only
 * when they match, 1 when they differ, 2 when a file cannot be read.
 *
 * usage: check RESULT REFERENCE RTOL ATOL
 */
#include <math.h>
#include "common/bench.h"

struct result {
	struct bench_file h;
	void *data;
};

static int load(const char *path, struct result *r)
{
	FILE *f = fopen(path, "rb");
	int bad;

	if (!f) {
		fprintf(stderr, "check: cannot open %s\n", path);
		return -1;
	}
	bad = fread(&r->h, sizeof(r->h), 1, f) != 1 || r->h.magic != BENCH_MAGIC ||
	      r->h.count > (1ull << 32);
	if (!bad) {
		r->data = malloc(r->h.count * 4 + 1);
		bad = !r->data || fread(r->data, 4, r->h.count, f) != r->h.count;
	}
	fclose(f);
	if (bad)
		fprintf(stderr, "check: %s is not a whole result file\n", path);
	return bad ? -1 : 0;
}

/* Returns the number of elements out of tolerance; reports the worst. */
static uint64_t compare_f32(const float *a, const float *b, uint64_t n, double rtol, double atol)
{
	uint64_t i, bad = 0, worst = 0;
	double excess = -1, d, e;

	for (i = 0; i < n; i++) {
		d = fabs((double)a[i] - b[i]);
		e = d - (atol + rtol * fabs(b[i]));
		if (!(e <= 0))
			bad++;
		if (!(e <= excess)) {
			excess = isnan(e) ? INFINITY : e;
			worst = i;
		}
	}
	if (n)
		printf("%s: %llu of %llu out of tolerance; worst at [%llu]: %.9g vs %.9g\n",
		       bad ? "DIFFER" : "MATCH", (unsigned long long)bad, (unsigned long long)n,
		       (unsigned long long)worst, a[worst], b[worst]);
	return bad;
}

static uint64_t compare_u32(const uint32_t *a, const uint32_t *b, uint64_t n)
{
	uint64_t i, bad = 0, first = n;

	for (i = 0; i < n; i++)
		if (a[i] != b[i] && !bad++)
			first = i;
	if (bad)
		printf("DIFFER: %llu of %llu differ; first at [%llu]: %u vs %u\n",
		       (unsigned long long)bad, (unsigned long long)n,
		       (unsigned long long)first, a[first], b[first]);
	else
		printf("MATCH: all %llu equal\n", (unsigned long long)n);
	return bad;
}

int main(int argc, char **argv)
{
	struct result a, b;
	uint64_t bad = 1;
	int rc = 2;

	a.data = b.data = NULL;
	if (argc != 5) {
		fprintf(stderr, "usage: check RESULT REFERENCE RTOL ATOL\n");
		return 2;
	}
	if (load(argv[1], &a) == 0 && load(argv[2], &b) == 0) {
		if (a.h.type != b.h.type || a.h.count != b.h.count)
			printf("DIFFER: type %u count %llu vs type %u count %llu\n", a.h.type,
			       (unsigned long long)a.h.count, b.h.type,
			       (unsigned long long)b.h.count);
		else if (a.h.type == BENCH_U32)
			bad = compare_u32((const uint32_t *)a.data, (const uint32_t *)b.data, a.h.count);
		else
			bad = compare_f32((const float *)a.data, (const float *)b.data, a.h.count,
					  atof(argv[3]), atof(argv[4]));
		rc = bad ? 1 : 0;
	}
	free(a.data);
	free(b.data);
	return rc;
}
