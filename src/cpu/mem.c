/*
 * mem.c - the cpu backend's device memory: host memory, 256-byte aligned,
 * with every allocation kept in a table sorted by address, so that frees and
 * copies of unknown addresses are refused instead of crashing, a quota can
 * be enforced, and close() frees whatever is left.  Allocations of 2 MiB and
 * more are mappings of their own, 2 MiB-aligned and marked for transparent
 * huge pages: first touches fault 2 MiB at a time, a kernel that walks
 * large arrays takes one TLB entry per 2 MiB instead of per 4 KiB, and a
 * free gives the memory back at once.  The quota counts the size asked for
 * (rounded to 256); such a mapping ends at a whole huge page, up to 2 MiB
 * beyond it.
 */
#include "cpu/cpu.h"
#include "util/sorted.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define ALIGN 256u
#define HUGE_PAGE ((uint64_t)2 << 20)

/* Index of the first allocation whose address is above addr. */
static size_t upper_bound(const struct ag_mem *m, uint64_t addr)
{
	return ag_upper_bound(m->v, m->n, sizeof(*m->v), offsetof(struct ag_alloc, addr), addr);
}

/* The length of the mapping behind an allocation of size bytes (as
 * rounded to ALIGN) of at least HUGE_PAGE: whole huge pages, so that its
 * last one can be huge too. */
static uint64_t huge_len(uint64_t size)
{
	return (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/* len bytes (a multiple of HUGE_PAGE) at a HUGE_PAGE boundary: a mapping
 * of len plus one huge page, trimmed at both ends, asked to use huge
 * pages.  The advice is only advice: where THP is off (or not built in)
 * it does nothing (or fails) and the memory is still good. */
static void *huge_map(uint64_t len)
{
	size_t span = (size_t)(len + HUGE_PAGE);
	char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	size_t head = (size_t)(-(uintptr_t)p & (HUGE_PAGE - 1));
	if (head)
		munmap(p, head);
	munmap(p + head + len, span - head - (size_t)len);
	madvise(p + head, (size_t)len, MADV_HUGEPAGE);
	return p + head;
}

/* Host memory for an allocation of size bytes (a multiple of ALIGN). */
static void *host_alloc(uint64_t size)
{
	if (size < HUGE_PAGE)
		return aligned_alloc(ALIGN, (size_t)size);
	if (size > SIZE_MAX - 2 * HUGE_PAGE)
		return NULL;
	return huge_map(huge_len(size));
}

/* Gives back what host_alloc(size) returned. */
static void host_free(void *p, uint64_t size)
{
	if (size < HUGE_PAGE)
		free(p);
	else
		munmap(p, (size_t)huge_len(size));
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
	void *p = host_alloc(rounded);
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
	host_free((void *)(uintptr_t)addr, m->v[i].size);
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
		host_free((void *)(uintptr_t)m->v[i].addr, m->v[i].size);
	free(m->v);
	m->v = NULL;
	m->n = m->cap = 0;
	m->used = 0;
}
