/*
 * path.c - finding executables: one on PATH the way execvp(3) does, for
 * commands that must know the file before running it, and anygpu's own
 * directory, beside which its runtime and helpers are built.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "util/strbuf.h"

int cli_which(const char *name, struct strbuf *path)
{
	const char *dirs = getenv("PATH"), *end;

	if (!dirs || !*dirs)
		dirs = "/usr/local/bin:/usr/bin:/bin";
	for (; *dirs; dirs = *end ? end + 1 : end) {
		end = strchrnul(dirs, ':');
		sb_reset(path);
		if (end == dirs)
			sb_adds(path, ".");	/* an empty entry is the current directory */
		else
			sb_add(path, dirs, end - dirs);
		sb_addf(path, "/%s", name);
		if (access(path->buf, X_OK) == 0)
			return 0;
	}
	return -1;
}

int cli_self_dir(struct strbuf *dir)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0)
		return -1;
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	sb_adds(dir, self);
	return 0;
}
