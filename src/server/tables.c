/*
 * tables.c - a session's handle tables and device ranges.
 */
#include "server/tables.h"
#include "util/sorted.h"
#include "util/strbuf.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void ag_tables_init(struct ag_tables *t)
{
	memset(t, 0, sizeof(*t));
}

static void table_free(struct ag_table *t)
{
	free(t->slot);
	t->slot = NULL;
	t->n = 0;
}

void ag_tables_free(struct ag_tables *t)
{
	for (uint32_t i = 0; i < t->funcs.n; i++)
		free(t->funcs.slot[i]);
	table_free(&t->streams);
	table_free(&t->events);
	table_free(&t->modules);
	table_free(&t->funcs);
	table_free(&t->textures);
	free(t->ranges);
	memset(t, 0, sizeof(*t));
}

uint32_t ag_table_add(struct ag_table *t, void *p)
{
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (!t->slot[i])
			break;
	if (i == t->n) {
		t->slot = xrealloc(t->slot, (t->n + 1) * sizeof(void *));
		t->n++;
	}
	t->slot[i] = p;
	return i + 1;
}

void *ag_table_get(const struct ag_table *t, uint32_t h)
{
	if (h == 0 || h > t->n)
		return NULL;
	return t->slot[h - 1];
}

void ag_table_del(struct ag_table *t, uint32_t h)
{
	if (h && h <= t->n)
		t->slot[h - 1] = NULL;
}

uint32_t ag_tables_add_func(struct ag_tables *t, struct ag_func *f,
			    const struct ag_func_info *info, uint32_t module)
{
	struct ag_sfunc *sf;

	/* module_func may hand out the same function twice: one handle. */
	for (uint32_t i = 0; i < t->funcs.n; i++) {
		sf = t->funcs.slot[i];
		if (sf && sf->f == f && sf->module == module)
			return i + 1;
	}
	sf = xmalloc(sizeof(*sf));
	sf->f = f;
	sf->info = info;
	sf->module = module;
	return ag_table_add(&t->funcs, sf);
}

void ag_tables_drop_module(struct ag_tables *t, uint32_t module)
{
	for (uint32_t i = 0; i < t->funcs.n; i++) {
		struct ag_sfunc *sf = t->funcs.slot[i];

		if (sf && sf->module == module) {
			free(sf);
			t->funcs.slot[i] = NULL;
		}
	}
	for (long i = (long)t->nranges - 1; i >= 0; i--)
		if (t->ranges[i].module == module)
			ag_ranges_del(t, i);
	ag_table_del(&t->modules, module);
}

/* Index of the first range whose base is above p. */
static size_t upper_bound(const struct ag_tables *t, ag_dptr p)
{
	return ag_upper_bound(t->ranges, t->nranges, sizeof(*t->ranges),
			      offsetof(struct ag_range, base), p);
}

void ag_ranges_add(struct ag_tables *t, ag_dptr base, uint64_t size, uint32_t module)
{
	size_t at = upper_bound(t, base);

	if (t->nranges == t->cap) {
		t->cap = t->cap * 2 + 16;
		t->ranges = xrealloc(t->ranges, t->cap * sizeof(*t->ranges));
	}
	memmove(t->ranges + at + 1, t->ranges + at, (t->nranges - at) * sizeof(*t->ranges));
	t->ranges[at] = (struct ag_range){ base, size, module };
	t->nranges++;
	if (!module)
		t->used += size;
}

long ag_ranges_find(const struct ag_tables *t, ag_dptr p, uint64_t n)
{
	size_t at = upper_bound(t, p);
	const struct ag_range *r;

	if (at == 0)
		return -1;
	r = &t->ranges[at - 1];
	if (p - r->base > r->size || n > r->size - (p - r->base))
		return -1;
	if (n == 0 && p - r->base == r->size && r->size)
		return -1;
	return (long)(at - 1);
}

void ag_ranges_del(struct ag_tables *t, long i)
{
	if (!t->ranges[i].module)
		t->used -= t->ranges[i].size;
	memmove(t->ranges + i, t->ranges + i + 1, (t->nranges - i - 1) * sizeof(*t->ranges));
	t->nranges--;
}

uint64_t ag_ranges_allocs(const struct ag_tables *t)
{
	uint64_t n = 0;

	for (size_t i = 0; i < t->nranges; i++)
		n += !t->ranges[i].module;
	return n;
}
