/*
 * emit_tex.c - texture and surface instructions on texture and surface
 * objects: tex.{1d,2d,3d,a1d,a2d} with float or integer coordinates, tld4
 * on 2D textures, and suld.b / sust.b (also layered) with their
 * out-of-range modes.  Each lane calls a helper of translate_tex.h with
 * the object handle from its register; a helper that faults (bad handle,
 * surface trap) stops the block as trap does.  What is not implemented
 * (cube and multisample textures, texture references, formatted surface
 * stores ...) is refused at module load, naming it.
 */
#include <stdio.h>
#include <string.h>

#include "cpu/translate_int.h"

/* Modifiers that name a feature anygpu does not implement, and that feature. */
static const struct {
	const char *mod;
	const char *what;
} missing[] = {
	{ ".cube", "cubemap textures" },
	{ ".acube", "layered cubemap textures" }, { ".2dms", "multisample textures" },
	{ ".a2dms", "multisample textures" }, { ".p", "formatted surface stores (sust.p)" },
	{ ".f16", "half-precision texture results" },
	{ ".f16x2", "half-precision texture results" },
};

/* -1 (with the error set) when in uses a feature listed in missing[]. */
static int refuse_missing(struct tr *t, const struct ptx_insn *in)
{
	for (size_t k = 0; k < sizeof(missing) / sizeof(missing[0]); k++)
		if (tr_has(in, missing[k].mod))
			return tr_unsupported(t, in, missing[k].what);
	return 0;
}

/* Dimensions of the coordinates (layered geometries: of one layer). */
static uint32_t geometry(const struct ptx_insn *in)
{
	return tr_has(in, ".3d") ? 3 : tr_has(in, ".2d") || tr_has(in, ".a2d") ? 2 :
	       tr_has(in, ".1d") || tr_has(in, ".a1d") ? 1 : 0;
}

static int layered(const struct ptx_insn *in)
{
	return tr_has(in, ".a1d") || tr_has(in, ".a2d");
}

/* The object register of "[h, {coords}]" as a u64 expression, and the
 * coordinate operands.  Texture references (a .texref symbol) and
 * separate samplers are refused. */
static int object_operand(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
			  uint32_t ncoords, struct strbuf *h, const struct ptx_operand **coords,
			  uint32_t *n)
{
	struct ptx_operand reg = { .kind = PTX_OP_REG };
	const struct ptx_operand *c;

	if (o->kind != PTX_OP_ADDR || !o->name || o->nelems == 0)
		return tr_unsupported(t, in, "expected [object, {coordinates}]");
	if (!o->base_is_reg)
		return tr_unsupported(t, in, "texture and surface references (only objects)");
	if (o->nelems != 1)
		return tr_unsupported(t, in, "separate sampler operand");
	c = &o->elems[0];
	*coords = c->kind == PTX_OP_VEC ? c->elems : c;
	*n = c->kind == PTX_OP_VEC ? c->nelems : 1;
	if (*n < ncoords)
		return tr_unsupported(t, in, "too few coordinates");
	reg.name = o->name;
	return tr_src(t, in, &reg, PTX_T_U64, h);
}

/* "uint32_t ly_ = layer; T c_[3] = { x, y, z };" with absent coordinates
 * 0; a layered geometry's coordinates start with the layer (an unsigned
 * index), the others have layer 0. */
static int coord_array(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *c,
		       uint32_t n, enum ptx_type ty, struct strbuf *out)
{
	struct strbuf e = STRBUF_INIT;

	if (layered(in)) {
		if (tr_src(t, in, c, PTX_T_U32, &e)) {
			sb_free(&e);
			return -1;
		}
		c++;
	}
	sb_addf(out, "uint32_t ly_ = %s;\n\t\t\t%s c_[3] = { ", e.buf ? e.buf : "0",
		tr_ctype(ty));
	for (uint32_t k = 0; k < 3; k++) {
		sb_reset(&e);
		if (k < n && tr_src(t, in, &c[k], ty, &e)) {
			sb_free(&e);
			return -1;
		}
		sb_addf(out, "%s%s", k ? ", " : "", k < n ? e.buf : "0");
	}
	sb_adds(out, " };\n");
	sb_free(&e);
	return 0;
}

/* Opens the lane loop of a texture or surface instruction whose object
 * and coordinates are obj ("[h, {c}]"), coordinates of type cty: the
 * object's handle expression goes to h, the coordinate declarations of
 * coord_array start the loop's body. */
