/*
 * path.c - finding an executable on PATH the way execvp(3) does, for
 * commands that must know the file before running it.
 */
#define _GNU_SOURCE
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
