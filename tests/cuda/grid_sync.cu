/*
 * grid_sync: cg::this_grid().sync() in a kernel started with
 * cudaLaunchCooperativeKernel.  Each phase reads what every block wrote in
 * the phase before, so a grid barrier that lets one block run ahead gives
 * a wrong sum; the grid is as large as the device says can be resident.
 * Last, on the cpu engine, the same kernel started with <<<>>>: grid.sync()
 * has no grid to wait for and traps, which the next synchronisation
 * reports as cudaErrorLaunchFailure (sticky, so it comes last).
 */
#include <cooperative_groups.h>
#include "check.h"

namespace cg = cooperative_groups;

#define BLOCK 64
#define PHASES 5

__global__ void phases(int *buf, int n, int *sums)
{
	cg::grid_group g = cg::this_grid();
	int i = blockIdx.x * blockDim.x + threadIdx.x;

	for (int p = 0; p < PHASES; p++) {
		if (i < n)
			buf[(p + 1) * n + i] = buf[p * n + (n - 1 - i)] + 1;
		g.sync();
		if (i == 0) {
			int s = 0;
			for (int k = 0; k < n; k++)
				s += buf[(p + 1) * n + k];
			sums[p] = s;
		}
		g.sync();
	}
}

int main(void)
{
	int dev = 0, sms = 0, per_sm = 0, coop = 0;

	CK(cudaGetDevice(&dev));
	CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, BLOCK, 0));
	check(coop == 1, "cudaDevAttrCooperativeLaunch is %d, want 1", coop);
	int blocks = sms * per_sm < 8 ? sms * per_sm : 8;
	int n = blocks * BLOCK;
	if (!check(blocks >= 1, "no block can be resident (%d per SM)", per_sm))
		return verdict("grid_sync");

	int *h = (int *)malloc(sizeof(int) * n * (PHASES + 1)), *buf, *sums, hs[PHASES];
	for (int k = 0; k < n; k++)
		h[k] = k;
	CK(cudaMalloc(&buf, sizeof(int) * n * (PHASES + 1)));
	CK(cudaMalloc(&sums, sizeof(int) * PHASES));
	CK(cudaMemcpy(buf, h, sizeof(int) * n, cudaMemcpyHostToDevice));
	void *args[] = { &buf, &n, &sums };
	CK(cudaLaunchCooperativeKernel((void *)phases, blocks, BLOCK, args, 0, 0));
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(hs, sums, sizeof(hs), cudaMemcpyDeviceToHost));

	/* Every phase adds 1 to each element (the reversal keeps the sum). */
	long base = (long)n * (n - 1) / 2;
	for (int p = 0; p < PHASES; p++)
		check(hs[p] == base + (long)n * (p + 1), "phase %d: sum %d, want %ld", p, hs[p],
		      base + (long)n * (p + 1));
	free(h);
	CK(cudaFree(sums));
	/* A GPU may let it run on, or hang: only the cpu engine's trap is
	 * checked. */
	if (on_cpu_engine()) {
		phases<<<blocks, BLOCK>>>(buf, n, buf);
		CK(cudaGetLastError());
		CK_EXPECT(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
	}
	return verdict("grid_sync");
}
