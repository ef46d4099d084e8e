/*
 * memtable.c - the runtime's table of allocation ranges.
 *
 * cudaMemcpyDefault, cudaPointerGetAttributes, pinned-memory copies and the
 * checks that turn a bad pointer into an error code instead of a crash all
 * ask one question: what is this address?  The table answers it from every
 * range the runtime handed out or was told about, kept sorted by base
 * address for a binary search.
 */
#include "rt.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/sorted.h"
#include "util/strbuf.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct rt_range *ranges;
static size_t nranges, cap;

/* Index of the first range whose base is above p. */
static size_t upper_bound(uintptr_t p)
{
	return ag_upper_bound(ranges, nranges, sizeof(*ranges), offsetof(struct rt_range, base), p);
}

void rt_mem_add(const struct rt_range *r)
{
	size_t i;

	pthread_mutex_lock(&lock);
	if (nranges == cap) {
		cap = cap ? cap * 2 : 64;
		ranges = xrealloc(ranges, cap * sizeof(*ranges));
	}
	i = upper_bound(r->base);
	memmove(&ranges[i + 1], &ranges[i], (nranges - i) * sizeof(*ranges));
	ranges[i] = *r;
	nranges++;
	pthread_mutex_unlock(&lock);
}

/* Index of the range that contains p, or -1. */
static long containing(uintptr_t p)
{
	size_t i = upper_bound(p);

	return i > 0 && p - ranges[i - 1].base < ranges[i - 1].size ? (long)i - 1 : -1;
}

int rt_mem_find(const void *p, struct rt_range *out)
{
	long i;

	pthread_mutex_lock(&lock);
	i = containing((uintptr_t)p);
	if (i >= 0)
		*out = ranges[i];
	pthread_mutex_unlock(&lock);
	return i >= 0;
}

int rt_mem_remove(const void *base, struct rt_range *out)
{
	long i;

	pthread_mutex_lock(&lock);
	i = containing((uintptr_t)base);
	if (i >= 0 && ranges[i].base == (uintptr_t)base) {
		*out = ranges[i];
		memmove(&ranges[i], &ranges[i + 1], (nranges - i - 1) * sizeof(*ranges));
		nranges--;
	} else {
		i = -1;
	}
	pthread_mutex_unlock(&lock);
	return i >= 0;
}

/* Replaces the advice of the range that starts at base. */
int rt_mem_set_advice(uintptr_t base, const struct rt_advice *a)
{
	long i;
	int found;

	pthread_mutex_lock(&lock);
	i = containing(base);
	found = i >= 0 && ranges[i].base == base;
	if (found)
		ranges[i].advice = *a;
	pthread_mutex_unlock(&lock);
	return found;
}

/* After a device reset, its memory is gone; pinned host memory is not
 * device memory and stays, but no longer pinned by the backend (closing
 * the instance dropped its registrations). */
void rt_mem_drop_device(int dev)
{
	size_t i, j = 0;

	pthread_mutex_lock(&lock);
	for (i = 0; i < nranges; i++) {
		if (ranges[i].dev == dev && rt_mem_is_device(ranges[i].kind))
			continue;
		if (ranges[i].dev == dev)
			ranges[i].mapped = 0;   /* the pin went with the instance */
		ranges[j++] = ranges[i];
	}
	nranges = j;
	pthread_mutex_unlock(&lock);
}

int rt_mem_is_device(enum rt_mem kind)
{
	return kind == RT_MEM_DEVICE || kind == RT_MEM_MANAGED || kind == RT_MEM_SYMBOL ||
	       kind == RT_MEM_ARRAY;
}
