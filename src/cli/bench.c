/*
 * bench.c - `anygpu bench bandwidth|latency`: the speed of copies and of
 * calls on any backend, measured by anygpu-bench, a CUDA program that this
 * command runs through `anygpu run` (so it uses anygpu's libcudart with the
 * backend the options pick, like any program).  The options that choose
 * the backend are taken here; the rest go to anygpu-bench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/strbuf.h"

extern const struct command cmd_run;

#define WHERE \
	"  --backend B    cpu, cuda or remote (by default remote when a server is\n" \
	"                 given, else cuda when a GPU is usable, else cpu)\n" \
	"  --server ADDR  HOST:PORT, tls:HOST:PORT or unix:PATH of `anygpu serve`\n" \
	"                 (sets ANYGPU_SERVER; device 0 is its first server)\n" \
	"  --token TOKEN  the tenant token (sets ANYGPU_TOKEN)\n" \
	"  --reps N       samples per figure: the best and the median are shown\n" \
	"                 (default 5; 1 with --quick)\n" \
	"  --quick        small sizes and counts, one sample: a smoke test\n"

#define REFERENCE \
	"On the remote backend each figure is printed next to a raw reference: the\n" \
	"same bytes (or a one-byte ping-pong) on an unframed exchange with the same\n" \
	"server over a second connection, measured sample by sample in the same run\n" \
	"(docs/protocol.md, RAW).\n"

static const char bandwidth_usage[] =
	"usage: anygpu bench bandwidth [--backend B] [--server ADDR] [--token TOKEN]\n"
	"                              [--sizes LIST] [--pinned|--pageable|--both]\n"
	"                              [--reps N] [--quick]\n"
	"\n"
	"Copies host to device, device to host (from pageable or pinned host memory)\n"
	"and device to device with cudaMemcpy, like CUDA's bandwidthTest, after\n"
	"checking that the data arrives intact, and prints GB/s (10^9 bytes/s).\n"
	"\n"
	"  --sizes LIST   sizes in bytes, K, M or G (default 1M,16M,64M,256M;\n"
	"                 64K,1M with --quick)\n"
	"  --pinned, --pageable, --both   host memory measured (default both)\n"
	WHERE "\n" REFERENCE;

static const char latency_usage[] =
	"usage: anygpu bench latency [--backend B] [--server ADDR] [--token TOKEN]\n"
	"                            [--calls N] [--launches N] [--reps N] [--quick]\n"
	"\n"
	"Times synchronous calls (cudaStreamQuery on an idle stream, a 4-byte\n"
	"cudaMemcpy to the host) in microseconds per call, and asynchronous launches\n"
	"of an empty kernel: N launches, then cudaDeviceSynchronize, as launches per\n"
	"second issued and completed; and launches of it over 64 blocks, each followed\n"
	"by cudaDeviceSynchronize, in microseconds per launch (--calls of them).\n"
	"\n"
	"  --calls N      synchronous calls per sample (default 10000; 200 with --quick)\n"
	"  --launches N   launches per sample (default 100000; 1000 with --quick)\n"
	WHERE "\n" REFERENCE;

static const char usage[] =
	"usage: anygpu bench bandwidth|latency [OPTIONS]\n"
	"\n"
	"Measures anygpu's CUDA runtime on any backend: `anygpu bench bandwidth`\n"
	"the speed of copies, `anygpu bench latency` that of calls and launches.\n"
	"`anygpu bench bandwidth --help` and `anygpu bench latency --help` tell\n"
	"their options.  The exit status is 1 when a CUDA call fails or copied data\n"
	"does not arrive intact, 2 for a usage error.\n";

/* <directory of this executable>/../libexec/anygpu-bench */
static int find_tool(struct strbuf *path)
{
	if (cli_self_dir(path))
		return cli_error("bench", "cannot find the anygpu executable: %s", strerror(errno));
	sb_adds(path, "/../libexec/anygpu-bench");
	if (access(path->buf, X_OK) < 0)
		return cli_error("bench", "%s: %s", path->buf, strerror(errno));
	return 0;
}

/* Appends to args: `anygpu run`'s options (--backend, --token), "--",
 * the tool, then the subcommand and its own options.  --server sets
 * ANYGPU_SERVER here: run accepts no unix:PATH.  0, or a usage error. */
static int tool_args(int argc, char **argv, const char *tool, char **args, int *n)
{
	static const char *const for_run[] = { "--backend", "--token" };
	char **own = xcalloc(argc, sizeof(*own));
	int nown = 0;

	for (int i = 2; i < argc; i++) {
		int start = i, missing = 0;
		const char *v = cli_option(argc, argv, &i, "--server", &missing);

		if (v) {
			setenv("ANYGPU_SERVER", v, 1);
			continue;
		}
		for (size_t k = 0; k < 2 && !v && !missing; k++)
			v = cli_option(argc, argv, &i, for_run[k], &missing);
		if (missing) {
			free(own);
			return cli_usage("bench", "%s needs a value", argv[i]);
		}
		if (v)
			while (start <= i)
				args[(*n)++] = argv[start++];
		else
			own[nown++] = argv[i];
	}
	args[(*n)++] = "--";
	args[(*n)++] = (char *)tool;
	args[(*n)++] = argv[1];
	for (int i = 0; i < nown; i++)
		args[(*n)++] = own[i];
	args[*n] = NULL;
	free(own);
	return 0;
}

static int run_tool(int argc, char **argv)
{
	struct strbuf tool = STRBUF_INIT;
	char **args = xcalloc(argc + 4, sizeof(*args));
	int n = 0, ret = find_tool(&tool);

	args[n++] = "run";
	if (!ret)
		ret = tool_args(argc, argv, tool.buf, args, &n);
	if (!ret)
		ret = cmd_run.run(n, args);
	free(args);
	sb_free(&tool);
	return ret;
}

static int bench_run(int argc, char **argv)
{
	int bandwidth = argc > 1 && !strcmp(argv[1], "bandwidth");

	if (argc < 2 || (!bandwidth && strcmp(argv[1], "latency")))
		return cli_usage("bench", "the first argument is bandwidth or latency "
				 "(see anygpu bench --help)");
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(bandwidth ? bandwidth_usage : latency_usage, stdout);
			return 0;
		}
	}
	return run_tool(argc, argv);
}

const struct command cmd_bench = {
	.name = "bench",
	.summary = "measure copies and calls on any backend (bandwidth, latency)",
	.usage = usage,
	.run = bench_run,
};
