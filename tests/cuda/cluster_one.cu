/*
 * cluster_one: sm_90 programs whose blocks are clusters of one (the
 * default without cluster dimensions): the cluster special registers,
 * cooperative_groups::this_cluster() (sync, its arrive and wait apart,
 * ranks, map_shared_rank),
 * mapa/getctarank/isspacep on shared::cluster addresses, st.async with an
 * mbarrier waiting for its bytes, the 1D bulk copies (cp.async.bulk from
 * global into shared memory completing on an mbarrier, and back with a
 * bulk group; also through cuda::memcpy_async and
 * cuda::device::memcpy_async_tx), red.async, and the refusal of
 * launches that ask for bigger clusters.
 */
// nvcc-flags: -arch=sm_90 -std=c++17
// expect-stderr: thread block clusters of more than one block \(cudaLaunchAttributeClusterDimension\) are not supported
#include <cooperative_groups.h>
#include <cuda/barrier>

#include "check.h"

namespace cg = cooperative_groups;

#define N 128   /* threads of a block */
#define BLOCKS 3

enum {
	R_CLUSTERID, R_NCLUSTERID, R_CTAID_IN, R_NCTAID_IN, R_RANK, R_NRANK, R_EXPLICIT,
	R_CG_RANK, R_CG_NUM, R_CG_DIMX, R_MAPPED_SAME, R_IS_CLUSTER, R_CTARANK_OF, R_SUM,
	R_COUNT
};

__device__ unsigned sreg(int which)
{
	unsigned v = 0;

	switch (which) {
	case 0: asm("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
	case 1: asm("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
	case 2: asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v)); break;
	case 3: asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v)); break;
	case 4: asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
	case 5: asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
	default:
		asm("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\t"
		    "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(v));
		break;
	}
	return v;
}

/* Every block writes what it sees into out[block][R_*]. */
__global__ void cluster_regs(unsigned *out)
{
	__shared__ unsigned s[N];
	cg::cluster_group cl = cg::this_cluster();
	unsigned *o = out + blockIdx.x * R_COUNT;
	unsigned *mine, rank, a;

	s[threadIdx.x] = threadIdx.x + 1;
	cl.sync();
	mine = cl.map_shared_rank(&s[(threadIdx.x + 1) % N], 0);
	a = (unsigned)__cvta_generic_to_shared(s);
	asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rank) : "r"(a));
	__syncthreads();
	if (threadIdx.x == 0) {
		for (int i = 0; i < 7; i++)
			o[i] = sreg(i);
		o[R_CG_RANK] = cl.block_rank();
		o[R_CG_NUM] = cl.num_blocks();
		o[R_CG_DIMX] = cl.dim_blocks().x;
		o[R_MAPPED_SAME] = mine == &s[1];
		o[R_IS_CLUSTER] = __isClusterShared(mine) && !__isClusterShared(out);
		o[R_CTARANK_OF] = rank + 7 * cl.query_shared_rank(mine);
	}
	cl.sync();
	/* the value through the mapped address of the neighbour */
	atomicAdd(&o[R_SUM], *mine);
}

/* barrier.cluster.arrive and .wait apart: the second warp arrives and
 * then waits for a flag that the first warp sets only after its own
 * wait returned, which it does once every thread has arrived.  Launched
 * with explicit clusters of one: in a launch without cluster dimensions
 * an H200 (driver 580) holds the first warp's wait until the second warp
 * waits too, and this kernel never ends there. */
__global__ void cluster_split(int *out)
{
	__shared__ volatile int flag;
	cg::cluster_group cl = cg::this_cluster();
	int seen;

	if (threadIdx.x == 0)
		flag = 0;
	__syncthreads();
	auto token = cl.barrier_arrive();
	if (threadIdx.x < 32) {
		cl.barrier_wait(std::move(token));
		seen = 1;
		if (threadIdx.x == 0)
			flag = 1;
	} else {
		while (!flag)
			;
		seen = flag;
		cl.barrier_wait(std::move(token));
	}
	out[blockIdx.x * 64 + threadIdx.x] = seen;
}

/* shared::cluster addresses of the own block in PTX: mapa with rank 0,
 * loads and stores through them, cvta to generic and back, isspacep.
 * Each thread writes 1 for each fact that holds. */