static int open_lanes(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *obj,
		      uint32_t dims, enum ptx_type cty, struct strbuf *h)
{
	struct strbuf c = STRBUF_INIT;
	const struct ptx_operand *coords = NULL;   /* object_operand sets it when it returns 0 */
	uint32_t n;

	if (object_operand(t, in, obj, dims + layered(in), h, &coords, &n))
		return -1;
	if (coord_array(t, in, coords, dims, cty, &c)) {
		sb_free(&c);
		return -1;
	}
	tr_lanes_begin(t, in);
	sb_adds(&t->code, c.buf);
	sb_free(&c);
	return 0;
}

/* The four result words r_[] into the .v4 destination of type ty. */
static int store_results(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *d,
			 enum ptx_type ty)
{
	char e[48];

	if (d->kind != PTX_OP_VEC || d->nelems != 4 || d->pair)
		return tr_unsupported(t, in, "destination must be a .v4 vector");
	for (uint32_t k = 0; k < 4; k++) {
		snprintf(e, sizeof(e), ty == PTX_T_F32 ? "ag_bits_f32(r_[%u])" : "r_[%u]", k);
		sb_adds(&t->code, "\t\t\t");
		if (tr_dst(t, in, &d->elems[k], ty, e))
			return -1;
	}
	return 0;
}

/* The lane body shared by tex and tld4: coordinates, the helper call,
 * the results. */
static int emit_sample(struct tr *t, const struct ptx_insn *in, uint32_t dims, enum ptx_type dty,
		       enum ptx_type cty, const char *helper, int comp)
{
	struct strbuf h = STRBUF_INIT;
	int rc = -1;

	if (open_lanes(t, in, &in->ops[1], dims, cty, &h))
		goto out;
	sb_addf(&t->code, "\t\t\tuint32_t r_[4];\n\t\t\tif (%s(w, l, %s, c_, ly_, ", helper,
		h.buf);
	if (comp >= 0)
		sb_addf(&t->code, "%d, ", comp);
	sb_adds(&t->code, "r_)) return;\n");
	if (store_results(t, in, &in->ops[0], dty))
		goto out;
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&h);
	return rc;
}

static int result_type_ok(enum ptx_type ty)
{
	return ty == PTX_T_F32 || ty == PTX_T_S32 || ty == PTX_T_U32;
}

/* tex.geom.v4.dtype.ctype d, [h, {c}]: float coordinates sample, integer
 * ones fetch texels by index (tex1Dfetch).  Every object has one mipmap
 * level (mipmapped arrays are refused when objects are made), so
 * tex.level (d, [h, {c}], lod), tex.grad (..., dPdx, dPdy) and tex.base
 * read that level whatever the level of detail. */
static int emit_tex(struct tr *t, const struct ptx_insn *in)
{
	enum ptx_type ty[2];
	uint32_t n, dims = geometry(in);
	uint32_t nops = 2 + (tr_has(in, ".level") ? 1 : tr_has(in, ".grad") ? 2 : 0);

	if (refuse_missing(t, in) ||
	    tr_mods(t, in, ".1d .2d .3d .a1d .a2d .v4 .level .grad .base", ty, 2, &n) ||
	    tr_nops(t, in, nops, nops))
		return -1;
	if (!dims || !tr_has(in, ".v4") || n != 2 || !result_type_ok(ty[0]) ||
	    (ty[1] != PTX_T_F32 && ty[1] != PTX_T_S32))
		return tr_unsupported(t, in, "shape or type");
	return emit_sample(t, in, dims, ty[0], ty[1],
			   ty[1] == PTX_T_F32 ? "ag_tex_sample" : "ag_tex_fetch", -1);
}

/* tld4.comp.2d.v4.dtype.f32 d, [h, {x, y}]. */
static int emit_tld4(struct tr *t, const struct ptx_insn *in)
{
	static const char *const comps[] = { ".r", ".g", ".b", ".a" };
	enum ptx_type ty[2];
	uint32_t n, comp = 4;

	if (tr_has(in, ".a2d"))
		return tr_unsupported(t, in, "layered gathers");
	if (refuse_missing(t, in) || tr_mods(t, in, ".r .g .b .a .2d .v4", ty, 2, &n) ||
	    tr_nops(t, in, 2, 2))
		return -1;
	for (uint32_t k = 0; k < 4; k++)
		if (tr_has(in, comps[k]))
			comp = k;
	if (comp == 4 || !tr_has(in, ".2d") || !tr_has(in, ".v4") || n != 2 ||
	    !result_type_ok(ty[0]) || ty[1] != PTX_T_F32)
		return tr_unsupported(t, in, "shape or type");
	return emit_sample(t, in, 2, ty[0], PTX_T_F32, "ag_tex_gather", (int)comp);
}

