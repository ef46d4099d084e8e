/*
 * scan_kernels.h - the kernels of the scan (scan.cu), shared with the
 * probe that times them one at a time (probes/scan_phases.cu).  Each
 * block scans 1024 elements: a thread scans its 4 in registers, warps scan
 * the thread totals with __shfl_up_sync, the warp totals are scanned by the
 * first warp through shared memory; add_offsets adds each block's offset
 * to its elements.
 */
#ifndef SCAN_KERNELS_H
#define SCAN_KERNELS_H

#define THREADS 256
#define PER_THREAD 4
#define PER_BLOCK (THREADS * PER_THREAD)

/* The inclusive scan of v over the lanes of a warp. */
__device__ unsigned warp_scan(unsigned v, int lane)
{
	unsigned up;
	int off;

	for (off = 1; off < 32; off <<= 1) {
		up = __shfl_up_sync(0xffffffffu, v, off);
		if (lane >= off)
			v += up;
	}
	return v;
}

/* The exclusive scan of v over the block; its total goes to *total. */
__device__ unsigned block_scan(unsigned v, unsigned *total)
{
	__shared__ unsigned warps[THREADS / 32];
	int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	unsigned incl = warp_scan(v, lane);

	if (lane == 31)
		warps[warp] = incl;
	__syncthreads();
	if (warp == 0) {
		unsigned w = lane < THREADS / 32 ? warps[lane] : 0;

		w = warp_scan(w, lane);
		if (lane < THREADS / 32)
			warps[lane] = w;
	}
	__syncthreads();
	*total = warps[THREADS / 32 - 1];
	return incl - v + (warp > 0 ? warps[warp - 1] : 0);
}

__global__ void scan_blocks(const unsigned *in, unsigned *out, unsigned *sums, int n)
{
	int base = blockIdx.x * PER_BLOCK + threadIdx.x * PER_THREAD;
	unsigned v[PER_THREAD], sum = 0, offset, total;
	int k;

	for (k = 0; k < PER_THREAD; k++) {
		v[k] = base + k < n ? in[base + k] : 0;
		sum += v[k];
	}
	offset = block_scan(sum, &total);
	for (k = 0; k < PER_THREAD; k++) {
		if (base + k < n)
			out[base + k] = offset;
		offset += v[k];
	}
	if (threadIdx.x == 0)
		sums[blockIdx.x] = total;
}

__global__ void add_offsets(unsigned *out, const unsigned *offsets, int n)
{
	int i = blockIdx.x * PER_BLOCK + threadIdx.x;
	unsigned add = offsets[blockIdx.x];
	int k;

	for (k = 0; k < PER_THREAD; k++, i += THREADS)
		if (i < n)
			out[i] += add;
}

#endif
