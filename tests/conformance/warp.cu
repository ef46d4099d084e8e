/*
 * warp.cu - conformance of the warp instructions: shfl.sync in its four
 * modes with every segment width, odd clamp values and a partial member
 * mask, including the predicate that says whether the source lane was in
 * range; vote.sync (all, any, uni, ballot), match.sync (any, all with its
 * predicate) with full and partial masks; and activemask in a warp that is only partly filled.  Each warp
 * gets its own case; the host computes every lane's result from the ISA's
 * pseudocode for that instruction.  redux.sync, which the engine refuses
 * today, is in warp_redux_pending.cu.
 */
#include "warp_ref.h"

enum shfl_mode { UP, DOWN, BFLY, IDX };

/* The ISA's shfl.sync: source lane j and whether it is in range. */
static void shfl_ref(enum shfl_mode mode, const u32 *v, u32 lane, u32 b, u32 c, u32 *d, u32 *p)
{
	u32 bval = b & 31, cval = c & 31, seg = (c >> 8) & 31;
	u32 maxl = (lane & seg) | (cval & ~seg), minl = lane & seg;
	int j;
	bool ok;

	switch (mode) {
	case UP:
		j = (int)lane - (int)bval;
		ok = j >= (int)maxl;
		break;
	case DOWN:
		j = (int)(lane + bval);
		ok = j <= (int)maxl;
		break;
	case BFLY:
		j = (int)(lane ^ bval);
		ok = j <= (int)maxl;
		break;
	default:
		j = (int)(minl | (bval & ~seg));
		ok = j <= (int)maxl;
		break;
	}
	if (!ok)
		j = (int)lane;
	*d = v[j];
	*p = ok;
}

#define SHFL_KERNEL(name, mode)                                                          \
	__global__ void name(const u32 *v, const wcase *wc, u64 *r)                     \
	{                                                                               \
		u32 i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;  \
		wcase w = wc[i / 32];                                                   \
		u32 d, p;                                                               \
		r[i] = ~0ull;                                                           \
		if (!(w.mask >> lane & 1))                                              \
			return;                                                         \
		asm volatile("{ .reg .pred q; shfl.sync." mode ".b32 %0|q, %2, %3, %4, %5;" \
			     " selp.u32 %1, 1, 0, q; }"                                  \
			     : "=r"(d), "=r"(p) : "r"(v[i]), "r"(w.b), "r"(w.c), "r"(w.mask)); \
		r[i] = d | (u64)p << 32;                                                \
	}

SHFL_KERNEL(k_shfl_up, "up")
SHFL_KERNEL(k_shfl_down, "down")
SHFL_KERNEL(k_shfl_bfly, "bfly")
SHFL_KERNEL(k_shfl_idx, "idx")

#define VOTE(m) "{ .reg .pred p, q; .reg .u32 t; and.b32 t, %1, 1; setp.ne.u32 p, t, 0;" \
	" vote.sync." m ".pred q, p, %2; selp.u32 %0, 1, 0, q; }"
LANE_KERNEL(k_vote_all, VOTE("all"))
LANE_KERNEL(k_vote_any, VOTE("any"))
LANE_KERNEL(k_vote_uni, VOTE("uni"))
LANE_KERNEL(k_vote_ballot, "{ .reg .pred p; .reg .u32 t; and.b32 t, %1, 1; setp.ne.u32 p, t, 0;"
			   " vote.sync.ballot.b32 %0, p, %2; }")
LANE_KERNEL(k_match_any, "match.sync.any.b32 %0, %1, %2;")
LANE_KERNEL(k_match_all, "{ .reg .pred p; .reg .u32 m, t; match.sync.all.b32 m|p, %1, %2;"
			 " selp.u32 t, 1, 0, p; shl.b32 t, t, 31; xor.b32 %0, m, t; }")
static lane_ref shfl(enum shfl_mode mode)
{
	return [mode](const u32 *v, u32 lane, const wcase &w) {
		u32 d, p;
		shfl_ref(mode, v, lane, w.b, w.c, &d, &p);
		return d | (u64)p << 32;
	};
}

