/*
 * strtab.c - one copy of each name in a module.  Opcodes, modifiers and
 * register names repeat on every line of a body; interning them makes
 * equal strings share one arena copy (and one pointer).
 */
#include "ptx/parser.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

struct str {
	const char *s;          /* NULL: empty slot */
	size_t len;
	size_t hash;
};

struct strtab {
	struct str *slots;
	size_t cap, n;          /* cap is a power of two */
};

struct strtab *strtab_new(void)
{
	return xcalloc(1, sizeof(struct strtab));
}

void strtab_free(struct strtab *t)
{
	if (t)
		free(t->slots);
	free(t);
}

size_t str_hash(const char *s, size_t len)
{
	size_t h = 2166136261u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static struct str *slot_for(const struct strtab *t, const char *s, size_t len, size_t h)
{
	for (size_t i = h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		struct str *e = &t->slots[i];

		if (!e->s || (e->hash == h && e->len == len && !memcmp(e->s, s, len)))
			return e;
	}
}

static void grow(struct strtab *t)
{
	struct str *old = t->slots;
	size_t oldcap = t->cap;

	t->cap = oldcap ? oldcap * 2 : 1024;
	t->slots = xcalloc(t->cap, sizeof(*t->slots));
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].s)
			*slot_for(t, old[i].s, old[i].len, old[i].hash) = old[i];
	free(old);
}

const char *strtab_intern(struct parser *p, const char *s, size_t len)
{
	struct strtab *t = p->names;
	size_t h = str_hash(s, len);
	struct str *e;

	if ((t->n + 1) * 2 > t->cap)
		grow(t);
	e = slot_for(t, s, len, h);
	if (!e->s) {
		e->s = arena_strndup(p->arena, s, len);
		e->len = len;
		e->hash = h;
		t->n++;
	}
	return e->s;
}