__global__ void cluster_addresses(unsigned *out)
{
	__shared__ unsigned s[N];
	unsigned a = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]), c, v, back;
	unsigned long long g, b64;
	int sh, gl;

	s[threadIdx.x] = threadIdx.x * 5;
	asm volatile("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(c) : "r"(a));
	asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(c) : "memory");
	asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(c), "r"(v + 1) : "memory");
	asm volatile("cvta.shared::cluster.u64 %0, %1;" : "=l"(g) : "l"((unsigned long long)c));
	asm volatile("cvta.to.shared::cluster.u64 %0, %1;" : "=l"(b64) : "l"(g));
	back = (unsigned)b64;
	asm volatile("{\n\t.reg .pred p;\n\tisspacep.shared::cluster p, %2;\n\t"
		     "selp.s32 %0, 1, 0, p;\n\tisspacep.shared::cluster p, %3;\n\t"
		     "selp.s32 %1, 1, 0, p;\n\t}" : "=r"(sh), "=r"(gl) : "l"(g), "l"(out));
	out[threadIdx.x * 5] = c == a;
	out[threadIdx.x * 5 + 1] = v == threadIdx.x * 5;
	out[threadIdx.x * 5 + 2] = (unsigned *)g == &s[threadIdx.x] && s[threadIdx.x] == v + 1;
	out[threadIdx.x * 5 + 3] = back == a;
	out[threadIdx.x * 5 + 4] = sh && !gl;
}

/* st.async of every thread's value into shared memory; thread 0 expects
 * the bytes on an mbarrier that all threads wait for. */
__global__ void store_async(unsigned *out)
{
	__shared__ unsigned s[N];
	__shared__ unsigned long long s2[N / 2];
	__shared__ unsigned long long mb;
	__shared__ unsigned count;
	unsigned b = (unsigned)__cvta_generic_to_shared(&mb);
	unsigned d = (unsigned)__cvta_generic_to_shared(&s[threadIdx.x]);
	unsigned cnt = (unsigned)__cvta_generic_to_shared(&count);
	unsigned d2 = (unsigned)__cvta_generic_to_shared(&s2[threadIdx.x / 2]);
	unsigned ok = 0;

	if (threadIdx.x == 0) {
		count = 100;
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\t"
		     "barrier.cluster.wait.acquire.aligned;" ::: "memory");
	if (threadIdx.x == 0)
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			     ::"r"(b), "r"(N * 4 + N / 2 * 8 + N * 4) : "memory");
	asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes"
		     ".add.u32 [%0], %1, [%2];" ::"r"(cnt), "r"(threadIdx.x), "r"(b) : "memory");
	asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
		     ::"r"(d), "r"(threadIdx.x * 3 + blockIdx.x), "r"(b) : "memory");
	if (threadIdx.x % 2 == 0)
		asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.s32"
			     " [%0], {%1, %2}, [%3];" ::"r"(d2), "r"(threadIdx.x), "r"(-1),
			     "r"(b) : "memory");
	while (!ok)
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(ok) : "r"(b) : "memory");
	out[blockIdx.x * N + threadIdx.x] = s[(threadIdx.x + 5) % N] +
		(unsigned)(s2[threadIdx.x / 2] >> 32) + (unsigned)s2[threadIdx.x / 2];
	if (threadIdx.x == 0)
		out[BLOCKS * N + blockIdx.x] = count;
}

/* A 1D bulk copy of in's block into shared memory (complete_tx on an
 * mbarrier), doubled there, and a bulk copy back to out in a bulk group. */
__global__ void bulk_copy(const int *in, int *out)
{
	__shared__ __align__(16) int s[N];
	__shared__ unsigned long long mb;
	unsigned b = (unsigned)__cvta_generic_to_shared(&mb);
	unsigned d = (unsigned)__cvta_generic_to_shared(s);
	unsigned ok = 0;

	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			     ::"r"(b), "r"(N * 4) : "memory");
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes"
			     " [%0], [%1], %2, [%3];" ::"r"(d), "l"(in + blockIdx.x * N),
			     "r"(N * 4), "r"(b) : "memory");
	}
	while (!ok)
		asm volatile("{\n\t.reg .pred p;\n\t"
			     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\t"
			     "selp.u32 %0, 1, 0, p;\n\t}" : "=r"(ok) : "r"(b) : "memory");
	s[threadIdx.x] *= 2;
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
			     ::"l"(out + blockIdx.x * N), "r"(d), "r"(N * 4) : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
		asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
	}
}

