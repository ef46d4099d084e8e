/*
 * ptrmap.c - a hash map from pointers to pointers (open addressing, linear
 * probing, backward-shift deletion).  It finds a kernel from its host stub
 * address, a variable from its host shadow, and tells live stream and event
 * handles from garbage.  The caller locks.
 */
#include "rt.h"

#include <stdlib.h>

#include "util/strbuf.h"

static size_t slot_of(const struct rt_ptrmap *m, const void *key)
{
	uint64_t h = (uintptr_t)key;

	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h & (m->cap - 1);
}

static size_t find_slot(const struct rt_ptrmap *m, const void *key)
{
	size_t i = slot_of(m, key);

	while (m->keys[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	return i;
}

void *rt_ptrmap_get(const struct rt_ptrmap *m, const void *key)
{
	if (!m->cap || !key)
		return NULL;
	return m->vals[find_slot(m, key)];
}

static void grow(struct rt_ptrmap *m)
{
	struct rt_ptrmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->len = 0;
	m->keys = xcalloc(m->cap, sizeof(*m->keys));
	m->vals = xcalloc(m->cap, sizeof(*m->vals));
	for (size_t i = 0; i < old.cap; i++)
		if (old.keys[i])
			rt_ptrmap_put(m, old.keys[i], old.vals[i]);
	free(old.keys);
	free(old.vals);
}

void rt_ptrmap_put(struct rt_ptrmap *m, const void *key, void *val)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap)
		grow(m);
	i = find_slot(m, key);
	if (!m->keys[i])
		m->len++;
	m->keys[i] = key;
	m->vals[i] = val;
}

void rt_ptrmap_del(struct rt_ptrmap *m, const void *key)
{
	size_t i, j, home;

	if (!m->cap || !key)
		return;
	i = find_slot(m, key);
	if (!m->keys[i])
		return;
	m->len--;
	/* Shift later members of the cluster back so probes still find them. */
	for (j = (i + 1) & (m->cap - 1); m->keys[j]; j = (j + 1) & (m->cap - 1)) {
		home = slot_of(m, m->keys[j]);
		if (((j - home) & (m->cap - 1)) >= ((j - i) & (m->cap - 1))) {
			m->keys[i] = m->keys[j];
			m->vals[i] = m->vals[j];
			i = j;
		}
	}
	m->keys[i] = NULL;
	m->vals[i] = NULL;
}

void rt_ptrmap_free(struct rt_ptrmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->len = 0;
}
