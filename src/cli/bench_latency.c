/*
 * bench_latency.c - `anygpu bench latency`: the round trip of a
 * synchronous call (an idle stream's query, a 4-byte copy to the host) and
 * the rate of asynchronous launches of an empty kernel, N of them and then
 * one synchronize, and the round trip of one launch of it over many blocks
 * and its synchronize (on the cpu backend, what waking its threads costs);
 * on the remote backend, next to a one-byte ping-pong on a raw exchange
 * with the same server.
 */
#include "cli/bench_tool.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 1000
#define WIDE_BLOCKS 64  /* a grid that every thread of the cpu backend joins */

#ifdef AG_BENCH_KERNEL
/* bench_kernel.cu, built by nvcc: the host stub of an empty kernel. */
const void *bench_nop_kernel(void);
#endif

struct opts {
	long calls;                     /* round trips per sample */
	long launches;                  /* launches per sample */
};

static void parse(struct bench *b, struct opts *o, int argc, char **argv)
{
	*o = (struct opts){ 0 };
	for (int i = 1; i < argc; i++) {
		if (bench_common_option(b, argc, argv, &i))
			continue;
		if (!strcmp(argv[i], "--calls") && i + 1 < argc)
			o->calls = bench_count("--calls", argv[++i]);
		else if (!strcmp(argv[i], "--launches") && i + 1 < argc)
			o->launches = bench_count("--launches", argv[++i]);
		else
			bench_usage("latency: unknown option %s", argv[i]);
	}
	if (!o->calls)
		o->calls = b->quick ? 200 : 10000;
	if (!o->launches)
		o->launches = b->quick ? 1000 : 100000;
	if (!b->reps)
		b->reps = b->quick ? 1 : 5;
	if (b->reps > MAX_REPS)
		bench_usage("--reps is at most %d", MAX_REPS);
}

/* Microseconds per idle stream query. */
static double query_us(cudaStream_t s, long n)
{
	double t0 = bench_now();

	for (long i = 0; i < n; i++)
		bench_check(cudaStreamQuery(s), "cudaStreamQuery");
	return (bench_now() - t0) / n * 1e6;
}

/* Microseconds per 4-byte copy from the device. */
static double copy_us(const void *dev, long n)
{
	double t0 = bench_now();
	int v;

	for (long i = 0; i < n; i++)
		bench_check(cudaMemcpy(&v, dev, sizeof(v), cudaMemcpyDeviceToHost), "cudaMemcpy");
	return (bench_now() - t0) / n * 1e6;
}

#ifdef AG_BENCH_KERNEL
static void launch_nop(unsigned blocks)
{
	dim3 grid = { blocks, 1, 1 }, one = { 1, 1, 1 };
	int x = 0;
	void *args[] = { &x };

	bench_check(cudaLaunchKernel(bench_nop_kernel(), grid, one, args, 0, NULL),
		    "cudaLaunchKernel");
}

/* Microseconds per launch over WIDE_BLOCKS blocks and its synchronize. */
static double wide_launch_us(long n)
{
	double t0 = bench_now();

	for (long i = 0; i < n; i++) {
		launch_nop(WIDE_BLOCKS);
		bench_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after a launch");
	}
	return (bench_now() - t0) / n * 1e6;
}

/* Launches per second, as issued and as completed by the synchronize. */
static void launch_rates(long n, double *issued, double *completed)
{
	double t0 = bench_now(), t1;

	for (long i = 0; i < n; i++)
		launch_nop(1);
	t1 = bench_now();
	bench_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the launches");
	*issued = n / (t1 - t0);
	*completed = n / (bench_now() - t0);
}
#endif

static void print_row(const char *what, const char *unit, double *v, double *raw, int n,
		      int lower_is_better)
{
	struct spread s = bench_spread(v, n), r;

	printf("%-40s %10.1f %10.1f %s", what, lower_is_better ? s.lo : s.hi, s.median, unit);
	if (raw) {
		r = bench_spread(raw, n);
		printf("   raw %8.1f %8.1f %s", r.lo, r.median, unit);
	}
	printf("\n");
}

int bench_latency(struct bench *b, int argc, char **argv)
{
	struct opts o;
	cudaStream_t s;
	void *dev;
	double *query, *copy, *raw, *issued, *completed, *wide;
	int n;

	parse(b, &o, argc, argv);
	bench_start(b);
	n = b->reps;
	query = xcalloc(n, sizeof(double));
	copy = xcalloc(n, sizeof(double));
	raw = b->has_ref ? xcalloc(n, sizeof(double)) : NULL;
	issued = xcalloc(n, sizeof(double));
	completed = xcalloc(n, sizeof(double));
	wide = xcalloc(n, sizeof(double));
	bench_check(cudaStreamCreate(&s), "cudaStreamCreate");
	bench_check(cudaMalloc(&dev, sizeof(int)), "cudaMalloc");
	bench_check(cudaMemset(dev, 0, sizeof(int)), "cudaMemset");
#ifdef AG_BENCH_KERNEL
	launch_nop(1);  /* the module's load (and compilation) is not timed */
	bench_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
#endif
	for (int i = 0; i < n; i++) {
		if (raw)
			raw[i] = bench_ref_round_trip(b, o.calls);
		query[i] = query_us(s, o.calls);
		copy[i] = copy_us(dev, o.calls);
#ifdef AG_BENCH_KERNEL
		launch_rates(o.launches, &issued[i], &completed[i]);
		wide[i] = wide_launch_us(o.calls);
#endif
	}
	printf("best and median of %d; %ld calls per sample%s\n\n", n, o.calls,
	       raw ? "; raw: a one-byte ping-pong on a raw exchange with the server" : "");
	printf("%-40s %10s %10s\n", "", "best", "median");
	print_row("synchronous cudaStreamQuery (idle)", "us", query, raw, n, 1);
	print_row("synchronous cudaMemcpy, 4 B DtoH", "us", copy, raw, n, 1);
#ifdef AG_BENCH_KERNEL
	printf("asynchronous launches of an empty kernel, %ld then cudaDeviceSynchronize:\n",
	       o.launches);
	print_row("  completed", "/s", completed, NULL, n, 0);
	print_row("  issued", "/s", issued, NULL, n, 0);
	printf("synchronous launches of the empty kernel over %d blocks:\n", WIDE_BLOCKS);
	print_row("  launch and cudaDeviceSynchronize", "us", wide, NULL, n, 1);
#else
	printf("asynchronous launches: not measured (anygpu was built without nvcc)\n");
#endif
	bench_check(cudaFree(dev), "cudaFree");
	bench_check(cudaStreamDestroy(s), "cudaStreamDestroy");
	free(query);
	free(copy);
	free(raw);
	free(issued);
	free(completed);
	free(wide);
	return 0;
}