/* The same copy in through cuda::memcpy_async and a cuda::barrier, which
 * libcu++ turns into a bulk copy for 16-byte aligned sizes on sm_90. */
__global__ void bulk_memcpy_async(const int *in, int *out)
{
	__shared__ __align__(16) int s[N];
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;

	if (threadIdx.x == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	cuda::memcpy_async(cg::this_thread_block(), s, in + blockIdx.x * N,
			   cuda::aligned_size_t<16>(N * sizeof(int)), bar);
	bar.arrive_and_wait();
	out[blockIdx.x * N + threadIdx.x] = s[N - 1 - threadIdx.x] + 1;
}

/* The copy by one thread through cuda::device::memcpy_async_tx, which
 * completes its bytes on the barrier before that thread's
 * barrier_arrive_tx expects them. */
__global__ void bulk_memcpy_async_tx(const int *in, int *out)
{
	__shared__ __align__(16) int s[N];
#pragma nv_diag_suppress static_var_with_dynamic_init
	__shared__ cuda::barrier<cuda::thread_scope_block> bar;
	cuda::barrier<cuda::thread_scope_block>::arrival_token tok;

	if (threadIdx.x == 0)
		init(&bar, blockDim.x);
	__syncthreads();
	if (threadIdx.x == 0) {
		cuda::device::memcpy_async_tx(s, in + blockIdx.x * N,
					      cuda::aligned_size_t<16>(sizeof(s)), bar);
		tok = cuda::device::barrier_arrive_tx(bar, 1, sizeof(s));
	} else {
		tok = bar.arrive();
	}
	bar.wait(std::move(tok));
	out[blockIdx.x * N + threadIdx.x] = s[threadIdx.x] - 3;
}

static void check_regs(void)
{
	unsigned *d, h[BLOCKS * R_COUNT];
	const unsigned want_sum = N * (N + 1) / 2;

	CK(cudaMalloc(&d, sizeof(h)));
	CK(cudaMemset(d, 0, sizeof(h)));
	cluster_regs<<<BLOCKS, N>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (unsigned k = 0; k < BLOCKS; k++) {
		const unsigned *o = h + k * R_COUNT;
		const unsigned want[R_COUNT] = { k, BLOCKS, 0, 1, 0, 1, 0, 0, 1, 1, 1, 1, 0, want_sum };

		for (int i = 0; i < R_COUNT; i++)
			check(o[i] == want[i], "cluster_regs block %u value %d: %u, want %u",
			      k, i, o[i], want[i]);
	}
	CK(cudaFree(d));
}

static void check_split(void)
{
	int *d, h[BLOCKS * 64];

	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute one;

	cfg.gridDim = dim3(BLOCKS);
	cfg.blockDim = dim3(64);
	cfg.attrs = &one;
	cfg.numAttrs = 1;
	one.id = cudaLaunchAttributeClusterDimension;
	one.val.clusterDim.x = one.val.clusterDim.y = one.val.clusterDim.z = 1;
	CK(cudaMalloc(&d, sizeof(h)));
	CK(cudaLaunchKernelEx(&cfg, cluster_split, d));
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < BLOCKS * 64; i++)
		check(h[i] == 1, "cluster_split [%d] = %d, want 1", i, h[i]);
	CK(cudaFree(d));
}

static void check_addresses(void)
{
	unsigned *d, h[N * 5];

	CK(cudaMalloc(&d, sizeof(h)));
	cluster_addresses<<<1, N>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N * 5; i++)
		check(h[i] == 1, "cluster_addresses thread %d fact %d does not hold", i / 5, i % 5);
	CK(cudaFree(d));
}

