/*
 * translate_tex.h - the run-time part of texture and surface instructions
 * in generated modules (emit_tex.c writes the calls): texel addressing,
 * the address modes, point and linear filtering, gathers, and surface
 * loads and stores, as the CUDA Programming Guide's "Texture Fetching"
 * appendix and the PTX ISA describe them.  Embedded after translate_rt.h
 * and tex_abi.h; nothing else includes it.
 *
 * Results are four 32-bit words: a float's bits when the texture returns
 * floats (float formats, or integers read as normalized floats), the
 * integer otherwise; the instruction's destination type reinterprets them
 * as a GPU's registers would.  Channels a format lacks read 0, alpha 1;
 * outside linear memory, and outside integer textures in the border mode,
 * every channel reads 0.
 */

/* The object behind handle h, or NULL after a fault naming what is wrong. */
AG_INLINE const struct ag_texobj *ag_tex_obj(struct ag_warp *w, unsigned l, uint64_t h,
					     unsigned surface)
{
	const struct ag_texobj *t = (const struct ag_texobj *)(uintptr_t)h;

	if (!t || t->magic != AG_TEX_MAGIC || t->surface != surface) {
		ag_fault(w, l, 719, surface ? "not a surface object" : "not a texture object");
		return NULL;
	}
	return t;
}

/* floor as an index; NaN reads as 0 and huge values stay far outside. */
AG_INLINE long long ag_tex_floor(float x)
{
	if (!(x == x))
		return 0;
	x = x < -1e12f ? -1e12f : x > 1e12f ? 1e12f : x;
	return (long long)floorf(x);
}

/* Index i of a dimension of n texels under an address mode; -1 when it
 * falls outside under the border mode. */
AG_INLINE long long ag_tex_index(long long i, long long n, unsigned mode)
{
	long long m;

	switch (mode) {
	case AG_TEX_WRAP:
		return (i % n + n) % n;
	case AG_TEX_MIRROR:
		m = (i % (2 * n) + 2 * n) % (2 * n);
		return m < n ? m : 2 * n - 1 - m;
	case AG_TEX_BORDER:
		return i < 0 || i >= n ? -1 : i;
	default:
		return i < 0 ? 0 : i >= n ? n - 1 : i;
	}
}

/* A float coordinate in texels: wrap and mirror act on the fractional
 * part of normalized coordinates, which are then scaled by the size. */
AG_INLINE float ag_tex_coord(const struct ag_texobj *t, unsigned d, float x)
{
	float f;

	if (!t->norm_coords)
		return x;
	f = x - floorf(x);
	if (t->address[d] == AG_TEX_WRAP)
		x = f;
	else if (t->address[d] == AG_TEX_MIRROR)
		x = (ag_tex_floor(x) & 1) ? 1.0f - f : f;
	return x * (float)t->size[d];
}

/* Channel c of the element at p, as a result word. */
AG_INLINE uint32_t ag_tex_channel(const struct ag_texobj *t, const unsigned char *p, unsigned c)
{
	int sgn = t->format == AG_TEX_SIGNED;
	uint32_t u;
	int32_t s;

	switch (t->bits) {
	case 8:
		u = p[c];
		s = (int8_t)p[c];
		if (t->read_float)
			return ag_f32_bits(sgn ? fmaxf(-1.0f, (float)s / 127.0f) : (float)u / 255.0f);
		return sgn ? (uint32_t)s : u;
	case 16:
		u = ag_ld(uint16_t, p + 2 * c);
		s = (int16_t)u;
		if (t->format == AG_TEX_FLOAT)
			return ag_f32_bits(ag_f16_f32((uint16_t)u));
		if (t->read_float)
			return ag_f32_bits(sgn ? fmaxf(-1.0f, (float)s / 32767.0f) :
					   (float)u / 65535.0f);
		return sgn ? (uint32_t)s : u;
	default:
		return ag_ld(uint32_t, p + 4 * c);
	}
}

AG_INLINE int ag_tex_returns_float(const struct ag_texobj *t)
{
	return t->format == AG_TEX_FLOAT || t->read_float;
}

