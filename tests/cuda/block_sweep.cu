/*
 * block_sweep: grid-stride loops after a barrier, as shared-memory
 * histograms write them, which the cpu engine runs by having each block
 * sweep its own threads' turns when its first warp reaches the loop
 * (docs/cpu-engine.md, "A block's own sweep").  The loops' shared-memory
 * atomics, their reads of what the block put in shared memory before the
 * barrier, the values atomics return, the sums the loop carries into a
 * block reduction after it, and what a thread computed before the barrier
 * and uses after the loop must all keep their meaning, over 32- and 64-bit
 * indices: for every grid and block (warps cut short, one thread, more
 * blocks than work), every n (short of the grid, past it, zero, negative)
 * and in 2D launches (which the engine runs in lockstep).  A fault in the
 * loop is an illegal address.
 */
#include <cstdint>
#include "check.h"

#define BINS 64

/* The histogram of the bench suite, two bytes a word. */
__global__ void hist(const unsigned *w, unsigned *bins, int n)
{
	__shared__ unsigned local[BINS];

	for (int i = threadIdx.x; i < BINS; i += blockDim.x)
		local[i] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		unsigned v = w[i];

		atomicAdd(&local[v % BINS], 1u);
		atomicAdd(&local[(v >> 8) % BINS], 1u);
	}
	__syncthreads();
	for (int i = threadIdx.x; i < BINS; i += blockDim.x)
		atomicAdd(&bins[i], local[i]);
}

/* A table the block loads into shared memory before the barrier, read in
 * the loop; each thread's weighted sum, carried out of the loop into a
 * block reduction; and the thread's own index, made before the barrier,
 * used after the loop. */
__global__ void lut_sum(const unsigned *w, const int *table, long long *out, int *last, int n)
{
	__shared__ int lut[16];
	__shared__ long long part[256];
	long long acc = 0;
	int me = blockIdx.x * blockDim.x + threadIdx.x;

	if (threadIdx.x < 16)
		lut[threadIdx.x] = table[threadIdx.x];
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		acc += lut[w[i] & 15] * (long long)(i % 7 + 1);
	part[threadIdx.x] = acc;
	last[me] = me;
	__syncthreads();
	if (threadIdx.x == 0) {
		long long s = 0;

		for (unsigned t = 0; t < blockDim.x; t++)
			s += part[t];
		out[blockIdx.x] = s;
	}
}

/* The same over a 64-bit index, its sum a double (whole numbers: exact
 * in any order). */
__global__ void lut_sum64(const unsigned *w, const int *table, double *out, size_t n)
{
	__shared__ int lut[16];
	__shared__ double part[256];
	double acc = 0;

	if (threadIdx.x < 16)
		lut[threadIdx.x] = table[threadIdx.x];
	__syncthreads();
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)blockDim.x * gridDim.x)
		acc += lut[w[i] & 15] * (double)(i % 5 + 1);
	part[threadIdx.x] = acc;
	__syncthreads();
	if (threadIdx.x == 0) {
		double s = 0;

		for (unsigned t = 0; t < blockDim.x; t++)
			s += part[t];
		out[blockIdx.x] = s;
	}
}

/* Tickets from a shared counter: whatever order the block's threads take
 * them in, each element gets one, and a block's are 0 .. count - 1. */
__global__ void tickets(unsigned *owner, unsigned *count, int n)
{
	__shared__ unsigned next;

	if (threadIdx.x == 0)
		next = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		owner[i] = atomicAdd(&next, 1u);
	__syncthreads();
	if (threadIdx.x == 0)
		count[blockIdx.x + gridDim.x * blockIdx.y] = next;
}

static unsigned word(int i)
{
	return (unsigned)i * 2654435761u ^ (unsigned)i >> 3;
}

