/*
 * regnames.c - registers declared without a '%' (".reg .b32 r<4>, acc;"),
 * so that operands can tell the register "acc" from a symbol "acc".  A hash
 * set keeps lookups constant-time on large hand-written bodies; a range
 * "r<4>" is stored once as prefix "r" with its count.
 */
#include "ptx/parser.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct reg_name {
	const char *name;       /* NULL: empty slot */
	size_t len;
	uint32_t range;         /* "r<4>": r0..r3 */
	bool plain;             /* "r" itself was declared */
};

struct reg_names {
	struct reg_name *slots;
	size_t cap, n;          /* cap is a power of two */
	bool any_range;
};

struct reg_names *reg_names_new(void)
{
	return xcalloc(1, sizeof(struct reg_names));
}

void reg_names_free(struct reg_names *r)
{
	if (r)
		free(r->slots);
	free(r);
}

void reg_names_clear(struct reg_names *r)
{
	if (r->n)
		memset(r->slots, 0, r->cap * sizeof(*r->slots));
	r->n = 0;
	r->any_range = false;
}

static struct reg_name *find(const struct reg_names *r, const char *s, size_t len)
{
	if (!r->cap)
		return NULL;
	for (size_t i = str_hash(s, len) & (r->cap - 1);; i = (i + 1) & (r->cap - 1)) {
		struct reg_name *e = &r->slots[i];

		if (!e->name || (e->len == len && !memcmp(e->name, s, len)))
			return e;
	}
}

static void grow(struct reg_names *r)
{
	struct reg_name *old = r->slots;
	size_t oldcap = r->cap;

	r->cap = oldcap ? oldcap * 2 : 16;
	r->slots = xcalloc(r->cap, sizeof(*r->slots));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].name)
			*find(r, old[i].name, old[i].len) = old[i];
	free(old);
}

/* name points into the arena, which outlives the set. */
void reg_names_add(struct reg_names *r, const char *name, uint32_t range)
{
	struct reg_name *e;

	if ((r->n + 1) * 2 > r->cap)
		grow(r);
	e = find(r, name, strlen(name));
	if (!e->name) {
		e->name = name;
		e->len = strlen(name);
		r->n++;
	}
	if (range > e->range)
		e->range = range;
	e->plain |= range == 0;
	r->any_range |= range > 0;
}

bool reg_names_has(const struct reg_names *r, const char *s, size_t len)
{
	const struct reg_name *e = find(r, s, len);
	size_t i = len;
	uint64_t k = 0;

	if (e && e->name && e->plain)
		return true;
	if (!r->any_range)
		return false;
	/* "r12" is a register if "r" was declared with a range above 12. */
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == len || i == 0 || len - i > 9)
		return false;
	for (size_t j = i; j < len; j++)
		k = k * 10 + (uint64_t)(s[j] - '0');
	e = find(r, s, i);
	return e && e->name && k < e->range;
}
