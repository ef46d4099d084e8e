/*
 * warp_redux.cu - redux.sync (sm_80) with add/min/max on .u32 and .s32
 * and and/or/xor on .b32 over full and partial member masks.  Every
 * member lane gets the reduction of the members' values.
 */
#include "warp_ref.h"

LANE_KERNEL(k_redux_add_u32, "redux.sync.add.u32 %0, %1, %2;")
LANE_KERNEL(k_redux_min_u32, "redux.sync.min.u32 %0, %1, %2;")
LANE_KERNEL(k_redux_max_u32, "redux.sync.max.u32 %0, %1, %2;")
LANE_KERNEL(k_redux_min_s32, "redux.sync.min.s32 %0, %1, %2;")
LANE_KERNEL(k_redux_max_s32, "redux.sync.max.s32 %0, %1, %2;")
LANE_KERNEL(k_redux_and, "redux.sync.and.b32 %0, %1, %2;")
LANE_KERNEL(k_redux_or, "redux.sync.or.b32 %0, %1, %2;")
LANE_KERNEL(k_redux_xor, "redux.sync.xor.b32 %0, %1, %2;")

int main()
{
	std::vector<wcase> mc = mask_cases();
	std::vector<u32> mv = lane_values(mc.size());

	run_warp("redux.sync.add.u32", k_redux_add_u32, fold(0, [](u32 a, u32 x) { return a + x; }), mv, mc);
	run_warp("redux.sync.min.u32", k_redux_min_u32, fold(~0u, [](u32 a, u32 x) { return a < x ? a : x; }), mv, mc);
	run_warp("redux.sync.max.u32", k_redux_max_u32, fold(0, [](u32 a, u32 x) { return a > x ? a : x; }), mv, mc);
	run_warp("redux.sync.min.s32", k_redux_min_s32,
		 fold(0x7fffffff, [](u32 a, u32 x) { return (int)a < (int)x ? a : x; }), mv, mc);
	run_warp("redux.sync.max.s32", k_redux_max_s32,
		 fold(0x80000000, [](u32 a, u32 x) { return (int)a > (int)x ? a : x; }), mv, mc);
	run_warp("redux.sync.and.b32", k_redux_and, fold(~0u, [](u32 a, u32 x) { return a & x; }), mv, mc);
	run_warp("redux.sync.or.b32", k_redux_or, fold(0, [](u32 a, u32 x) { return a | x; }), mv, mc);
	run_warp("redux.sync.xor.b32", k_redux_xor, fold(0, [](u32 a, u32 x) { return a ^ x; }), mv, mc);
	return verdict("warp_redux");
}
