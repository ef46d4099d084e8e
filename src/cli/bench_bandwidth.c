/*
 * bench_bandwidth.c - `anygpu bench bandwidth`: copies host to device,
 * device to host and device to device, from pageable and pinned host
 * memory, over a range of sizes, like CUDA's bandwidthTest; on the remote
 * backend, next to raw bytes between the same endpoints, interleaved
 * sample by sample so that a busy machine's noise hits both alike.
 */
#include "cli/bench_tool.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 32
#define MAX_REPS 1000

enum { PAGEABLE = 1, PINNED = 2 };

struct opts {
	uint64_t sizes[MAX_SIZES];
	int nsizes;
	int memory;                     /* PAGEABLE | PINNED */
};

/* A size: digits with an optional K, M or G (binary multiples). */
static uint64_t parse_size(const char *s, size_t len)
{
	char buf[32], *end;
	unsigned long long v;
	int shift = 0;

	if (!len || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	v = strtoull(buf, &end, 10);
	if (end == buf)
		return 0;
	switch (*end) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	}
	if (*end || v > (1ull << 40) >> shift)
		return 0;
	return (uint64_t)v << shift;
}

static void parse_sizes(struct opts *o, const char *list)
{
	o->nsizes = 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");

		if (o->nsizes == MAX_SIZES || !(o->sizes[o->nsizes++] = parse_size(p, len)))
			bench_usage("--sizes wants up to %d sizes like 1M,16M,64M,256M, not '%s'",
				    MAX_SIZES, list);
		p += len;
		if (!*p)
			break;
	}
}