/* Shuffle cases: every mode's b values against every width (CUDA's c
 * encoding), odd clamps, and the low half-warp as the member mask. */
static std::vector<wcase> shfl_cases()
{
	static const u32 bs[] = { 0, 1, 3, 5, 16, 31, 37 };
	static const u32 odd_c[] = { 0x0a, 0x1805, 0x0c1f, 0x1f1f };
	std::vector<wcase> wc;

	for (u32 b : bs) {
		for (u32 width = 1; width <= 32; width *= 2) {
			u32 seg = (32 - width) << 8;
			wc.push_back({ b, seg, 0xffffffff });
			wc.push_back({ b, seg | 0x1f, 0xffffffff });
			if (width <= 16) {
				wc.push_back({ b & 15, seg, 0x0000ffff });
				wc.push_back({ b & 15, seg | 0x1f, 0x0000ffff });
			}
		}
		for (u32 c : odd_c)
			wc.push_back({ b, c, 0xffffffff });
	}
	while (wc.size() % 4)
		wc.push_back({ 1, 0x1f, 0xffffffff });
	return wc;
}

/* activemask in a block of 48 threads: the second warp has 16 lanes. */
__global__ void k_activemask(u32 *r)
{
	u32 m;

	asm volatile("activemask.b32 %0;" : "=r"(m));
	r[threadIdx.x] = m;
}

static void run_activemask(void)
{
	u32 *d, got[48];

	CK(cudaMalloc(&d, sizeof(got)));
	k_activemask<<<1, 48>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (int i = 0; i < 48; i++)
		check(got[i] == (i < 32 ? 0xffffffffu : 0xffffu),
		      "activemask.b32: thread %d of 48: got %#x, want %#x", i, got[i],
		      i < 32 ? 0xffffffffu : 0xffffu);
}

int main()
{
	std::vector<wcase> sc = shfl_cases(), mc = mask_cases();
	std::vector<u32> sv = lane_values(sc.size()), mv = lane_values(mc.size());
	auto bit_of = [](u32 x) { return x & 1; };

	run_warp("shfl.sync.up.b32", k_shfl_up, shfl(UP), sv, sc);
	run_warp("shfl.sync.down.b32", k_shfl_down, shfl(DOWN), sv, sc);
	run_warp("shfl.sync.bfly.b32", k_shfl_bfly, shfl(BFLY), sv, sc);
	run_warp("shfl.sync.idx.b32", k_shfl_idx, shfl(IDX), sv, sc);
	run_warp("vote.sync.all.pred", k_vote_all, fold(1, [=](u32 a, u32 x) { return a & bit_of(x); }), mv, mc);
	run_warp("vote.sync.any.pred", k_vote_any, fold(0, [=](u32 a, u32 x) { return a | bit_of(x); }), mv, mc);
	run_warp("vote.sync.uni.pred", k_vote_uni,
		 [](const u32 *v, u32 lane, const wcase &w) {
			 u32 b = ballot(v, w.mask);
			 (void)lane;
			 return (u64)(b == 0 || b == w.mask);
		 }, mv, mc);
	run_warp("vote.sync.ballot.b32", k_vote_ballot,
		 [](const u32 *v, u32 lane, const wcase &w) { (void)lane; return (u64)ballot(v, w.mask); }, mv, mc);
	run_warp("match.sync.any.b32", k_match_any,
		 [](const u32 *v, u32 lane, const wcase &w) { return (u64)match_any(v, lane, w.mask); }, mv, mc);
	/* match.all: d = mask and p = 1 when all members agree, else d = 0, p = 0;
	 * the kernel returns d with bit 31 flipped by p. */
	run_warp("match.sync.all.b32", k_match_all,
		 [](const u32 *v, u32 lane, const wcase &w) {
			 bool all = match_any(v, lane, w.mask) == w.mask;
			 return (u64)((all ? w.mask : 0) ^ (all ? 0x80000000u : 0));
		 }, mv, mc);
	run_activemask();
	return verdict("warp");
}
