/*
 * special_regs: the special registers a kernel can read through inline
 * PTX, checked against what the runtime reports and against each other:
 * %smid below %nsmid, %nsmid at least cudaDeviceProp::multiProcessorCount
 * (a GPU may number its SMs with gaps; the cpu backend gives exactly it),
 * %warpid below %nwarpid, %gridid the same for every thread of a launch,
 * %clock_hi the high word of %clock64, %dynamic_smem_size the launch's
 * dynamic shared memory and %total_smem_size at least static plus dynamic;
 * and __nanosleep, which must return.
 */
#include "check.h"

#define THREADS 96
#define DYN 200

struct regs {
	unsigned smid, nsmid, warpid, nwarpid, clock_hi, dyn, total, pad;
	unsigned long long gridid, clock64;
};

__global__ void read_regs(regs *out)
{
	extern __shared__ unsigned char dyn[];
	__shared__ unsigned st[64];
	regs r;

	st[threadIdx.x % 64] = threadIdx.x;
	dyn[threadIdx.x] = (unsigned char)st[(threadIdx.x + 1) % 64];
	__nanosleep(100);
	asm volatile("mov.u32 %0, %%smid;" : "=r"(r.smid));
	asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r.nsmid));
	asm volatile("mov.u32 %0, %%warpid;" : "=r"(r.warpid));
	asm volatile("mov.u32 %0, %%nwarpid;" : "=r"(r.nwarpid));
	asm volatile("mov.u64 %0, %%gridid;" : "=l"(r.gridid));
	asm volatile("mov.u64 %0, %%clock64;" : "=l"(r.clock64));
	asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(r.clock_hi));
	asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r.dyn));
	asm volatile("mov.u32 %0, %%total_smem_size;" : "=r"(r.total));
	r.pad = dyn[threadIdx.x];
	out[blockIdx.x * THREADS + threadIdx.x] = r;
}

int main()
{
	const int blocks = 16, n = blocks * THREADS;
	regs *d, *got = new regs[n];
	cudaDeviceProp prop;

	CK(cudaGetDeviceProperties(&prop, 0));
	CK(cudaMalloc(&d, n * sizeof(regs)));
	read_regs<<<blocks, THREADS, DYN>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d, n * sizeof(regs), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (int i = 0; i < n; i++) {
		const regs &r = got[i];
		unsigned hi = (unsigned)(r.clock64 >> 32);

		check(r.smid < r.nsmid, "thread %d: %%smid %u not below %%nsmid %u", i, r.smid, r.nsmid);
		check((int)r.nsmid >= prop.multiProcessorCount,
		      "thread %d: %%nsmid %u below multiProcessorCount %d", i, r.nsmid,
		      prop.multiProcessorCount);
		check(r.warpid < r.nwarpid, "thread %d: %%warpid %u not below %%nwarpid %u", i,
		      r.warpid, r.nwarpid);
		check(r.gridid == got[0].gridid, "thread %d: %%gridid %llu, thread 0's %llu", i,
		      r.gridid, got[0].gridid);
		check(r.clock_hi == hi || r.clock_hi == hi + 1,
		      "thread %d: %%clock_hi %u after %%clock64 %#llx", i, r.clock_hi, r.clock64);
		check(r.dyn == DYN, "thread %d: %%dynamic_smem_size %u, want %d", i, r.dyn, DYN);
		check(r.total >= 64 * 4 + DYN, "thread %d: %%total_smem_size %u, want at least %d", i,
		      r.total, 64 * 4 + DYN);
	}
	delete[] got;
	return verdict("special_regs");
}
