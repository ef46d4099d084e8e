/*
 * types.c - what translators ask of a parsed module: type sizes and names,
 * functions by name, and the layout CUDA gives a kernel's parameters.
 */
#include "ptx/ptx.h"

#include <string.h>

static const struct {
	const char *name;
	uint32_t size;
} types[] = {
	[PTX_T_NONE] = { "", 0 },
	[PTX_T_PRED] = { "pred", 1 },
	[PTX_T_B8] = { "b8", 1 }, [PTX_T_B16] = { "b16", 2 },
	[PTX_T_B32] = { "b32", 4 }, [PTX_T_B64] = { "b64", 8 },
	[PTX_T_B128] = { "b128", 16 },
	[PTX_T_U8] = { "u8", 1 }, [PTX_T_U16] = { "u16", 2 },
	[PTX_T_U32] = { "u32", 4 }, [PTX_T_U64] = { "u64", 8 },
	[PTX_T_S8] = { "s8", 1 }, [PTX_T_S16] = { "s16", 2 },
	[PTX_T_S32] = { "s32", 4 }, [PTX_T_S64] = { "s64", 8 },
	[PTX_T_F16] = { "f16", 2 }, [PTX_T_F16X2] = { "f16x2", 4 },
	[PTX_T_BF16] = { "bf16", 2 }, [PTX_T_BF16X2] = { "bf16x2", 4 },
	[PTX_T_F32] = { "f32", 4 }, [PTX_T_F64] = { "f64", 8 },
	[PTX_T_TF32] = { "tf32", 4 },
	/* Opaque handles: 64-bit in the unified (texmode_independent) mode. */
	[PTX_T_TEXREF] = { "texref", 8 },
	[PTX_T_SAMPLERREF] = { "samplerref", 8 },
	[PTX_T_SURFREF] = { "surfref", 8 },
};

#define NTYPES (sizeof(types) / sizeof(types[0]))

uint32_t ptx_type_size(enum ptx_type t)
{
	return (unsigned)t < NTYPES ? types[t].size : 0;
}

const char *ptx_type_name(enum ptx_type t)
{
	return (unsigned)t < NTYPES ? types[t].name : "";
}

enum ptx_type ptx_type_from_mod(const char *mod)
{
	if (!mod || mod[0] != '.')
		return PTX_T_NONE;
	for (size_t i = 1; i < NTYPES; i++)
		if (!strcmp(mod + 1, types[i].name))
			return (enum ptx_type)i;
	return PTX_T_NONE;
}

const struct ptx_func *ptx_find_func(const struct ptx_module *m, const char *name)
{
	const struct ptx_func *decl = NULL;

	/* A definition wins over an earlier declaration of the same name. */
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		if (strcmp(m->funcs[i].name, name))
			continue;
		if (!m->funcs[i].is_decl)
			return &m->funcs[i];
		if (!decl)
			decl = &m->funcs[i];
	}
	return decl;
}

/* A parameter's size in bytes: element size, times vector width, times
 * array count (an unsized array takes no room). */
static uint32_t param_size(const struct ptx_var *v)
{
	uint64_t n = (uint64_t)ptx_type_size(v->type) * (v->vec ? v->vec : 1) * v->count;

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static uint32_t param_align(const struct ptx_var *v)
{
	if (v->align)
		return v->align;
	return ptx_type_size(v->type) * (v->vec ? v->vec : 1);
}

uint32_t ptx_param_layout(const struct ptx_func *f, uint32_t *offset,
			  uint32_t *size, uint32_t *align, uint32_t max)
{
	uint64_t end = 0;

	for (uint32_t i = 0; i < f->nparams; i++) {
		const struct ptx_var *v = &f->params[i];
		uint32_t a = param_align(v), s = param_size(v);
		uint64_t off;

		if (!a || (a & (a - 1)))
			a = 1;
		off = (end + a - 1) & ~(uint64_t)(a - 1);
		end = off + s;
		if (i < max) {
			offset[i] = off > UINT32_MAX ? UINT32_MAX : (uint32_t)off;
			size[i] = s;
			align[i] = a;
		}
	}
	return end > UINT32_MAX ? UINT32_MAX : (uint32_t)end;
}
