/*
 * nvcc.c - `anygpu nvcc`: nvcc with the two things anygpu needs from a
 * build, added only when the command line does not already decide them:
 * the shared CUDA runtime (-cudart shared), and PTX in the fatbin (nvcc
 * embeds none when every target is machine code, code=sm_XX).
 *
 * How the architecture options are read: -arch/--gpu-architecture alone
 * embeds PTX (sm_XX means compute_XX plus sm_XX); -code/--gpu-code and
 * -gencode/--generate-code embed PTX only for a code=compute_XX.  When no
 * PTX would be embedded, one -gencode arch=compute_XX,code=compute_XX is
 * added for the highest virtual architecture named, so that the PTX is the
 * newest the sources were meant for.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/strbuf.h"

/* nvcc 13's lowest architecture (nvcc --list-gpu-arch). */
#define LOWEST_ARCH 75

static const char usage[] =
	"usage: anygpu nvcc [--verbose] NVCC-ARGS...\n"
	"\n"
	"Runs nvcc so that the program it builds runs on anygpu: adds\n"
	"`-cudart shared` unless a -cudart option is given, `-arch=sm_75` when no\n"
	"architecture is given, and `-gencode arch=compute_XX,code=compute_XX` (XX\n"
	"the highest architecture named) when the options given embed machine code\n"
	"only, so that the fatbin carries PTX.  nvcc is $CUDA_HOME/bin/nvcc, else\n"
	"nvcc on PATH, else /usr/local/cuda/bin/nvcc.\n"
	"\n"
	"  --verbose  print the final nvcc command line on stderr (nvcc gets the\n"
	"             option too, and lists the steps it runs)\n"
	"\n"
	"The exit status is nvcc's.\n";

/* What the command line already says. */
struct plan {
	int cudart;             /* some -cudart option */
	int arch;               /* some -arch, -code or -gencode */
	int ptx;                /* PTX will be embedded */
	int code;               /* some -code: -arch alone no longer implies PTX */
	int arch_ptx;           /* -arch's value embeds PTX by itself */
	unsigned top;           /* highest architecture number named */
	const char *cudart_kind;
	int verbose;
};

/* The value of any of names at argv[*i] ("-x=v" or "-x v"), else NULL. */
static const char *value_of(int argc, char **argv, int *i, const char *const *names)
{
	const char *v;
	int missing;

	for (; *names; names++) {
		v = cli_option(argc, argv, i, *names, &missing);
		if (v)
			return v;
	}
	return NULL;
}

/* The highest number after "sm_", "compute_" or "lto_" in s. */
static unsigned highest_arch(const char *s)
{
	unsigned top = 0, n;
	const char *p;

	for (p = s; *p; p++) {
		if (p > s && ((p[-1] >= 'a' && p[-1] <= 'z') || p[-1] == '_'))
			continue;
		if (sscanf(p, "sm_%u", &n) == 1 || sscanf(p, "compute_%u", &n) == 1 ||
		    sscanf(p, "lto_%u", &n) == 1)
			top = n > top ? n : top;
	}
	return top;
}

static void note_arch(struct plan *pl, const char *v)
{
	unsigned n = highest_arch(v);

	pl->arch = 1;
	pl->top = n > pl->top ? n : pl->top;
}

static void read_args(int argc, char **argv, struct plan *pl)
{
	static const char *const cudart[] = { "-cudart", "--cudart", NULL };
	static const char *const arch[] = { "-arch", "--gpu-architecture", NULL };
	static const char *const code[] = { "-code", "--gpu-code", NULL };
	static const char *const gencode[] = { "-gencode", "--generate-code", NULL };
	const char *v, *c;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
			pl->verbose = 1;
		} else if ((v = value_of(argc, argv, &i, cudart))) {
			pl->cudart = 1;
			pl->cudart_kind = v;
		} else if ((v = value_of(argc, argv, &i, arch))) {
			note_arch(pl, v);
			/* sm_XX, compute_XX, all, all-major, native: all give PTX */
			pl->arch_ptx = 1;
		} else if ((v = value_of(argc, argv, &i, code))) {
			note_arch(pl, v);
			pl->code = 1;
			pl->ptx |= strstr(v, "compute_") != NULL;
		} else if ((v = value_of(argc, argv, &i, gencode))) {
			c = strstr(v, "code=");
			while (c && c > v && c[-1] != ',')
				c = strstr(c + 1, "code=");
			note_arch(pl, v);
			pl->ptx |= c && strstr(c, "compute_");
		}
	}
	if (pl->arch_ptx && !pl->code)
		pl->ptx = 1;
}

/* $CUDA_HOME/bin/nvcc, else nvcc on PATH, else the toolkit's default. */
static void find_nvcc(struct strbuf *nvcc)
{
	const char *home = getenv("CUDA_HOME");

	if (home && *home) {
		sb_addf(nvcc, "%s/bin/nvcc", home);
		if (access(nvcc->buf, X_OK) == 0)
			return;
	}
	if (cli_which("nvcc", nvcc) == 0)
		return;
	sb_reset(nvcc);
	sb_adds(nvcc, "/usr/local/cuda/bin/nvcc");
}

static void print_command(char **args)
{
	fputs("anygpu nvcc:", stderr);
	for (; *args; args++)
		fprintf(stderr, " %s", *args);
	fputc('\n', stderr);
}

static int nvcc(int argc, char **argv)
{
	struct plan pl = { 0 };
	struct strbuf path = STRBUF_INIT, extra = STRBUF_INIT;
	char **args = xcalloc(argc + 8, sizeof(*args));
	int n = 0, i;

	read_args(argc, argv, &pl);
	find_nvcc(&path);
	args[n++] = path.buf;
	for (i = 1; i < argc; i++)
		args[n++] = argv[i];
	if (!pl.cudart) {
		args[n++] = "-cudart";
		args[n++] = "shared";
	} else if (strcmp(pl.cudart_kind, "shared")) {
		fprintf(stderr, "anygpu nvcc: warning: -cudart %s: anygpu runs only programs "
			"that use the shared CUDA runtime\n", pl.cudart_kind);
	}
	if (!pl.arch) {
		sb_addf(&extra, "-arch=sm_%d", LOWEST_ARCH);
		args[n++] = extra.buf;
	} else if (!pl.ptx) {
		sb_addf(&extra, "arch=compute_%u,code=compute_%u",
			pl.top ? pl.top : LOWEST_ARCH, pl.top ? pl.top : LOWEST_ARCH);
		args[n++] = "-gencode";
		args[n++] = extra.buf;
	}
	if (pl.verbose)
		print_command(args);
	execv(path.buf, args);
	cli_error("nvcc", "cannot run %s: %s (set CUDA_HOME or PATH)", path.buf, strerror(errno));
	free(args);
	sb_free(&path);
	sb_free(&extra);
	return 127;
}

const struct command cmd_nvcc = {
	.name = "nvcc",
	.summary = "build a CUDA program for anygpu (nvcc with -cudart shared and PTX)",
	.usage = usage,
	.run = nvcc,
};