static unsigned *words_on_device(int n)
{
	unsigned *h = (unsigned *)malloc((size_t)(n > 0 ? n : 1) * 4), *d;

	for (int i = 0; i < n; i++)
		h[i] = word(i);
	CK(cudaMalloc(&d, (size_t)(n > 0 ? n : 1) * 4));
	CK(cudaMemcpy(d, h, (size_t)(n > 0 ? n : 0) * 4, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

static void run_hist(dim3 grid, dim3 block, int n)
{
	unsigned want[BINS] = { 0 }, got[BINS], *w = words_on_device(n), *bins;
	/* y and z blocks repeat x's, and so do y and z threads, both in the
	 * loop and in adding the block's bins to the total */
	unsigned rows = block.y * block.z, copies = grid.y * grid.z * rows * rows;

	for (int i = 0; i < n; i++) {
		want[word(i) % BINS] += copies;
		want[(word(i) >> 8) % BINS] += copies;
	}
	CK(cudaMalloc(&bins, sizeof(got)));
	CK(cudaMemset(bins, 0, sizeof(got)));
	hist<<<grid, block>>>(w, bins, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, bins, sizeof(got), cudaMemcpyDeviceToHost));
	check_array("hist", got, want, BINS);
	CK(cudaFree(w));
	CK(cudaFree(bins));
}

static void run_lut_sum(int blocks, int threads, int n)
{
	static const int table[16] = { 3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3 };
	int nt = blocks * threads, *dtable, *dlast;
	unsigned *w = words_on_device(n);
	long long *want = (long long *)calloc(blocks, 8), *got = (long long *)malloc(blocks * 8);
	long long *dout;
	int *last = (int *)malloc(nt * 4), *wlast = (int *)malloc(nt * 4);

	for (int i = 0; i < n; i++)
		want[i % nt / threads] += table[word(i) & 15] * (long long)(i % 7 + 1);
	for (int t = 0; t < nt; t++)
		wlast[t] = t;
	CK(cudaMalloc(&dtable, sizeof(table)));
	CK(cudaMalloc(&dout, blocks * 8));
	CK(cudaMalloc(&dlast, nt * 4));
	CK(cudaMemcpy(dtable, table, sizeof(table), cudaMemcpyHostToDevice));
	lut_sum<<<blocks, threads>>>(w, dtable, dout, dlast, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dout, blocks * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(last, dlast, nt * 4, cudaMemcpyDeviceToHost));
	check_array("lut_sum: each block's sum", got, want, blocks);
	check_array("lut_sum: each thread's index after the loop", last, wlast, nt);
	CK(cudaFree(w));
	CK(cudaFree(dtable));
	CK(cudaFree(dout));
	CK(cudaFree(dlast));
	free(want), free(got), free(last), free(wlast);
}

static void run_lut_sum64(int blocks, int threads, size_t n)
{
	static const int table[16] = { 3, -1, 4, 1, -5, 9, 2, -6, 5, 3, -5, 8, 9, -7, 9, 3 };
	unsigned *w = words_on_device((int)n);
	double *want = (double *)calloc(blocks, 8), *got = (double *)malloc(blocks * 8), *dout;
	int *dtable;

	for (size_t i = 0; i < n; i++)
		want[i / threads % blocks] += table[word((int)i) & 15] * (double)(i % 5 + 1);
	CK(cudaMalloc(&dtable, sizeof(table)));
	CK(cudaMalloc(&dout, blocks * 8));
	CK(cudaMemcpy(dtable, table, sizeof(table), cudaMemcpyHostToDevice));
	lut_sum64<<<blocks, threads>>>(w, dtable, dout, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, dout, blocks * 8, cudaMemcpyDeviceToHost));
	check_array("lut_sum64: each block's sum", got, want, blocks);
	CK(cudaFree(w));
	CK(cudaFree(dtable));
	CK(cudaFree(dout));
	free(want), free(got);
}

static void run_tickets(dim3 grid, int threads, int n)
{
	int T = grid.x * threads, nb = grid.x * grid.y;
	unsigned *owner, *count, *h = (unsigned *)malloc((size_t)(n > 0 ? n : 1) * 4);
	unsigned *hcount = (unsigned *)malloc(nb * 4);
	unsigned char *seen = (unsigned char *)calloc(n > 0 ? n : 1, 1);
	bool ok = true;

	CK(cudaMalloc(&owner, (size_t)(n > 0 ? n : 1) * 4));
	CK(cudaMalloc(&count, nb * 4));
	tickets<<<grid, threads>>>(owner, count, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, owner, (size_t)(n > 0 ? n : 0) * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hcount, count, nb * 4, cudaMemcpyDeviceToHost));
	/* a block's elements: threads of them from b * threads on, every T;
	 * the y blocks of a 2D grid take tickets for the same elements (the
	 * last one's stay), and each counts them all */
	for (int b = 0; b < nb; b++) {
		unsigned want = 0;

		for (int i = b % grid.x * threads; i < n; i += T)
			want += i + threads <= n ? threads : n - i;
		ok &= check(hcount[b] == want, "tickets: block %d counted %u, not %u", b,
			    hcount[b], want);
		memset(seen, 0, n > 0 ? n : 1);
		for (int i = b % grid.x * threads; i < n && grid.y == 1; i += T)
			for (int t = i; t < i + threads && t < n; t++)
				ok &= h[t] < want && !seen[h[t]]++;
	}
	check(ok, "tickets: %d blocks of %d, n %d: a ticket twice or out of range", grid.x,
	      threads, n);
	CK(cudaFree(owner));
	CK(cudaFree(count));
	free(h), free(hcount), free(seen);
}

/* The loop reads a word it was not given. */
static void run_fault(void)
{
	unsigned *bins;

	CK(cudaMalloc(&bins, BINS * 4));
	hist<<<8, 64>>>((const unsigned *)(uintptr_t)64, bins, 4096);
	CK(cudaGetLastError());
	cudaError_t e = cudaDeviceSynchronize();
	check(e == cudaErrorIllegalAddress, "a load from address 64 in the loop: %s",
	      cudaGetErrorName(e));
}

int main(void)
{
	run_hist(dim3(240), dim3(256), 240 * 256 * 9 + 77);
	run_hist(dim3(7), dim3(64), 997);
	run_hist(dim3(3), dim3(50), 777);
	run_hist(dim3(1000), dim3(128), 500);
	run_hist(dim3(1), dim3(1), 100);
	run_hist(dim3(7), dim3(64), 0);
	run_hist(dim3(7), dim3(64), -5);
	run_hist(dim3(4, 3), dim3(64), 3000);
	run_hist(dim3(5), dim3(32, 2), 2000);
	run_lut_sum(40, 96, 40 * 96 * 5 + 13);
	run_lut_sum(9, 256, 1000);
	run_lut_sum(3, 33, 0);
	run_lut_sum64(30, 128, 30 * 128 * 4 + 9);
	run_lut_sum64(5, 64, 100);
	run_tickets(dim3(10), 64, 10 * 64 * 3 + 5);
	run_tickets(dim3(6), 100, 200);
	run_tickets(dim3(4, 2), 64, 1500);
	run_fault();
	return verdict("block_sweep");
}
