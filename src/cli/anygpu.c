/*
 * anygpu.c - the `anygpu` command: finds the subcommand named by the first
 * argument in the COMMANDS table and runs it, and answers the help and
 * version requests for all of them.
 *
 * A new command is one file defining `const struct command cmd_NAME` and
 * one X(NAME) line in COMMANDS below.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

#ifndef ANYGPU_VERSION
#define ANYGPU_VERSION "0.1.0"
#endif

#define COMMANDS(X) \
	X(run) \
	X(nvcc) \
	X(inspect) \
	X(serve) \
	X(token) \
	X(bench)

#define DECLARE(name) extern const struct command cmd_##name;
COMMANDS(DECLARE)
#define ENTRY(name) &cmd_##name,
static const struct command *const commands[] = { COMMANDS(ENTRY) };
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char environment[] =
	"Environment (read by anygpu's libcudart inside the program):\n"
	"  ANYGPU_BACKEND    cpu, cuda or remote: where kernels run (default: remote\n"
	"                    when ANYGPU_SERVER is set, else cuda when a GPU is\n"
	"                    usable, else cpu)\n"
	"  ANYGPU_SERVER     comma-separated `anygpu serve` daemons for the remote\n"
	"                    backend (HOST:PORT, tls:HOST:PORT or unix:PATH); each\n"
	"                    server is one device\n"
	"  ANYGPU_TOKEN      the tenant token the remote backend presents\n"
	"  ANYGPU_COMPRESS   1 to 19: ask the servers for Zstandard-compressed copies\n"
	"                    at that level (for slow links; 0 or unset: none)\n"
	"  ANYGPU_TLS_FINGERPRINT  pin the server's certificate (SHA-256, 64 hex\n"
	"                    digits, as `anygpu serve` logs it); TLS is then used on TCP\n"
	"  ANYGPU_TLS_CA     a PEM file of CAs trusted for the server's certificate\n"
	"                    (host name verified); TLS is then used on TCP\n"
	"  ANYGPU_CACHE_DIR  where the cpu backend keeps compiled kernels (default:\n"
	"                    $XDG_CACHE_HOME/anygpu, else ~/.cache/anygpu)\n"
	"  ANYGPU_CC         the C compiler the cpu backend uses (default: cc)\n"
	"  ANYGPU_CPU_GROUPS auto, all or off: which kernels the cpu backend runs\n"
	"                    16 threads at a time as vector code (default: auto)\n"
	"  ANYGPU_THREADS    threads the cpu backend runs blocks on, 1 to 4096\n"
	"                    (default: one per online CPU)\n"
	"  ANYGPU_VERBOSE    set: the cpu backend reports each kernel compilation\n";

static void report(const char *cmd, const char *fmt, va_list ap)
{
	fprintf(stderr, "anygpu %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, fmt, ap);
	va_end(ap);
	return 1;
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cmd, fmt, ap);
	va_end(ap);
	return 2;
}

const char *cli_option(int argc, char **argv, int *i, const char *name, int *missing)
{
	size_t n = strlen(name);
	const char *arg = argv[*i];

	*missing = 0;
	if (strncmp(arg, name, n))
		return NULL;
	if (arg[n] == '=')
		return arg + n + 1;
	if (arg[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = 1;
		return NULL;
	}
	return argv[++*i];
}

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: anygpu [--version] [--help] COMMAND [ARGS...]\n\n"
		"Runs unmodified CUDA programs on this machine's CPU, on its GPU, or on a\n"
		"GPU in another machine.\n\nCommands:\n");
	for (i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "\nanygpu help COMMAND (or anygpu COMMAND --help) describes one.\n\n%s",
		environment);
}

static const struct command *find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static int help(const char *name)
{
	const struct command *c = find(name);

	if (!c) {
		fprintf(stderr, "anygpu: no command '%s' (see anygpu --help)\n", name);
		return 2;
	}
	fputs(c->usage, stdout);
	return 0;
}

static int is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int main(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (is_help(argv[1]) || (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("anygpu %s (CUDA runtime API 13.0)\n", ANYGPU_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "help"))
		return help(argv[2]);
	c = find(argv[1]);
	if (!c) {
		fprintf(stderr, "anygpu: no command '%s' (see anygpu --help)\n", argv[1]);
		return 2;
	}
	if (argc > 2 && is_help(argv[2])) {
		fputs(c->usage, stdout);
		return 0;
	}
	return c->run(argc - 1, argv + 1);
}