#define SURF_MODS ".b .1d .2d .3d .a1d .a2d .v2 .v4 .trap .clamp .zero .ca .cg .cs .cv .wb .wt"

/* The shape of suld.b / sust.b: element type, count, out-of-range mode. */
static int surface_shape(struct tr *t, const struct ptx_insn *in, enum ptx_type *ty,
			 uint32_t *vec, uint32_t *mode)
{
	uint32_t n;

	if (refuse_missing(t, in) || tr_mods(t, in, SURF_MODS, ty, 1, &n) || tr_nops(t, in, 2, 2))
		return -1;
	*vec = tr_has(in, ".v4") ? 4 : tr_has(in, ".v2") ? 2 : 1;
	*mode = tr_has(in, ".clamp") ? 1 : tr_has(in, ".zero") ? 2 : 0;
	if (!tr_has(in, ".b") || !geometry(in) || n != 1 ||
	    (*ty != PTX_T_B8 && *ty != PTX_T_B16 && *ty != PTX_T_B32 && *ty != PTX_T_B64))
		return tr_unsupported(t, in, "shape or type");
	*ty = tr_uint(tr_size(*ty));
	return 0;
}

/* Element k of a scalar-or-vector data operand. */
static const struct ptx_operand *data_elem(const struct ptx_operand *v, uint32_t k)
{
	return v->kind == PTX_OP_VEC ? &v->elems[k] : v;
}

/* A scalar may be written bare or in braces ("{%r5}"). */
static int data_shape_ok(const struct ptx_operand *v, uint32_t vec)
{
	return v->kind == PTX_OP_VEC ? v->nelems == vec : vec == 1;
}

/* suld.b.geom.vec.bN.mode d, [h, {x, y, z}] and sust.b... [h, {c}], v:
 * the data go through a byte buffer of vec * N/8 bytes. */
static int emit_surface(struct tr *t, const struct ptx_insn *in)
{
	int store = !strcmp(in->opcode, "sust");
	const struct ptx_operand *data;
	struct strbuf h = STRBUF_INIT, e = STRBUF_INIT;
	enum ptx_type ty;
	uint32_t vec, mode, size;
	int rc = -1;

	if (surface_shape(t, in, &ty, &vec, &mode))
		return -1;
	data = &in->ops[store ? 1 : 0];
	if (!data_shape_ok(data, vec))
		return tr_unsupported(t, in, "vector shape");
	size = tr_size(ty);
	if (open_lanes(t, in, &in->ops[store ? 0 : 1], geometry(in), PTX_T_S32, &h))
		goto out;
	sb_adds(&t->code, "\t\t\tunsigned char sb_[32];\n");
	for (uint32_t k = 0; store && k < vec; k++) {
		sb_reset(&e);
		if (tr_src(t, in, data_elem(data, k), ty, &e))
			goto out;
		sb_addf(&t->code, "\t\t\tag_st(%s, sb_ + %u, %s);\n", tr_ctype(ty), k * size, e.buf);
	}
	sb_addf(&t->code, "\t\t\tif (ag_su%s(w, l, %s, c_, ly_, %u, %u, sb_)) return;\n",
		store ? "st" : "ld", h.buf, vec * size, mode);
	for (uint32_t k = 0; !store && k < vec; k++) {
		sb_reset(&e);
		sb_addf(&e, "ag_ld(%s, sb_ + %u)", tr_ctype(ty), k * size);
		sb_adds(&t->code, "\t\t\t");
		if (tr_dst(t, in, data_elem(data, k), ty, e.buf))
			goto out;
	}
	tr_lanes_end(t);
	rc = 0;
out:
	sb_free(&h);
	sb_free(&e);
	return rc;
}

tr_emit_fn tr_tex_emitter(const char *opcode)
{
	static const struct {
		const char *op;
		tr_emit_fn fn;
	} tab[] = {
		{ "tex", emit_tex }, { "tld4", emit_tld4 }, { "suld", emit_surface },
		{ "sust", emit_surface },
	};

	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (!strcmp(opcode, tab[i].op))
			return tab[i].fn;
	return NULL;
}