/* The texel at resolved indices ix (-1: outside, the border colour). */
AG_INLINE void ag_tex_texel(const struct ag_texobj *t, const long long ix[3], uint32_t out[4])
{
	const unsigned char *p;
	unsigned c;

	if (ix[0] < 0 || ix[1] < 0 || ix[2] < 0) {
		for (c = 0; c < 4; c++)
			out[c] = !t->linear_mem && ag_tex_returns_float(t) ?
				ag_f32_bits(t->border[c]) : 0;
		return;
	}
	p = t->base + ix[2] * t->slice + ix[1] * t->pitch + ix[0] * (long long)t->elem;
	for (c = 0; c < 4; c++)
		out[c] = c < t->channels ? ag_tex_channel(t, p, c) :
			c < 3 ? 0 : ag_tex_returns_float(t) ? ag_f32_bits(1.0f) : 1;
}

/* The layer an instruction's array index selects: an unsigned index,
 * clamped to the last layer; 0 when the object is not layered. */
AG_INLINE long long ag_tex_layer(const struct ag_texobj *t, uint32_t layer)
{
	return !t->layers ? 0 : layer < t->layers ? layer : t->layers - 1;
}

/* The texel at unresolved indices i (0 in absent dimensions) of a layer
 * (ag_tex_layer's). */
AG_INLINE void ag_tex_at(const struct ag_texobj *t, const long long i[3], long long layer,
			 uint32_t out[4])
{
	long long ix[3] = { 0, 0, layer };
	unsigned d;

	for (d = 0; d < t->dims; d++)
		ix[d] = t->linear_mem ? (i[d] < 0 || i[d] >= t->size[d] ? -1 : i[d]) :
			ag_tex_index(i[d], t->size[d], t->address[d]);
	ag_tex_texel(t, ix, out);
}

/* Linear filtering: the texel below x - 0.5 in each dimension and its
 * weight, the fraction held in 9-bit fixed point with 8 fractional bits,
 * rounded half up: an H200 gives exactly that at 16384 sampled
 * coordinates, where round-half-even differs at 171 of them. */
AG_INLINE void ag_tex_base(const struct ag_texobj *t, const float *c, long long i[3],
			   float a[3])
{
	unsigned d;

	for (d = 0; d < 3; d++) {
		float xb = d < t->dims ? ag_tex_coord(t, d, c[d]) - 0.5f : 0.0f;

		i[d] = ag_tex_floor(xb);
		a[d] = floorf((xb - floorf(xb)) * 256.0f + 0.5f) / 256.0f;
		if (!(xb == xb))
			a[d] = 0.0f;
	}
}

/* Sums the 2, 4 or 8 texels around c, each weighted by the product of
 * (1 - a) or a per dimension, in the Programming Guide's order; a layered
 * texture filters within the layer. */
AG_INLINE void ag_tex_linear(const struct ag_texobj *t, const float *c, long long layer,
			     uint32_t out[4])
{
	long long i[3], j[3];
	float a[3], sum[4] = { 0, 0, 0, 0 };
	uint32_t v[4];
	unsigned k, d, ch;

	ag_tex_base(t, c, i, a);
	for (k = 0; k < (1u << t->dims); k++) {
		float wt = 1.0f;

		for (d = 0; d < 3; d++) {
			unsigned up = d < t->dims && ((k >> d) & 1);

			j[d] = i[d] + up;
			if (d < t->dims)
				wt *= up ? a[d] : 1.0f - a[d];
		}
		ag_tex_at(t, j, layer, v);
		for (ch = 0; ch < 4; ch++)
			sum[ch] += wt * ag_bits_f32(v[ch]);
	}
	for (ch = 0; ch < 4; ch++)
		out[ch] = ag_f32_bits(sum[ch]);
}

/* tex with float coordinates c[dims], in layer ly of a layered texture. */
AG_INLINE int ag_tex_sample(struct ag_warp *w, unsigned l, uint64_t h, const float *c,
			    uint32_t ly, uint32_t out[4])
{
	const struct ag_texobj *t = ag_tex_obj(w, l, h, 0);
	long long i[3] = { 0, 0, 0 };
	unsigned d;

	if (!t)
		return -1;
	if (t->filter_linear && ag_tex_returns_float(t)) {
		ag_tex_linear(t, c, ag_tex_layer(t, ly), out);
		return 0;
	}
	for (d = 0; d < t->dims; d++)
		i[d] = ag_tex_floor(ag_tex_coord(t, d, c[d]));
	ag_tex_at(t, i, ag_tex_layer(t, ly), out);
	return 0;
}

