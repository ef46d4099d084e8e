/*
 * sorted.h - binary search in arrays of structs kept sorted by a uint64_t
 * member, as the tables of allocations and address ranges are.
 */
#ifndef AG_SORTED_H
#define AG_SORTED_H

#include <stddef.h>
#include <stdint.h>

/* Index of the first of the n elements of size bytes at v whose uint64_t
 * member at offset off is above key (n when none is). */
size_t ag_upper_bound(const void *v, size_t n, size_t size, size_t off, uint64_t key);

#endif
