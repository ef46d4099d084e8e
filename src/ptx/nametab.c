/*
 * nametab.c - a hash table of names, each with a 64-bit value: the
 * parser's set of interned strings and each function's register names.
 * Open addressing over a power-of-two table kept at most half full, so
 * lookups stay constant-time on modules of any size.
 */
#include "ptx/parser.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct nametab {
	struct name *slots;
	size_t cap, n;
};

struct nametab *nametab_new(void)
{
	return xcalloc(1, sizeof(struct nametab));
}

void nametab_free(struct nametab *t)
{
	if (t)
		free(t->slots);
	free(t);
}

void nametab_clear(struct nametab *t)
{
	if (t->n)
		memset(t->slots, 0, t->cap * sizeof(*t->slots));
	t->n = 0;
}

static size_t hash(const char *s, size_t len)
{
	size_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The slot holding s, or the empty slot where it would go. */
static struct name *slot_for(const struct nametab *t, const char *s, size_t len, size_t h)
{
	for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct name *e = &t->slots[i];

		if (!e->s || (e->hash == h && e->len == len && !memcmp(e->s, s, len)))
			return e;
	}
}

static void grow(struct nametab *t)
{
	struct name *old = t->slots;
	size_t oldcap = t->cap;

	t->cap = oldcap ? oldcap * 2 : 64;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].s)
			*slot_for(t, old[i].s, old[i].len, old[i].hash) = old[i];
	free(old);
}

struct name *nametab_find(const struct nametab *t, const char *s, size_t len)
{
	struct name *e;

	if (!t->cap)
		return NULL;
	e = slot_for(t, s, len, hash(s, len));
	return e->s ? e : NULL;
}

struct name *nametab_add(struct nametab *t, const char *s, size_t len, bool *added)
{
	size_t h = hash(s, len);
	struct name *e;

	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	e = slot_for(t, s, len, h);
	*added = !e->s;
	if (*added) {
		e->s = s;
		e->len = len;
		e->hash = h;
		e->value = 0;
		t->n++;
	}
	return e;
}
