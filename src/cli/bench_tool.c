/*
 * bench_tool.c - anygpu-bench's main: the subcommand, the device and
 * backend it measures, the raw reference session, and the helpers the
 * measurements share (clock, errors, spreads).
 */
#include "cli/bench_tool.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void bench_check(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "anygpu bench: %s: %s (%s)\n", what, cudaGetErrorString(e),
		cudaGetErrorName(e));
	exit(1);
}

void bench_usage(const char *fmt, ...)
{
	va_list ap;

	fputs("anygpu bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see anygpu bench --help)\n", stderr);
	exit(2);
}

long bench_count(const char *opt, const char *value)
{
	char *end;
	long v = strtol(value, &end, 10);

	if (end == value || *end || v < 1)
		bench_usage("%s wants a positive number, not '%s'", opt, value);
	return v;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct spread bench_spread(double *v, int n)
{
	qsort(v, n, sizeof(*v), by_value);
	return (struct spread){ v[0], n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[n - 1] };
}

static void ref_failed(struct bench *b, const char *err)
{
	fprintf(stderr, "anygpu bench: raw reference to %s: %s\n", b->server, err);
	exit(1);
}

double bench_ref_rate(struct bench *b, enum ag_raw_mode mode, void *buf, uint64_t n)
{
	char err[256];
	double t0 = bench_now();

	if (ag_raw_run(&b->ref, ++b->ref_id, mode, n, buf, err, sizeof(err)))
		ref_failed(b, err);
	return n / (bench_now() - t0) / 1e9;
}

double bench_ref_round_trip(struct bench *b, uint64_t n)
{
	char err[256];
	double t0 = bench_now();

	if (ag_raw_run(&b->ref, ++b->ref_id, AG_RAW_ECHO, n, NULL, err, sizeof(err)))
		ref_failed(b, err);
	return (bench_now() - t0) / n * 1e6;
}

/* The backend the runtime picks, by its documented rule: ANYGPU_BACKEND,
 * else remote when ANYGPU_SERVER is set (else cuda or cpu, local). */
static int backend_is_remote(void)
{
	const char *backend = getenv("ANYGPU_BACKEND"), *server = getenv("ANYGPU_SERVER");

	if (backend && *backend)
		return !strcmp(backend, "remote");
	return server && *server;
}

/* Device 0 of the remote backend is the first server of ANYGPU_SERVER;
 * the reference is a session of its own there. */
static void open_reference(struct bench *b)
{
	const char *list = getenv("ANYGPU_SERVER");
	char err[300];
	int rc;

	if (!backend_is_remote() || !list)
		return;
	snprintf(b->server, sizeof(b->server), "%.*s", (int)strcspn(list, ","), list);
	if (ag_client_dial(&b->ref, b->server, err, sizeof(err))) {
		ag_conn_close(&b->ref);
		ref_failed(b, err);
	}
	rc = ag_client_hello(&b->ref, getenv("ANYGPU_TOKEN"), 0, NULL, err, sizeof(err));
	if (rc) {
		ag_conn_close(&b->ref);
		ref_failed(b, err);
	}
	b->has_ref = 1;
}

int bench_common_option(struct bench *b, int argc, char **argv, int *i)
{
	if (!strcmp(argv[*i], "--quick")) {
		b->quick = 1;
		return 1;
	}
	if (strcmp(argv[*i], "--reps"))
		return 0;
	if (*i + 1 >= argc)
		bench_usage("--reps needs a value");
	b->reps = (int)bench_count("--reps", argv[++*i]);
	return 1;
}

void bench_start(struct bench *b)
{
	struct cudaDeviceProp p;
	const char *compress = getenv("ANYGPU_COMPRESS");

	bench_check(cudaSetDevice(0), "cudaSetDevice");
	open_reference(b);
	bench_check(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
	printf("device 0: %s", p.name);
	if (b->server[0])
		printf(", remote backend, server %s (raw reference: a second session there)",
		       b->server);
	if (b->server[0] && compress && *compress && strcmp(compress, "0"))
		printf("\ncopies compressed if the server agrees: ANYGPU_COMPRESS=%s (the raw "
		       "reference is not)", compress);
	printf("\n");
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	int rc;

	signal(SIGPIPE, SIG_IGN);
	if (argc < 2 || (strcmp(argv[1], "bandwidth") && strcmp(argv[1], "latency")))
		bench_usage("the first argument is bandwidth or latency");
	if (!strcmp(argv[1], "bandwidth"))
		rc = bench_bandwidth(&b, argc - 1, argv + 1);
	else
		rc = bench_latency(&b, argc - 1, argv + 1);
	if (b.has_ref)
		ag_conn_close(&b.ref);
	return rc;
}
