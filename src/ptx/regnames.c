/*
 * regnames.c - registers declared without a '%' (".reg .b32 r<4>, acc;"),
 * so that operands can tell the register "acc" from a symbol "acc".  A
 * range "r<4>" is kept once, as prefix "r" with its count.
 */
#include "ptx/parser.h"

#include <string.h>

/* A name's value: the range count in the low 32 bits, and PLAIN when the
 * name itself was declared. */
#define PLAIN (1ull << 32)
#define RANGE(v) ((uint32_t)(v))

/* name is interned: it lives as long as the table. */
void reg_names_add(struct nametab *r, const char *name, uint32_t range)
{
	bool added;
	struct name *e = nametab_add(r, name, strlen(name), &added);

	if (range > RANGE(e->value))
		e->value = (e->value & PLAIN) | range;
	if (!range)
		e->value |= PLAIN;
}

bool reg_names_has(const struct nametab *r, const char *s, size_t len)
{
	const struct name *e = nametab_find(r, s, len);
	size_t i = len;
	uint64_t k = 0;

	if (e && (e->value & PLAIN))
		return true;
	/* "r12" is a register if "r" was declared with a range above 12. */
	while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
		i--;
	if (i == len || i == 0 || len - i > 9)
		return false;
	for (size_t j = i; j < len; j++)
		k = k * 10 + (uint64_t)(s[j] - '0');
	e = nametab_find(r, s, i);
	return e && k < RANGE(e->value);
}
