/*
 * texdesc.h - whether a texture or surface descriptor (struct ag_tex_desc,
 * backend.h) is one a backend may build an object from.  The cpu backend
 * checks what the runtime sends it, and anygpu serve what a client sends,
 * with the same rules.
 */
#ifndef AG_UTIL_TEXDESC_H
#define AG_UTIL_TEXDESC_H

#include <stdint.h>

#include "backend.h"

/* 0 when every field is in range, the shape suits the resource kind and
 * the sampler settings are a combination CUDA allows; *span is then the
 * bytes from d->base to the end of the last element.  -1 otherwise, with
 * *why naming the first field found wrong. */
int ag_tex_desc_check(const struct ag_tex_desc *d, uint64_t *span, const char **why);

#endif
