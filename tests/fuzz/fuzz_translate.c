/*
 * fuzz_translate.c - libFuzzer target for the PTX -> C translator: any
 * module the parser accepts must translate or be refused with a message,
 * never crash, leak or read past the end.  It reaches what runs before
 * and around the emitters: the short branches made guards (ifconv.c),
 * the liveness (live.c), the form guesses (forms.c), the fused runs
 * (vector.c), and, translated a second time with every kernel in row
 * groups, the shapes (shape.c) and the group code (group.c).  The C it
 * writes is not compiled.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "cpu/translate.h"
#include "ptx/ptx.h"
#include "util/strbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptx_module *m;
	struct ptx_error err;
	struct strbuf c = STRBUF_INIT;

	if (ptx_parse((const char *)data, size, &m, &err))
		return 0;
	if (ag_translate(m, AG_GROUPS_AUTO, &c, &err) && !err.msg[0])
		abort();        /* a refusal says why */
	sb_reset(&c);
	if (ag_translate(m, AG_GROUPS_ALL, &c, &err) && !err.msg[0])
		abort();
	sb_free(&c);
	ptx_free(m);
	return 0;
}
