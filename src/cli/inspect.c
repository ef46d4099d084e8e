/*
 * inspect.c - `anygpu inspect`: what device code a program carries, as
 * anygpu's runtime will see it: each fatbin entry of its .nv_fatbin and
 * __nv_relfatbin sections (kind, architecture, storage), and with --ptx
 * the PTX text itself.  It answers "why does anygpu say this program has
 * no PTX?" without NVIDIA's cuobjdump.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/elf.h"
#include "fatbin/fatbin.h"

static const char usage[] =
	"usage: anygpu inspect [--ptx] PROGRAM\n"
	"\n"
	"Lists the device code in PROGRAM (an executable, shared library or object\n"
	"file built by nvcc): one line per fatbin entry, PTX or machine code (ELF),\n"
	"with its architecture and how it is stored.\n"
	"\n"
	"  --ptx  print the text of every PTX entry instead\n";

static const char *const sections[] = { ".nv_fatbin", "__nv_relfatbin" };

struct listing {
	int ptx_text;           /* --ptx */
	const char *section;
	int count;
	char err[512];
};

static const char *storage(const struct fatbin_entry *e)
{
	if (e->flags & FATBIN_FLAG_ZSTD)
		return "zstd";
	if (e->flags & FATBIN_FLAG_LZ4)
		return "lz4";
	return "plain";
}

static void list_entry(const struct fatbin_entry *e, const char *section)
{
	if (e->kind == FATBIN_PTX)
		printf("%s: PTX compute_%u (PTX ISA %u.%u), %s", section, e->sm_arch,
		       e->ptx_major, e->ptx_minor, storage(e));
	else
		printf("%s: ELF sm_%u, %s", section, e->sm_arch, storage(e));
	if (e->flags & (FATBIN_FLAG_ZSTD | FATBIN_FLAG_LZ4))
		printf(", %llu bytes from %llu\n", (unsigned long long)e->uncompressed_size,
		       (unsigned long long)e->payload_size);
	else
		printf(", %llu bytes\n", (unsigned long long)e->payload_size);
}

static int show(const struct fatbin_entry *e, void *ctx)
{
	struct listing *l = ctx;
	uint8_t *text;
	uint64_t len;

	l->count++;
	if (!l->ptx_text) {
		list_entry(e, l->section);
		return 0;
	}
	if (e->kind != FATBIN_PTX)
		return 0;
	if (fatbin_entry_data(e, &text, &len, l->err, sizeof(l->err)) < 0)
		return -1;
	printf("// anygpu inspect: %s, PTX compute_%u\n%s\n", l->section, e->sm_arch, (char *)text);
	free(text);
	return 0;
}

static int inspect(int argc, char **argv)
{
	struct listing l = { 0 };
	struct elf_file f = { 0 };
	const uint8_t *data;
	const char *prog;
	uint64_t size;
	size_t i;
	int ret = 0;

	if (argc == 3 && !strcmp(argv[1], "--ptx"))
		l.ptx_text = 1;
	else if (argc != 2 || argv[1][0] == '-')
		return cli_usage("inspect", "usage: anygpu inspect [--ptx] PROGRAM");
	prog = argv[argc - 1];
	if (elf_open(&f, prog, l.err, sizeof(l.err)) < 0)
		return cli_error("inspect", "%s", l.err);
	for (i = 0; i < sizeof(sections) / sizeof(sections[0]) && !ret; i++) {
		data = elf_section(&f, sections[i], &size);
		l.section = sections[i];
		if (data && fatbin_walk(data, size, show, &l, l.err, sizeof(l.err)))
			ret = cli_error("inspect", "%s: %s: %s", prog, sections[i], l.err);
	}
	elf_close(&f);
	if (!ret && !l.count)
		ret = cli_error("inspect", "%s carries no device code", prog);
	return ret;
}

const struct command cmd_inspect = {
	.name = "inspect",
	.summary = "list the PTX and machine code a CUDA program carries",
	.usage = usage,
	.run = inspect,
};
