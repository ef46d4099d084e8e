/*
 * hex.c - lower-case hexadecimal text of bytes.
 */
#include "util/hex.h"

void ag_hex_encode(char *out, const void *data, size_t n)
{
	static const char digit[] = "0123456789abcdef";
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digit[p[i] >> 4];
		out[2 * i + 1] = digit[p[i] & 15];
	}
	out[2 * n] = '\0';
}
