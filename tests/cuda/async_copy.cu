/*
 * async_copy: sm_80 asynchronous copies into shared memory and the
 * barriers that wait for them, as CUDA code writes them: the primitives
 * (__pipeline_memcpy_async/commit/wait_prior), cuda::pipeline with two
 * stages over a block, cuda::memcpy_async with a cuda::barrier,
 * cooperative_groups::memcpy_async, and in inline PTX the zero fill of
 * cp.async with a source size or an ignore-src predicate and the
 * mbarrier's arrive.noComplete, pending_count, arrive_drop and
 * test_wait.parity, and arrivals in a kernel that never waits.  async_copy_sm90.cu builds the same for sm_90, where
 * nvcc writes try_wait loops and the expect_tx/complete_tx forms exist.
 */
// nvcc-flags: -arch=sm_80 -std=c++17
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline.h>

#include "check.h"

#ifndef ASYNC_COPY_NAME
#define ASYNC_COPY_NAME "async_copy"
#endif

namespace cg = cooperative_groups;

#define N 256

__global__ void k_primitives(const int *in, int *out)
{
	__shared__ int s[N];

	__pipeline_memcpy_async(&s[threadIdx.x], &in[threadIdx.x], sizeof(int));
	__pipeline_commit();
	__pipeline_wait_prior(0);
	__syncthreads();
	out[threadIdx.x] = s[N - 1 - threadIdx.x];
}

/* Two stages in flight: stage k copies in[k * N ...] and is consumed
 * reversed. */
__global__ void k_pipeline(const int4 *in, int4 *out)
{
	__shared__ int4 s[2][N];
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> st;
	auto block = cg::this_thread_block();
	auto pipe = cuda::make_pipeline(block, &st);

	for (int k = 0; k < 2; k++) {
		pipe.producer_acquire();
		cuda::memcpy_async(block, s[k], in + k * N, sizeof(int4) * N, pipe);
		pipe.producer_commit();
	}
	for (int k = 0; k < 2; k++) {
		pipe.consumer_wait();
		out[k * N + threadIdx.x] = s[k][N - 1 - threadIdx.x];
		pipe.consumer_release();
	}
}

__global__ void k_barrier(const int *in, int *out)
{
	__shared__ int s[N];
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	auto block = cg::this_thread_block();

	if (block.thread_rank() == 0)
		init(&bar, block.size());
	block.sync();
	cuda::memcpy_async(block, s, in, sizeof(int) * N, bar);
	bar.arrive_and_wait();
	out[threadIdx.x] = s[N - 1 - threadIdx.x];
}

__global__ void k_cg(const int *in, int *out)
{
	__shared__ int s[N];
	auto block = cg::this_thread_block();

	cg::memcpy_async(block, s, in, sizeof(int) * N);
	cg::wait(block);
	out[threadIdx.x] = s[N - 1 - threadIdx.x];
}

/* Thread t copies 16 bytes of in[4t..] with source size t % 17 (the rest
 * zero), and 8 bytes with ignore-src when t is odd. */
__global__ void k_zero_fill(const unsigned char *in, unsigned char *out)
{
	__shared__ __align__(16) unsigned char s[N * 16], z[N * 8];
	unsigned t = threadIdx.x;
	unsigned ds = (unsigned)__cvta_generic_to_shared(s + 16 * t);
	unsigned dz = (unsigned)__cvta_generic_to_shared(z + 8 * t);

	for (int i = 0; i < 16; i++)
		s[16 * t + i] = 0xee;
	for (int i = 0; i < 8; i++)
		z[8 * t + i] = 0xee;
	asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(ds), "l"(in + 16 * t),
		     "r"(t % 17) : "memory");
	asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0;"
		     " cp.async.ca.shared.global [%0], [%1], 8, p; }" ::"r"(dz), "l"(in + 8 * t),
		     "r"(t & 1) : "memory");
	asm volatile("cp.async.commit_group; cp.async.wait_all;" ::: "memory");
	for (int i = 0; i < 16; i++)
		out[16 * t + i] = s[16 * t + i];
	for (int i = 0; i < 8; i++)
		out[N * 16 + 8 * t + i] = z[8 * t + i];
}

