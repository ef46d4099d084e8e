/*
 * run.c - `anygpu run`: runs a CUDA program on anygpu's runtime.
 *
 * The program is exec'ed with <anygpu's directory>/../lib first on
 * LD_LIBRARY_PATH, so that the dynamic loader binds it to anygpu's
 * libcudart.so.13, and with the backend chosen through ANYGPU_* variables.
 * Before that, its ELF file is checked: a program that carries device code
 * but not a dependency on libcudart.so was linked with the static CUDA
 * runtime, which nothing can replace, so the user is told how to rebuild.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/elf.h"
#include "util/strbuf.h"

static const char usage[] =
	"usage: anygpu run [--backend cpu|cuda|remote] [--server ADDR[,ADDR...]]\n"
	"                  [--token TOKEN] [--compress[=LEVEL]] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Runs PROGRAM, an unmodified CUDA program, on anygpu's CUDA runtime: on this\n"
	"machine's CPU, its GPU, or the GPUs of `anygpu serve` daemons.  PROGRAM must\n"
	"use the shared CUDA runtime (nvcc -cudart shared, or build it with\n"
	"`anygpu nvcc`); PROGRAM is looked up on PATH like a shell does.\n"
	"\n"
	"  --backend B    cpu, cuda or remote (sets ANYGPU_BACKEND; by default remote\n"
	"                 when a server is given, else cuda when a GPU is usable,\n"
	"                 else cpu)\n"
	"  --server LIST  the daemons for the remote backend, one device each\n"
	"                 (sets ANYGPU_SERVER); an ADDR is HOST:PORT, tls:HOST:PORT\n"
	"                 or unix:PATH\n"
	"  --token TOKEN  the tenant token for the daemons (sets ANYGPU_TOKEN; prefer\n"
	"                 setting ANYGPU_TOKEN yourself: command lines are visible\n"
	"                 to every user of the machine)\n"
	"  --compress[=LEVEL]  ask the daemons to Zstandard-compress copies, at LEVEL\n"
	"                 1 (fastest, the default) to 19 (sets ANYGPU_COMPRESS); for\n"
	"                 slow links: chunks that do not shrink travel as they are\n"
	"\n"
	"The exit status is PROGRAM's; 1 when PROGRAM cannot use anygpu, 2 for a\n"
	"usage error, 126 when PROGRAM cannot be executed, 127 when it is not found.\n";

struct run_opts {
	const char *backend, *server, *token;
	const char *compress;   /* a Zstandard level, as text */
	int first;              /* index of PROGRAM in argv */
};

/* --compress's LEVEL: 1 to 19. */
static int valid_level(const char *v)
{
	char *end;
	long level = strtol(v, &end, 10);

	return *v && !*end && level >= 1 && level <= 19;
}

/* --compress alone or --compress=LEVEL (not --compress LEVEL: the program
 * could be named like a number). */
static int compress_option(const char *arg, struct run_opts *o)
{
	if (strcmp(arg, "--compress") == 0)
		o->compress = "1";
	else if (strncmp(arg, "--compress=", 11) == 0)
		o->compress = arg + 11;
	else
		return 0;
	return 1;
}

static int valid_backend(const char *b)
{
	return !strcmp(b, "cpu") || !strcmp(b, "cuda") || !strcmp(b, "remote");
}

/* One daemon address: unix:PATH, or [tls:]HOST:PORT with a port 1..65535. */
static int valid_server(const char *item, const char *end)
{
	const char *colon;
	char *stop;
	long port;

	if (!strncmp(item, "unix:", 5))
		return end - item > 5;
	if (!strncmp(item, "tls:", 4))
		item += 4;
	colon = memrchr(item, ':', end - item);
	if (!colon || colon == item)
		return 0;
	errno = 0;
	port = strtol(colon + 1, &stop, 10);
	return stop == end && colon + 1 != end && !errno && port >= 1 && port <= 65535;
}

/* A comma-separated list of daemon addresses. */
static int valid_servers(const char *list)
{
	const char *item = list, *end;

	for (;;) {
		end = strchr(item, ',');
		if (!end)
			end = item + strlen(item);
		if (!valid_server(item, end))
			return 0;
		if (!*end)
			return 1;
		item = end + 1;
	}
}

