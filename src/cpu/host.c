/*
 * host.c - reads /proc/cpuinfo and /proc/meminfo for the cpu backend: its
 * device name and clock, its memory sizes, and the CPU identity that the
 * compile cache keys on (code built with -march=native runs only there).
 */
#include "cpu/host.h"

#include <stdio.h>
#include <string.h>

/* The value after "field<spaces>:" on the first matching line of path. */
static int proc_field(const char *path, const char *field, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[4096];
	size_t flen = strlen(field);
	int found = 0;

	buf[0] = '\0';
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, field, flen) != 0 || !strchr(" \t:", line[flen]))
			continue;
		char *v = strchr(line + flen, ':');
		if (!v)
			continue;
		v += strspn(v + 1, " \t") + 1;
		v[strcspn(v, "\n")] = '\0';
		snprintf(buf, len, "%s", v);
		found = 1;
	}
	fclose(f);
	return found;
}

char *ag_host_cpuinfo(const char *field, char *buf, size_t len)
{
	proc_field("/proc/cpuinfo", field, buf, len);
	return buf;
}

uint64_t ag_host_meminfo(const char *field)
{
	char buf[64];
	unsigned long long kb;

	if (!proc_field("/proc/meminfo", field, buf, sizeof(buf)) ||
	    sscanf(buf, "%llu", &kb) != 1)
		return 0;
	return (uint64_t)kb * 1024;
}