static void check_store_async(void)
{
	unsigned *d, h[BLOCKS * N + BLOCKS];

	CK(cudaMalloc(&d, sizeof(h)));
	store_async<<<BLOCKS, N>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	for (unsigned k = 0; k < BLOCKS; k++)
		for (unsigned i = 0; i < N; i++) {
			unsigned want = (i + 5) % N * 3 + k + (i & ~1u) - 1;

			check(h[k * N + i] == want, "store_async [%u][%u] = %u, want %u", k, i,
			      h[k * N + i], want);
		}
	for (unsigned k = 0; k < BLOCKS; k++)
		check(h[BLOCKS * N + k] == 100 + N * (N - 1) / 2, "red.async in block %u: %u, want %u",
		      k, h[BLOCKS * N + k], 100 + N * (N - 1) / 2);
	CK(cudaFree(d));
}

static void check_bulk(void)
{
	int *in, *out, h[BLOCKS * N];

	for (int i = 0; i < BLOCKS * N; i++)
		h[i] = i * 7 - 100;
	CK(cudaMalloc(&in, sizeof(h)));
	CK(cudaMalloc(&out, sizeof(h)));
	CK(cudaMemcpy(in, h, sizeof(h), cudaMemcpyHostToDevice));
	bulk_copy<<<BLOCKS, N>>>(in, out);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < BLOCKS * N; i++)
		check(h[i] == (i * 7 - 100) * 2, "bulk_copy [%d] = %d, want %d", i, h[i],
		      (i * 7 - 100) * 2);
	bulk_memcpy_async<<<BLOCKS, N>>>(in, out);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < BLOCKS * N; i++) {
		int j = i / N * N + N - 1 - i % N;

		check(h[i] == j * 7 - 100 + 1, "bulk_memcpy_async [%d] = %d, want %d", i, h[i],
		      j * 7 - 100 + 1);
	}
	bulk_memcpy_async_tx<<<BLOCKS, N>>>(in, out);
	CK(cudaGetLastError());
	CK(cudaMemcpy(h, out, sizeof(h), cudaMemcpyDeviceToHost));
	for (int i = 0; i < BLOCKS * N; i++)
		check(h[i] == i * 7 - 100 - 3, "bulk_memcpy_async_tx [%d] = %d, want %d", i, h[i],
		      i * 7 - 100 - 3);
	CK(cudaFree(in));
	CK(cudaFree(out));
}

/* cudaLaunchKernelEx with clusters of one block runs; bigger clusters
 * are refused. */
static void check_launch_ex(void)
{
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute attr;
	unsigned *d, h[2 * R_COUNT];

	CK(cudaMalloc(&d, sizeof(h)));
	CK(cudaMemset(d, 0, sizeof(h)));
	cfg.gridDim = dim3(2);
	cfg.blockDim = dim3(N);
	cfg.attrs = &attr;
	cfg.numAttrs = 1;
	attr.id = cudaLaunchAttributeClusterDimension;
	attr.val.clusterDim.x = 1;
	attr.val.clusterDim.y = 1;
	attr.val.clusterDim.z = 1;
	CK(cudaLaunchKernelEx(&cfg, cluster_regs, d));
	CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
	check(h[R_CLUSTERID] == 0 && h[R_COUNT + R_CLUSTERID] == 1 && h[R_NRANK] == 1 &&
	      h[R_COUNT + R_SUM] == N * (N + 1) / 2, "cluster of one through cudaLaunchKernelEx");
	attr.val.clusterDim.x = 2;
	CK_EXPECT(cudaLaunchKernelEx(&cfg, cluster_regs, d), cudaErrorNotSupported);
	CK_EXPECT(cudaGetLastError(), cudaErrorNotSupported);
	CK(cudaDeviceSynchronize());
	CK(cudaFree(d));
}

/* Each part says when it is done, so that a run stopped by a timeout
 * (a wait that never ends) shows which part it was in. */
static void part(void (*fn)(void), const char *name)
{
	fn();
	printf("%s: done\n", name);
	fflush(stdout);
}

int main(void)
{
	part(check_regs, "regs");
	part(check_split, "split arrive and wait");
	part(check_addresses, "shared::cluster addresses");
	part(check_store_async, "st.async and red.async");
	part(check_bulk, "bulk copies");
	part(check_launch_ex, "cudaLaunchKernelEx");
	return verdict("cluster_one");
}
