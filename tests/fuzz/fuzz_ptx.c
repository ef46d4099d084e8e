/*
 * fuzz_ptx.c - libFuzzer target for the PTX parser: any bytes must parse
 * or fail with a placed message, never crash, leak or read past the end.
 * A parsed module is walked through the helpers translators call, so that
 * what the parser hands out is touched too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ptx/ptx.h"

static void touch_module(const struct ptx_module *m)
{
	uint32_t off[4], size[4], align[4];

	for (uint32_t i = 0; i < m->nvars; i++) {
		const struct ptx_var *v = &m->vars[i];
		volatile uint8_t sink = 0;

		for (uint64_t k = 0; k < v->init_size; k++)
			sink ^= v->init[k];
		for (uint32_t r = 0; r < v->nrelocs; r++)
			sink ^= (uint8_t)strlen(v->relocs[r].symbol);
		(void)sink;
	}
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		ptx_param_layout(&m->funcs[i], off, size, align, 4);
		if (ptx_find_func(m, m->funcs[i].name) == NULL)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ptx_module *m;
	struct ptx_error err;

	if (ptx_parse((const char *)data, size, &m, &err) == 0) {
		touch_module(m);
		ptx_free(m);
	} else if (!err.msg[0] || m) {
		abort();
	}
	return 0;
}
