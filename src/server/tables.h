/*
 * tables.h - what one session owns on the server, as the client names it:
 * handle tables (a handle is an index + 1, never a pointer) and the device
 * ranges (allocations and module variables) that client pointers must fall
 * inside.
 */
#ifndef AG_SERVER_TABLES_H
#define AG_SERVER_TABLES_H

#include "backend.h"

#include <stdint.h>

struct ag_table {
	void **slot;
	uint32_t n;
};

struct ag_sfunc {
	struct ag_func *f;
	const struct ag_func_info *info;
	uint32_t module;            /* handle of the module it came from */
};

struct ag_range {
	ag_dptr base;
	uint64_t size;
	uint32_t module;            /* 0: an allocation; else a module variable */
};

struct ag_tables {
	struct ag_table streams, events, modules, funcs;
	struct ag_table textures;   /* the backend's texture and surface handles */
	struct ag_range *ranges;    /* sorted by base, disjoint */
	size_t nranges, cap;
	uint64_t used;              /* bytes allocated */
	uint64_t limit;             /* quota, 0: none */
};

void ag_tables_init(struct ag_tables *t);
void ag_tables_free(struct ag_tables *t);

/* Returns the new handle (never 0). */
uint32_t ag_table_add(struct ag_table *t, void *p);
/* NULL for 0, out-of-range or freed handles. */
void *ag_table_get(const struct ag_table *t, uint32_t h);
void ag_table_del(struct ag_table *t, uint32_t h);

uint32_t ag_tables_add_func(struct ag_tables *t, struct ag_func *f,
			    const struct ag_func_info *info, uint32_t module);
/* Forgets a module, its functions and its variables' ranges. */
void ag_tables_drop_module(struct ag_tables *t, uint32_t module);

void ag_ranges_add(struct ag_tables *t, ag_dptr base, uint64_t size, uint32_t module);
/* Index of the range holding [p, p+n) entirely (n 0: holding p), or -1. */
long ag_ranges_find(const struct ag_tables *t, ag_dptr p, uint64_t n);
void ag_ranges_del(struct ag_tables *t, long i);
uint64_t ag_ranges_allocs(const struct ag_tables *t);

#endif
