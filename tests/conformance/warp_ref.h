/*
 * warp_ref.h - the harness of the warp-level conformance programs: one
 * case (operands and member mask) per warp, kernels whose member lanes
 * each write one result word (lanes outside the mask write all ones),
 * and run_warp(), which checks every lane against a host reference that
 * sees the whole warp's values.
 */
#ifndef AG_WARP_REF_H
#define AG_WARP_REF_H

#include <functional>

#include "conf.h"

/* A case per warp: the lanes' values, shuffle operands b and c, and the
 * member mask (lanes outside it do not execute the instruction). */
struct wcase {
	u32 b, c, mask;
};

/* vote, match and redux: the result of each in one word per lane. */
#define LANE_KERNEL(name, body)                                                          \
	__global__ void name(const u32 *v, const wcase *wc, u64 *r)                     \
	{                                                                               \
		u32 i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;  \
		wcase w = wc[i / 32];                                                   \
		u32 d = 0, a = v[i];                                                     \
		r[i] = ~0ull;                                                           \
		if (!(w.mask >> lane & 1))                                              \
			return;                                                         \
		asm volatile(body : "+r"(d) : "r"(a), "r"(w.mask));                     \
		r[i] = d;                                                               \
	}

typedef void (*warp_kernel)(const u32 *, const wcase *, u64 *);
typedef std::function<u64(const u32 *v, u32 lane, const wcase &w)> lane_ref;

/* Runs k over the cases, one warp each, and checks every member lane. */
static void run_warp(const char *name, warp_kernel k, lane_ref ref, const std::vector<u32> &v,
		     const std::vector<wcase> &wc)
{
	size_t n = wc.size() * 32, bad = 0;
	std::vector<u64> got(n);
	u32 *dv;
	wcase *dw;
	u64 *dr;

	CK(cudaMalloc(&dv, n * 4));
	CK(cudaMalloc(&dw, wc.size() * sizeof(wcase)));
	CK(cudaMalloc(&dr, n * 8));
	CK(cudaMemcpy(dv, v.data(), n * 4, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dw, wc.data(), wc.size() * sizeof(wcase), cudaMemcpyHostToDevice));
	k<<<(unsigned)n / 128, 128>>>(dv, dw, dr);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dr, n * 8, cudaMemcpyDeviceToHost));
	CK(cudaFree(dv));
	CK(cudaFree(dw));
	CK(cudaFree(dr));
	for (size_t i = 0; i < n; i++) {
		const wcase &w = wc[i / 32];
		u32 lane = i % 32;
		u64 want = w.mask >> lane & 1 ? ref(&v[i - lane], lane, w) : ~0ull;
		if (got[i] == want)
			continue;
		if (bad++ < 3)
			fprintf(stderr, "%s: lane %u b=%#x c=%#x mask=%#x: got %#llx, want %#llx\n",
				name, lane, w.b, w.c, w.mask, got[i], want);
	}
	if (bad > 3)
		fprintf(stderr, "%s: %zu of %zu lanes differ\n", name, bad, n);
	failures += bad != 0;
}

/* A fold of f over the member lanes' values. */
static lane_ref fold(u32 init, std::function<u32(u32, u32)> f)
{
	return [init, f](const u32 *v, u32 lane, const wcase &w) {
		u32 acc = init;
		(void)lane;
		for (u32 l = 0; l < 32; l++)
			if (w.mask >> l & 1)
				acc = f(acc, v[l]);
		return (u64)acc;
	};
}

static u32 ballot(const u32 *v, u32 mask)
{
	u32 b = 0;
	for (u32 l = 0; l < 32; l++)
		if (mask >> l & 1 && v[l] & 1)
			b |= 1u << l;
	return b;
}

static u32 match_any(const u32 *v, u32 lane, u32 mask)
{
	u32 m = 0;
	for (u32 l = 0; l < 32; l++)
		if (mask >> l & 1 && v[l] == v[lane])
			m |= 1u << l;
	return m;
}

/* Vote/match/redux cases: full, half, odd and single-lane masks. */
static std::vector<wcase> mask_cases()
{
	static const u32 masks[] = { 0xffffffff, 0x0000ffff, 0xaaaaaaaa, 0x80000001, 0x00000010,
				     0x7fffffff, 0xf0f0f0f0, 0x12345678 };
	std::vector<wcase> wc;

	for (int rep = 0; rep < 4; rep++)
		for (u32 m : masks)
			wc.push_back({ 0, 0, m });
	return wc;
}

/* Lane values: random, small groups (for match), all equal, all odd. */
static std::vector<u32> lane_values(size_t warps)
{
	std::vector<u32> v(warps * 32);

	for (size_t i = 0; i < v.size(); i++) {
		switch ((i / 32) % 4) {
		case 0:
			v[i] = (u32)rnd();
			break;
		case 1:
			v[i] = (u32)(rnd() % 3) * 0x80000001u;
			break;
		case 2:
			v[i] = 7;
			break;
		default:
			v[i] = (u32)rnd() | 1;
		}
	}
	return v;
}

#endif
