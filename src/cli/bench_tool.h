/*
 * bench_tool.h - what the parts of anygpu-bench share: the CUDA program
 * that `anygpu bench` runs through `anygpu run`, so that its figures are
 * those of anygpu's libcudart on whatever backend the environment picks.
 * When that backend is remote, a second session to the same server moves
 * raw bytes (AG_OP_RAW) as the reference, in the same run.
 */
#ifndef AG_BENCH_TOOL_H
#define AG_BENCH_TOOL_H

#include "protocol/conn.h"

#include <cuda_runtime_api.h>
#include <stdint.h>

struct bench {
	int reps;                       /* samples per figure */
	int quick;                      /* smallest sizes and counts */
	char server[256];               /* the remote backend's server, or "" */
	struct ag_conn ref;             /* the raw reference session */
	int has_ref;
	uint64_t ref_id;
};

/* After the options: opens device 0 and, when the backend is remote, the
 * reference session, and prints what is measured. */
void bench_start(struct bench *b);
/* Options every subcommand takes (--reps N, --quick): 1 when argv[*i] was
 * one (*i then moves past its value), else 0. */
int bench_common_option(struct bench *b, int argc, char **argv, int *i);

/* Seconds on a monotonic clock. */
double bench_now(void);

/* Exits with a message naming what failed when e is not cudaSuccess. */
void bench_check(cudaError_t e, const char *what);
/* Exits with a usage message (status 2). */
void bench_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* The positive integer of option opt's value; a usage error otherwise. */
long bench_count(const char *opt, const char *value);

/* The smallest, the median and the largest of n samples (reordered). */
struct spread {
	double lo, median, hi;
};
struct spread bench_spread(double *v, int n);

/* The reference (remote backend only; callers check b->has_ref): GB/s of
 * n bytes sent from buf (AG_RAW_SINK) or received into it (AG_RAW_SOURCE),
 * and microseconds per one-byte round trip. */
double bench_ref_rate(struct bench *b, enum ag_raw_mode mode, void *buf, uint64_t n);
double bench_ref_round_trip(struct bench *b, uint64_t n);

/* The subcommands: argv[0] is the subcommand's name; the exit status. */
int bench_bandwidth(struct bench *b, int argc, char **argv);
int bench_latency(struct bench *b, int argc, char **argv);

#endif