static void parse(struct bench *b, struct opts *o, int argc, char **argv)
{
	const char *sizes = NULL;

	o->memory = PAGEABLE | PINNED;
	for (int i = 1; i < argc; i++) {
		if (bench_common_option(b, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--pageable"))
			o->memory = PAGEABLE;
		else if (!strcmp(argv[i], "--pinned"))
			o->memory = PINNED;
		else if (!strcmp(argv[i], "--both"))
			o->memory = PAGEABLE | PINNED;
		else if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
			sizes = argv[++i];
		else
			bench_usage("bandwidth: unknown option %s", argv[i]);
	}
	parse_sizes(o, sizes ? sizes : b->quick ? "64K,1M" : "1M,16M,64M,256M");
	if (!b->reps)
		b->reps = b->quick ? 1 : 5;
	if (b->reps > MAX_REPS)
		bench_usage("--reps is at most %d", MAX_REPS);
}

/* One line of the table: its samples, and the reference's. */
struct row {
	const char *direction, *memory;
	enum cudaMemcpyKind kind;
	char *host;                     /* NULL: device to device */
	double *gbs, *raw;              /* raw NULL: no reference */
};

/* The buffers of one size: two device ranges, pageable and pinned host
 * memory, and where the read-back lands. */
struct buffers {
	uint64_t n;
	void *dev[2];
	char *pageable, *pinned, *back;
};

static void buffers_alloc(struct buffers *m, uint64_t n, int memory)
{
	m->n = n;
	bench_check(cudaMalloc(&m->dev[0], n), "cudaMalloc");
	bench_check(cudaMalloc(&m->dev[1], n), "cudaMalloc");
	m->pageable = xmalloc(n);
	m->back = xmalloc(n);
	m->pinned = NULL;
	if (memory & PINNED)
		bench_check(cudaMallocHost((void **)&m->pinned, n), "cudaMallocHost");
}

static void buffers_free(struct buffers *m)
{
	bench_check(cudaFree(m->dev[0]), "cudaFree");
	bench_check(cudaFree(m->dev[1]), "cudaFree");
	if (m->pinned)
		bench_check(cudaFreeHost(m->pinned), "cudaFreeHost");
	free(m->pageable);
	free(m->back);
}

/* The data must arrive: a pattern up, across, and back down, once from
 * each host memory measured (this also touches every page before timing). */
static void verify(struct buffers *m, char *host)
{
	for (uint64_t i = 0; i < m->n; i++)
		host[i] = (char)(i * 131 + (i >> 20));
	memset(m->back, 0, m->n);
	bench_check(cudaMemcpy(m->dev[0], host, m->n, cudaMemcpyHostToDevice), "cudaMemcpy HtoD");
	bench_check(cudaMemcpy(m->dev[1], m->dev[0], m->n, cudaMemcpyDeviceToDevice),
		    "cudaMemcpy DtoD");
	bench_check(cudaMemcpy(m->back, m->dev[1], m->n, cudaMemcpyDeviceToHost), "cudaMemcpy DtoH");
	if (memcmp(m->back, host, m->n)) {
		fprintf(stderr, "anygpu bench: the data read back differs from the data sent "
			"(%llu bytes)\n", (unsigned long long)m->n);
		exit(1);
	}
}

/* GB/s of one copy; a device-to-device copy is waited for (cudaMemcpy
 * does not wait for it on a GPU). */
static double copy_rate(const struct buffers *m, const struct row *r)
{
	void *dst = r->kind == cudaMemcpyHostToDevice ? m->dev[0] : r->host ? r->host : m->dev[1];
	const void *src = r->kind == cudaMemcpyDeviceToHost ? m->dev[0] : r->host ? r->host : m->dev[0];
	double t0 = bench_now();

	bench_check(cudaMemcpy(dst, src, m->n, r->kind), "cudaMemcpy");
	if (r->kind == cudaMemcpyDeviceToDevice)
		bench_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
	return m->n / (bench_now() - t0) / 1e9;
}

static void print_size(uint64_t n)
{
	if (n % (1u << 20) == 0)
		printf("%6llu MiB", (unsigned long long)(n >> 20));
	else if (n % (1u << 10) == 0)
		printf("%6llu KiB", (unsigned long long)(n >> 10));
	else
		printf("%8llu B", (unsigned long long)n);
}

static void print_row(const struct bench *b, uint64_t n, const struct row *r)
{
	struct spread s = bench_spread(r->gbs, b->reps), raw;

	print_size(n);
	printf("  %-9s %-9s %9.2f %9.2f", r->direction, r->memory, s.hi, s.median);
	if (r->raw) {
		raw = bench_spread(r->raw, b->reps);
		printf(" %9.2f %9.2f %7.0f%% %7.0f%%", raw.hi, raw.median,
		       100 * s.hi / raw.hi, 100 * s.median / raw.median);
	}
	printf("\n");
}

/* The rows of one size, in the order they are measured. */
static int make_rows(struct bench *b, const struct buffers *m, int memory, struct row *rows)
{
	static const char *const dirs[] = { "HtoD", "DtoH" };
	int n = 0;

	for (int mem = PAGEABLE; mem <= PINNED; mem <<= 1) {
		char *host = mem == PAGEABLE ? m->pageable : m->pinned;

		if (!(memory & mem))
			continue;
		for (int d = 0; d < 2; d++) {
			rows[n] = (struct row){ dirs[d], mem == PAGEABLE ? "pageable" : "pinned",
						d ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice,
						host, xcalloc(b->reps, sizeof(double)), NULL };
			if (b->has_ref)
				rows[n].raw = xcalloc(b->reps, sizeof(double));
			n++;
		}
	}
	rows[n++] = (struct row){ "DtoD", "device", cudaMemcpyDeviceToDevice, NULL,
				  xcalloc(b->reps, sizeof(double)), NULL };
	return n;
}

static void measure_size(struct bench *b, uint64_t n, int memory)
{
	struct buffers m;
	struct row rows[5];
	int nrows;

	buffers_alloc(&m, n, memory);
	if (memory & PAGEABLE)
		verify(&m, m.pageable);
	if (m.pinned)
		verify(&m, m.pinned);
	nrows = make_rows(b, &m, memory, rows);
	/* The server's raw buffer for this size is made (and its pages
	 * touched) untimed, as verify() touches the copies' memory. */
	if (b->has_ref)
		bench_ref_rate(b, AG_RAW_SINK, m.back, n);
	for (int i = 0; i < b->reps; i++) {
		for (int r = 0; r < nrows; r++) {
			/* The reference moves the same bytes the same way just before. */
			if (rows[r].raw)
				rows[r].raw[i] = bench_ref_rate(b, rows[r].kind == cudaMemcpyHostToDevice
								 ? AG_RAW_SINK : AG_RAW_SOURCE,
								 rows[r].host, n);
			rows[r].gbs[i] = copy_rate(&m, &rows[r]);
		}
	}
	for (int r = 0; r < nrows; r++) {
		print_row(b, n, &rows[r]);
		free(rows[r].gbs);
		free(rows[r].raw);
	}
	buffers_free(&m);
}

int bench_bandwidth(struct bench *b, int argc, char **argv)
{
	struct opts o;

	parse(b, &o, argc, argv);
	bench_start(b);
	printf("GB/s = 10^9 bytes copied per second of cudaMemcpy, best and median of %d\n",
	       b->reps);
	if (b->has_ref)
		printf("raw: the same bytes on a raw exchange with the server, just before each "
		       "copy,\n     from and into the same host buffer here and a buffer there as "
		       "large as\n     the copy (up to %llu MiB), as the copy's device memory\n",
		       AG_RAW_SPAN >> 20);
	printf("\n");
	printf("      size  direction memory     best GB/s median%s\n",
	       b->has_ref ? "  raw best median  best/raw median/raw" : "");
	for (int i = 0; i < o.nsizes; i++) {
		measure_size(b, o.sizes[i], o.memory);
		fflush(stdout);
	}
	return 0;
}