static int parse(int argc, char **argv, struct run_opts *o)
{
	const struct { const char *name; const char **value; } opts[] = {
		{ "--backend", &o->backend },
		{ "--server", &o->server },
		{ "--token", &o->token },
	};
	const char *v = NULL;
	int i, missing = 0;
	size_t k;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (compress_option(argv[i], o))
			continue;
		for (k = 0, v = NULL; k < sizeof(opts) / sizeof(opts[0]) && !v && !missing; k++)
			if ((v = cli_option(argc, argv, &i, opts[k].name, &missing)))
				*opts[k].value = v;
		if (missing)
			return cli_usage("run", "%s needs a value", argv[i]);
		if (!v)
			return cli_usage("run", "unknown option %s (see anygpu run --help)", argv[i]);
	}
	if (o->backend && !valid_backend(o->backend))
		return cli_usage("run", "--backend must be cpu, cuda or remote, not '%s'", o->backend);
	if (o->compress && !valid_level(o->compress))
		return cli_usage("run", "--compress wants a level from 1 to 19, not '%s'", o->compress);
	if (o->server && !valid_servers(o->server))
		return cli_usage("run", "--server wants HOST:PORT, tls:HOST:PORT or unix:PATH (comma-separated), not '%s'", o->server);
	if (i >= argc)
		return cli_usage("run", "no program to run (see anygpu run --help)");
	o->first = i;
	return 0;
}

/* PROGRAM as execvp would find it, into path; 127 when there is none. */
static int resolve(const char *prog, struct strbuf *path)
{
	if (strchr(prog, '/')) {
		sb_adds(path, prog);
		if (access(prog, F_OK) == 0)
			return 0;
		cli_error("run", "%s: %s", prog, strerror(errno));
		return 127;
	}
	if (cli_which(prog, path) == 0)
		return 0;
	cli_error("run", "%s: command not found", prog);
	return 127;
}

static int is_script(const char *path)
{
	char head[2];
	FILE *f = fopen(path, "rb");
	int script;

	if (!f)
		return 0;
	script = fread(head, 1, 2, f) == 2 && head[0] == '#' && head[1] == '!';
	fclose(f);
	return script;
}

/* 0 when the program may run on anygpu's libcudart, else the exit status.
 * A script is let through: what it starts inherits the environment. */
static int check_program(const char *path)
{
	struct elf_file f = { 0 };
	uint64_t size;
	char err[512];
	int needs, device_code;

	if (is_script(path))
		return 0;
	if (elf_open(&f, path, err, sizeof(err)) < 0)
		return cli_error("run", "%s", err);
	needs = elf_needs(&f, "libcudart.so", err, sizeof(err));
	device_code = elf_section(&f, ".nv_fatbin", &size) || elf_section(&f, "__nv_relfatbin", &size);
	elf_close(&f);
	if (needs < 0)
		return cli_error("run", "%s: %s", path, err);
	if (!needs && device_code)
		return cli_error("run", "%s was linked with the static CUDA runtime, which anygpu cannot "
				 "replace.\nRebuild it with the shared runtime: add `-cudart shared` to nvcc's "
				 "command line, or build with `anygpu nvcc`.", path);
	return 0;
}

/* <directory of this executable>/../lib, where libcudart.so.13 is built. */
static int find_libdir(struct strbuf *dir)
{
	char *real;

	if (cli_self_dir(dir))
		return cli_error("run", "cannot find the anygpu executable: %s", strerror(errno));
	sb_adds(dir, "/../lib");
	real = realpath(dir->buf, NULL);
	if (real) {
		sb_reset(dir);
		sb_adds(dir, real);
		free(real);
	}
	sb_adds(dir, "/libcudart.so.13");
	if (access(dir->buf, R_OK) < 0)
		return cli_error("run", "anygpu's runtime %s is missing: %s", dir->buf, strerror(errno));
	dir->len -= strlen("/libcudart.so.13");
	dir->buf[dir->len] = 0;
	return 0;
}

static void set_environment(const struct run_opts *o, const char *libdir)
{
	const char *old = getenv("LD_LIBRARY_PATH");
	struct strbuf path = STRBUF_INIT;

	sb_adds(&path, libdir);
	if (old && *old)
		sb_addf(&path, ":%s", old);
	setenv("LD_LIBRARY_PATH", path.buf, 1);
	sb_free(&path);
	if (o->backend)
		setenv("ANYGPU_BACKEND", o->backend, 1);
	if (o->server)
		setenv("ANYGPU_SERVER", o->server, 1);
	if (o->token)
		setenv("ANYGPU_TOKEN", o->token, 1);
	if (o->compress)
		setenv("ANYGPU_COMPRESS", o->compress, 1);
}

static int run(int argc, char **argv)
{
	struct strbuf path = STRBUF_INIT, libdir = STRBUF_INIT;
	struct run_opts o = { 0 };
	int ret;

	ret = parse(argc, argv, &o);
	if (!ret)
		ret = resolve(argv[o.first], &path);
	if (!ret)
		ret = check_program(path.buf);
	if (!ret)
		ret = find_libdir(&libdir);
	if (!ret) {
		set_environment(&o, libdir.buf);
		execv(path.buf, argv + o.first);
		cli_error("run", "cannot execute %s: %s", path.buf, strerror(errno));
		ret = 126;
	}
	sb_free(&path);
	sb_free(&libdir);
	return ret;
}

const struct command cmd_run = {
	.name = "run",
	.summary = "run a CUDA program on anygpu (CPU, local GPU or remote GPU)",
	.usage = usage,
	.run = run,
};