/* One mbarrier expecting N + 2 arrivals: every thread arrives with
 * .noComplete (thread 0 reads the pending count from the state), the last
 * thread then sets a flag and arrive_drop's twice, which completes phase
 * 0; everyone waits with test_wait.parity for it and reads the flag.
 * out[t]: the flag seen, and for thread 0 the pending count seen (which
 * depends on arrival order) in the high half. */
__global__ void k_mbarrier(unsigned *out)
{
	__shared__ unsigned long long mb;
	__shared__ volatile unsigned flag;
	unsigned a = (unsigned)__cvta_generic_to_shared(&mb), t = threadIdx.x, done = 0, pend;
	unsigned long long st;

	if (t == 0) {
		asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(a), "r"(N + 2) : "memory");
		flag = 0;
	}
	__syncthreads();
	asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 1;" : "=l"(st) : "r"(a)
		     : "memory");
	asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pend) : "l"(st));
	__syncthreads();
	if (t == N - 1) {
		flag = 1;
		asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(st) : "r"(a) : "memory");
		asm volatile("mbarrier.arrive_drop.shared.b64 %0, [%1];" : "=l"(st) : "r"(a) : "memory");
	}
	while (!done)
		asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared.b64 p, [%1], 0;"
			     " selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a) : "memory");
	out[t] = flag | (t == 0 ? pend << 16 : 0);
}

/* Arrivals without a wait (a kernel that may run one thread at a time):
 * N threads arrive with .noComplete on an mbarrier expecting N + 1; a
 * state is the object before its arrival (as an H200 shows), so the
 * pending counts the states hold are N + 1 .. 2 in some order and sum to
 * N (N + 3) / 2. */
__global__ void k_arrive_only(unsigned *out)
{
	__shared__ unsigned long long mb;
	__shared__ unsigned sum;
	unsigned a = (unsigned)__cvta_generic_to_shared(&mb), pend;
	unsigned long long st;

	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(a), "r"(N + 1) : "memory");
		sum = 0;
	}
	__syncthreads();
	asm volatile("mbarrier.arrive.noComplete.shared.b64 %0, [%1], 1;" : "=l"(st) : "r"(a)
		     : "memory");
	asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pend) : "l"(st));
	atomicAdd(&sum, pend);
	__syncthreads();
	if (threadIdx.x == 0)
		out[0] = sum;
}

#ifdef ASYNC_COPY_SM90
/* sm_90: thread 0 arrives expecting 64 bytes, the last sixteen threads
 * complete 4 each; the phase completes with the last of them, after each
 * has added to a count, and everyone's try_wait.parity sees it.  out[t]:
 * the count seen after the wait (16 unless the wait ended early). */
__global__ void k_tx(unsigned *out)
{
	__shared__ unsigned long long mb;
	__shared__ unsigned count;
	unsigned a = (unsigned)__cvta_generic_to_shared(&mb), t = threadIdx.x, done = 0;

	if (t == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a) : "memory");
		count = 0;
	}
	__syncthreads();
	if (t == 0)
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 64;" ::"r"(a)
			     : "memory");
	__syncthreads();
	if (t >= N - 16) {
		atomicAdd(&count, 1);
		asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 4;" ::"r"(a) : "memory");
	}
	while (!done)
		asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;"
			     " selp.u32 %0, 1, 0, p; }" : "=r"(done) : "r"(a) : "memory");
	out[t] = atomicAdd(&count, 0);
}

static void run_tx(unsigned *d)
{
	unsigned got[N];

	k_tx<<<1, N>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	for (int t = 0; t < N; t++)
		check(got[t] == 16, "mbarrier expect_tx/complete_tx: thread %d went on after %u of "
		      "16 completions", t, got[t]);
}
#endif

