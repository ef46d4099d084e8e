/*
 * strbuf.h - a growable byte string, always NUL-terminated.
 */
#ifndef AG_STRBUF_H
#define AG_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
	char *buf;      /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_add(struct strbuf *sb, const void *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
void sb_reset(struct strbuf *sb);           /* len = 0, keeps the memory */
void sb_truncate(struct strbuf *sb, size_t len);    /* no-op when len >= sb->len */
char *sb_detach(struct strbuf *sb);         /* caller frees; sb is empty again */
void sb_free(struct strbuf *sb);
/* Each old in sb's text from offset from on made new; with words, only
 * where it is not part of a longer C identifier or number. */
void sb_replace(struct strbuf *sb, size_t from, const char *old, const char *new, int words);

/* Allocation that cannot fail: aborts with a message when memory runs out,
 * which is what every caller would do anyway. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);

#endif
