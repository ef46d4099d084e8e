/*
 * strbuf.c - growable strings and allocation that cannot fail.
 */
#include "util/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
	fprintf(stderr, "anygpu: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

static void sb_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	if (need <= sb->cap)
		return;
	size_t cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	sb->buf = xrealloc(sb->buf, cap);
	sb->cap = cap;
}

void sb_add(struct strbuf *sb, const void *data, size_t n)
{
	sb_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = '\0';
}

void sb_adds(struct strbuf *sb, const char *s)
{
	sb_add(sb, s, strlen(s));
}

void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	sb_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void sb_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(sb, fmt, ap);
	va_end(ap);
}

void sb_reset(struct strbuf *sb)
{
	sb_truncate(sb, 0);
}

void sb_truncate(struct strbuf *sb, size_t len)
{
	if (len >= sb->len)
		return;
	sb->len = len;
	sb->buf[len] = '\0';
}

char *sb_detach(struct strbuf *sb)
{
	char *s = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->cap = 0;
	return s;
}

void sb_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->cap = 0;
}

static int is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		c == '_';
}

void sb_replace(struct strbuf *sb, size_t from, const char *old, const char *new, int words)
{
	size_t n = strlen(old);
	char *tail = xstrdup(sb->buf + from);
	const char *p = tail, *q;

	sb_truncate(sb, from);
	while ((q = strstr(p, old))) {
		int whole = !words || ((q == tail || !is_word(q[-1])) && !is_word(q[n]));

		sb_add(sb, p, (size_t)(q - p));
		sb_adds(sb, whole ? new : old);
		p = q + n;
	}
	sb_adds(sb, p);
	free(tail);
}