static void check_reversed(const char *what, const int *got, const int *in, int n, int stages)
{
	for (int k = 0; k < stages; k++)
		for (int t = 0; t < n; t++)
			check(got[k * n + t] == in[k * n + n - 1 - t], "%s: stage %d, thread %d got %d, "
			      "want %d", what, k, t, got[k * n + t], in[k * n + n - 1 - t]);
}

int main()
{
	static int in[8 * N], got[8 * N];
	static unsigned char bytes[N * 16], zf[N * 24];
	int *din, *dout;
	unsigned char *db, *dz;
	unsigned mb[N];

	for (int i = 0; i < 8 * N; i++)
		in[i] = i * 7 + 3;
	for (int i = 0; i < N * 16; i++)
		bytes[i] = (unsigned char)(i * 13 + 1);
	CK(cudaMalloc(&din, sizeof(in)));
	CK(cudaMalloc(&dout, sizeof(got)));
	CK(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));

	k_primitives<<<1, N>>>(din, dout);
	CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	check_reversed("__pipeline_memcpy_async", got, in, N, 1);
	k_pipeline<<<1, N>>>((const int4 *)din, (int4 *)dout);
	CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	for (int k = 0; k < 2; k++)
		for (int t = 0; t < N; t++)
			for (int j = 0; j < 4; j++)
				check(got[(k * N + t) * 4 + j] == in[(k * N + N - 1 - t) * 4 + j],
				      "cuda::pipeline: stage %d, thread %d, word %d got %d", k, t, j,
				      got[(k * N + t) * 4 + j]);
	k_barrier<<<1, N>>>(din, dout);
	CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	check_reversed("cuda::memcpy_async with cuda::barrier", got, in, N, 1);
	k_cg<<<1, N>>>(din, dout);
	CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	check_reversed("cooperative_groups::memcpy_async", got, in, N, 1);

	CK(cudaMalloc(&db, sizeof(bytes)));
	CK(cudaMalloc(&dz, sizeof(zf)));
	CK(cudaMemcpy(db, bytes, sizeof(bytes), cudaMemcpyHostToDevice));
	k_zero_fill<<<1, N>>>(db, dz);
	CK(cudaMemcpy(zf, dz, sizeof(zf), cudaMemcpyDeviceToHost));
	for (int t = 0; t < N; t++) {
		for (int i = 0; i < 16; i++) {
			unsigned char want = i < t % 17 ? bytes[16 * t + i] : 0;
			check(zf[16 * t + i] == want, "cp.async 16 bytes, src-size %d: thread %d byte %d "
			      "is %#x, want %#x", t % 17, t, i, zf[16 * t + i], want);
		}
		for (int i = 0; i < 8; i++) {
			unsigned char want = t & 1 ? 0 : bytes[8 * t + i];
			check(zf[N * 16 + 8 * t + i] == want, "cp.async 8 bytes, ignore-src %d: thread %d "
			      "byte %d is %#x, want %#x", t & 1, t, i, zf[N * 16 + 8 * t + i], want);
		}
	}

	k_mbarrier<<<1, N>>>((unsigned *)dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(mb, dout, sizeof(mb), cudaMemcpyDeviceToHost));
	for (int t = 0; t < N; t++)
		check((mb[t] & 0xffff) == 1, "mbarrier test_wait.parity: thread %d went on before the "
		      "phase completed", t);
	check(mb[0] >> 16 >= 3 && mb[0] >> 16 <= N + 2, "mbarrier pending_count at thread 0's "
	      "arrival: %u, want 3 to %d", mb[0] >> 16, N + 2);
	k_arrive_only<<<1, N>>>((unsigned *)dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(mb, dout, sizeof(unsigned), cudaMemcpyDeviceToHost));
	check(mb[0] == N * (N + 3) / 2, "mbarrier arrivals without a wait: pending counts sum "
	      "to %u, want %d", mb[0], N * (N + 3) / 2);
#ifdef ASYNC_COPY_SM90
	run_tx((unsigned *)dout);
#endif
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(db));
	CK(cudaFree(dz));
	return verdict(ASYNC_COPY_NAME);
}
