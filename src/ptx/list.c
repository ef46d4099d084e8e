/*
 * list.c - arrays of unknown length built on the parser's scratch stack.
 * Lists nest (a vector operand's elements while an instruction's operands
 * are open) but never interleave, so one stack serves them all; a finished
 * list is copied into the arena at its exact size and popped.  This keeps
 * a parsed module near ten times the size of its text rather than twenty.
 */
#include "ptx/parser.h"
#include "util/strbuf.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

void list_begin(struct parser *p, struct list *l)
{
	/* Elements of every kind are multiples of 8 bytes; start aligned. */
	p->scratch_len = (p->scratch_len + 15) & ~(size_t)15;
	l->start = p->scratch_len;
	l->n = 0;
}

void *list_push(struct parser *p, struct list *l, size_t elsize)
{
	size_t at = l->start + (size_t)l->n * elsize, end = at + elsize;
	void *e;

	/* Only the innermost open list may grow: above its end there can
	 * be no more than the alignment a finished inner list left. */
	assert(p->scratch_len >= at && p->scratch_len < at + 16);
	if (end > p->scratch_cap) {
		size_t cap = p->scratch_cap ? p->scratch_cap : 4096;

		while (cap < end)
			cap *= 2;
		p->scratch = xrealloc(p->scratch, cap);
		p->scratch_cap = cap;
	}
	e = p->scratch + at;
	memset(e, 0, elsize);
	p->scratch_len = end;
	l->n++;
	return e;
}

void *list_last(struct parser *p, const struct list *l, size_t elsize)
{
	return l->n ? p->scratch + l->start + (size_t)(l->n - 1) * elsize : NULL;
}

const void *list_done(struct parser *p, struct list *l, size_t elsize)
{
	size_t size = (size_t)l->n * elsize;
	void *copy = NULL;

	if (l->n) {
		copy = arena_alloc(p->arena, size);
		memcpy(copy, p->scratch + l->start, size);
	}
	p->scratch_len = l->start;
	return copy;
}
