/*
 * hex.h - lower-case hexadecimal text of bytes, as digests, fingerprints
 * and tokens are written.
 */
#ifndef AG_HEX_H
#define AG_HEX_H

#include <stddef.h>

/* Writes 2 * n digits and a NUL to out, which holds 2 * n + 1 chars. */
void ag_hex_encode(char *out, const void *data, size_t n);

#endif
