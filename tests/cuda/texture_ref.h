/*
 * texture_ref.h - the host's texture sampler for the texture tests, written
 * from the CUDA Programming Guide's "Texture Fetching" appendix: texels at
 * integer indices with the address modes, normalized coordinates scaled
 * by the size, nearest-point sampling T[floor(x)], and linear filtering
 * (1-a)T[i] + aT[i+1] with i = floor(x - 0.5) and a = frac(x - 0.5) held
 * in 9-bit fixed point with 8 fractional bits, extended to 2D and 3D.
 */
#ifndef AG_TEXTURE_REF_H
#define AG_TEXTURE_REF_H

#include <cmath>
#include <cuda_runtime.h>

/* A texture of float4 texels (channels the format lacks already filled),
 * w x h x d with h, d = 1 where a dimension is absent. */
struct ref_tex {
	const float4 *t;
	int w, h, d, dims;
	cudaTextureAddressMode mode[3];
	bool linear, normalized;
	float4 border;
};

/* Index i of n under an address mode; -1: outside in border mode. */
static inline int ref_index(long i, long n, cudaTextureAddressMode m)
{
	switch (m) {
	case cudaAddressModeWrap:
		return (int)(((i % n) + n) % n);
	case cudaAddressModeMirror: {
		long k = ((i % (2 * n)) + 2 * n) % (2 * n);
		return (int)(k < n ? k : 2 * n - 1 - k);
	}
	case cudaAddressModeBorder:
		return i < 0 || i >= n ? -1 : (int)i;
	default:
		return (int)(i < 0 ? 0 : i >= n ? n - 1 : i);
	}
}

static inline float4 ref_texel(const ref_tex &r, long i, long j, long k)
{
	long n[3] = { r.w, r.h, r.d }, at[3] = { i, j, k };
	int ix[3] = { 0, 0, 0 };
	for (int a = 0; a < r.dims; a++) {
		ix[a] = ref_index(at[a], n[a], r.mode[a]);
		if (ix[a] < 0)
			return r.border;
	}
	return r.t[((size_t)ix[2] * r.h + ix[1]) * r.w + ix[0]];
}

/* The coordinate in texels: with normalized coordinates, wrap keeps the
 * fraction, mirror mirrors odd periods, and the result is scaled. */
static inline float ref_coord(const ref_tex &r, int a, float x)
{
	int n[3] = { r.w, r.h, r.d };
	if (!r.normalized)
		return x;
	float f = x - floorf(x);
	if (r.mode[a] == cudaAddressModeWrap)
		x = f;
	else if (r.mode[a] == cudaAddressModeMirror)
		x = ((long)floorf(x) & 1) ? 1.0f - f : f;
	return x * n[a];
}

/* The weight as 9-bit fixed point, rounded half up (as an H200 does). */
static inline float ref_weight(float xb)
{
	return floorf((xb - floorf(xb)) * 256.0f + 0.5f) / 256.0f;
}

static inline void ref_add(float4 &s, float wt, float4 v)
{
	s.x += wt * v.x;
	s.y += wt * v.y;
	s.z += wt * v.z;
	s.w += wt * v.w;
}

static inline float4 ref_sample(const ref_tex &r, float x, float y = 0, float z = 0)
{
	float c[3] = { x, y, z };
	long i[3] = { 0, 0, 0 };
	float a[3] = { 0, 0, 0 };

	for (int d = 0; d < r.dims; d++) {
		float t = ref_coord(r, d, c[d]);
		if (r.linear) {
			i[d] = (long)floorf(t - 0.5f);
			a[d] = ref_weight(t - 0.5f);
		} else {
			i[d] = (long)floorf(t);
		}
	}
	if (!r.linear)
		return ref_texel(r, i[0], i[1], i[2]);
	float4 s = make_float4(0, 0, 0, 0);
	for (int k = 0; k < (1 << r.dims); k++) {
		float wt = 1;
		long j[3] = { i[0], i[1], i[2] };
		for (int d = 0; d < r.dims; d++) {
			int up = (k >> d) & 1;
			j[d] += up;
			wt *= up ? a[d] : 1 - a[d];
		}
		ref_add(s, wt, ref_texel(r, j[0], j[1], j[2]));
	}
	return s;
}

#endif
