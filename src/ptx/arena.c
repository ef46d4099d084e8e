/*
 * arena.c - bump allocation in chunks for a parsed module.  Small blocks are
 * cut from the current chunk; a block larger than a chunk gets a chunk of its
 * own, so a several-MB initializer costs one allocation, not a chain.
 */
#include "ptx/arena.h"
#include "util/strbuf.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE (64u << 10)

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct ptx_arena {
	struct chunk *head;     /* current chunk, the only one bumped */
	void *last;             /* latest block, which arena_grow may extend */
};

struct ptx_arena *arena_new(void)
{
	return xcalloc(1, sizeof(struct ptx_arena));
}

void arena_free(struct ptx_arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

static size_t round8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static struct chunk *chunk_new(size_t size)
{
	struct chunk *c = xmalloc(sizeof(*c) + size);

	c->size = size;
	c->used = 0;
	return c;
}

void *arena_alloc(struct ptx_arena *a, size_t n)
{
	struct chunk *c = a->head;
	void *p;

	n = round8(n ? n : 1);
	if (n > CHUNK_SIZE / 4) {
		/* Own chunk, linked behind the current one so that
		 * bumping continues where it was. */
		c = chunk_new(n);
		c->used = n;
		if (a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = NULL;
			a->head = c;
		}
		memset(c->data, 0, n);
		a->last = c->data;
		return c->data;
	}
	if (!c || c->size - c->used < n) {
		c = chunk_new(CHUNK_SIZE);
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	c->used += n;
	memset(p, 0, n);
	a->last = p;
	return p;
}

/* Resizes the block p of old bytes to new bytes (new > old), in place when p
 * is the latest allocation and its chunk has room; the tail is zeroed. */
static void *arena_grow(struct ptx_arena *a, void *p, size_t old, size_t new)
{
	struct chunk *c = a->head;
	void *q;

	if (p && p == a->last && c && (unsigned char *)p >= c->data &&
	    (unsigned char *)p < c->data + c->used) {
		size_t start = (unsigned char *)p - c->data;

		if (round8(new) <= c->size - start) {
			memset((unsigned char *)p + old, 0, new - old);
			c->used = start + round8(new);
			return p;
		}
	}
	q = arena_alloc(a, new);
	if (old)
		memcpy(q, p, old);
	return q;
}

char *arena_strndup(struct ptx_arena *a, const char *s, size_t n)
{
	char *d = arena_alloc(a, n + 1);

	memcpy(d, s, n);
	return d;
}

void *vec_push(struct ptx_arena *a, struct vec *v, size_t elsize)
{
	if (v->n == v->cap) {
		uint32_t cap = v->cap ? v->cap * 2 : 4;

		v->data = arena_grow(a, v->data, (size_t)v->cap * elsize,
				     (size_t)cap * elsize);
		v->cap = cap;
	}
	return (unsigned char *)v->data + (size_t)v->n++ * elsize;
}
