/*
 * sorted.c - binary search in arrays of structs sorted by a uint64_t member.
 */
#include "util/sorted.h"

#include <string.h>

static uint64_t key_at(const void *v, size_t i, size_t size, size_t off)
{
	uint64_t k;

	memcpy(&k, (const char *)v + i * size + off, sizeof(k));
	return k;
}

size_t ag_upper_bound(const void *v, size_t n, size_t size, size_t off, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_at(v, mid, size, off) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
