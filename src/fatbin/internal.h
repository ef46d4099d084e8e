/*
 * internal.h - helpers shared by the fatbin reader's files, not exported.
 */
#ifndef AG_FATBIN_INTERNAL_H
#define AG_FATBIN_INTERNAL_H

#include <stddef.h>

/* Formats the message into err (when there is room) and returns -1, so that
 * a failing check reads "return fatbin_error(err, errlen, ...)". */
int fatbin_error(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