/* tex with integer coordinates (tex1Dfetch): texel indices as given. */
AG_INLINE int ag_tex_fetch(struct ag_warp *w, unsigned l, uint64_t h, const int32_t *c,
			   uint32_t ly, uint32_t out[4])
{
	const struct ag_texobj *t = ag_tex_obj(w, l, h, 0);
	long long i[3] = { 0, 0, 0 };
	unsigned d;

	if (!t)
		return -1;
	for (d = 0; d < t->dims; d++)
		i[d] = c[d];
	ag_tex_at(t, i, ag_tex_layer(t, ly), out);
	return 0;
}

/* tld4: channel comp of the four texels linear filtering of a 2D texture
 * (layer ly) would weigh, counter-clockwise from (i, j+1): (i,j+1)
 * (i+1,j+1) (i+1,j) (i,j). */
AG_INLINE int ag_tex_gather(struct ag_warp *w, unsigned l, uint64_t h, const float *c,
			    uint32_t ly, unsigned comp, uint32_t out[4])
{
	static const unsigned dx[4] = { 0, 1, 1, 0 }, dy[4] = { 1, 1, 0, 0 };
	const struct ag_texobj *t = ag_tex_obj(w, l, h, 0);
	long long i[3], j[3] = { 0, 0, 0 };
	float a[3];
	uint32_t v[4];
	unsigned k;

	if (!t)
		return -1;
	if (t->dims != 2) {
		ag_fault(w, l, 719, "tld4 on a texture that is not 2D");
		return -1;
	}
	ag_tex_base(t, c, i, a);
	for (k = 0; k < 4; k++) {
		j[0] = i[0] + dx[k];
		j[1] = i[1] + dy[k];
		ag_tex_at(t, j, ag_tex_layer(t, ly), v);
		out[k] = v[comp];
	}
	return 0;
}

/* Where a surface access of n bytes at c (x in bytes), in layer ly (an
 * unsigned index) of a layered surface, lands after the out-of-range
 * mode: 0 trap, 1 clamp, 2 zero.  NULL when it reads zero or stores
 * nothing; a trap faults and sets *trap. */
AG_INLINE unsigned char *ag_surf_addr(struct ag_warp *w, unsigned l, uint64_t h,
				      const int32_t *c, uint32_t ly, unsigned n, unsigned mode,
				      int *trap)
{
	const struct ag_texobj *t = ag_tex_obj(w, l, h, 1);
	long long x[3] = { 0, 0, 0 }, hi;
	unsigned d;

	*trap = t == NULL;
	if (!t)
		return NULL;
	for (d = 0; d < 3; d++) {
		if (d >= t->dims && !(d == 2 && t->layers))
			continue;
		x[d] = d < t->dims ? c[d] : (long long)ly;
		hi = d >= t->dims ? (long long)t->layers - 1 :
			d ? t->size[d] - 1 : t->size[0] * t->elem - n;
		if (x[d] >= 0 && x[d] <= hi)
			continue;
		if (mode == 1 && hi >= 0) {     /* an access wider than a row cannot clamp */
			x[d] = x[d] < 0 ? 0 : hi;
		} else if (mode == 2) {
			return NULL;
		} else {
			ag_fault(w, l, 719, "surface access out of range");
			*trap = 1;
			return NULL;
		}
	}
	return t->base + x[2] * t->slice + x[1] * t->pitch + x[0];
}

/* suld.b: n bytes into out (zeros when out of range in zero mode). */
AG_INLINE int ag_suld(struct ag_warp *w, unsigned l, uint64_t h, const int32_t *c, uint32_t ly,
		      unsigned n, unsigned mode, unsigned char *out)
{
	int trap;
	const unsigned char *p = ag_surf_addr(w, l, h, c, ly, n, mode, &trap);

	if (p)
		memcpy(out, p, n);
	else
		memset(out, 0, n);
	return -trap;
}

/* sust.b: n bytes from in. */
AG_INLINE int ag_sust(struct ag_warp *w, unsigned l, uint64_t h, const int32_t *c, uint32_t ly,
		      unsigned n, unsigned mode, const unsigned char *in)
{
	int trap;
	unsigned char *p = ag_surf_addr(w, l, h, c, ly, n, mode, &trap);

	if (p)
		memcpy(p, in, n);
	return -trap;
}
