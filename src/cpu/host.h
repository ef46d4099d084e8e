/*
 * host.h - facts about the machine the cpu backend runs on, read from
 * /proc: what the CPU is and how much memory there is.
 */
#ifndef AG_CPU_HOST_H
#define AG_CPU_HOST_H

#include <stddef.h>
#include <stdint.h>

/* The value of the first "field : value" line of /proc/cpuinfo, or "" when
 * there is none.  Returns buf. */
char *ag_host_cpuinfo(const char *field, char *buf, size_t len);

/* A /proc/meminfo value ("MemTotal", "MemAvailable") in bytes, 0 if absent. */
uint64_t ag_host_meminfo(const char *field);

#endif
