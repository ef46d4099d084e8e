/*
 * mem.c - the cpu backend's device memory: host memory, 256-byte aligned,
 * with every allocation kept in a table sorted by address, so that frees and
 * copies of unknown addresses are refused instead of crashing, a quota can
 * be enforced, and close() frees whatever is left.
 */
#include "cpu/cpu.h"
#include "util/sorted.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN 256u

/* Index of the first allocation whose address is above addr. */
static size_t upper_bound(const struct ag_mem *m, uint64_t addr)
{
	return ag_upper_bound(m->v, m->n, sizeof(*m->v), offsetof(struct ag_alloc, addr), addr);
}

cudaError_t ag_mem_alloc(struct ag_mem *m, uint64_t size, uint64_t *out)
{
	uint64_t rounded = (size + ALIGN - 1) & ~(uint64_t)(ALIGN - 1);

	*out = 0;
	if (size == 0)
		return cudaSuccess;
	if (rounded < size || rounded > SIZE_MAX ||
	    (m->limit && (rounded > m->limit || m->used > m->limit - rounded)))
		return cudaErrorMemoryAllocation;
	void *p = aligned_alloc(ALIGN, (size_t)rounded);
	if (!p)
		return cudaErrorMemoryAllocation;
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 64;
		m->v = xrealloc(m->v, m->cap * sizeof(*m->v));
	}
	uint64_t addr = (uint64_t)(uintptr_t)p;
	size_t i = upper_bound(m, addr);
	memmove(&m->v[i + 1], &m->v[i], (m->n - i) * sizeof(*m->v));
	m->v[i] = (struct ag_alloc){ addr, rounded };
	m->n++;
	m->used += rounded;
	*out = addr;
	return cudaSuccess;
}

cudaError_t ag_mem_free(struct ag_mem *m, uint64_t addr)
{
	if (addr == 0)
		return cudaSuccess;
	size_t i = upper_bound(m, addr);
	if (i == 0 || m->v[i - 1].addr != addr)
		return cudaErrorInvalidValue;
	i--;
	free((void *)(uintptr_t)addr);
	m->used -= m->v[i].size;
	memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof(*m->v));
	m->n--;
	return cudaSuccess;
}

int ag_mem_contains(const struct ag_mem *m, uint64_t addr, uint64_t n)
{
	size_t i = upper_bound(m, addr);
	if (i == 0)
		return 0;
	const struct ag_alloc *a = &m->v[i - 1];
	return addr - a->addr <= a->size && n <= a->size - (addr - a->addr);
}

void ag_mem_release(struct ag_mem *m)
{
	for (size_t i = 0; i < m->n; i++)
		free((void *)(uintptr_t)m->v[i].addr);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
	m->used = 0;
}
