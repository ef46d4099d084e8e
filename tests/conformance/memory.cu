/*
 * memory.cu - conformance of the state spaces: a .local array indexed by
 * data (so it stays in local memory) and cvta in both directions (to a
 * generic address and back to the space's own window) for .global,
 * .shared and .local, with loads and stores through each kind of
 * address; isspacep on generic addresses of every space, from kernels
 * run in lockstep and one thread at a time and from a device function
 * handed its caller's local address.
 */
#include "conf.h"

#define THREADS 64

/* A local array the compiler cannot keep in registers: data-dependent
 * indices; thread t's result is a known function of t. */
__global__ void k_local(const u32 *in, u32 *out)
{
	u32 t = threadIdx.x, buf[64], s = 0;

	for (u32 j = 0; j < 64; j++)
		buf[(j * in[t]) & 63] = j + t;
	for (u32 j = 0; j < 64; j++)
		s = s * 31 + buf[(j + in[(t + j) % THREADS]) & 63];
	out[t] = s;
}

static void run_local(void)
{
	u32 in[THREADS], got[THREADS], *d;

	for (u32 t = 0; t < THREADS; t++)
		in[t] = 2 * t + 1;
	CK(cudaMalloc(&d, 2 * sizeof(in)));
	CK(cudaMemcpy(d, in, sizeof(in), cudaMemcpyHostToDevice));
	k_local<<<1, THREADS>>>(d, d + THREADS);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d + THREADS, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (u32 t = 0; t < THREADS; t++) {
		u32 buf[64], s = 0;
		for (u32 j = 0; j < 64; j++)
			buf[(j * in[t]) & 63] = j + t;
		for (u32 j = 0; j < 64; j++)
			s = s * 31 + buf[(j + in[(t + j) % THREADS]) & 63];
		check(got[t] == s, "local array, thread %u: got %#x, want %#x", t, got[t], s);
	}
}

/*
 * cvta round trips: a shared and a local variable written through their
 * generic address made by cvta.shared/.local from the space's address,
 * read back with ld.shared/ld.local; the generic address converted back
 * with cvta.to.* must equal the space's address; cvta.to.global and
 * cvta.global round-trip a global pointer.
 */
__global__ void k_spaces(u32 *g, u32 *out)
{
	__shared__ u32 s;
	volatile u32 l[2];
	u32 t = threadIdx.x;
	u64 sw = __cvta_generic_to_shared(&s), lw = __cvta_generic_to_local((const void *)&l[t & 1]);
	u64 gen, back, gg;
	u32 v;

	l[0] = l[1] = 0;
	if (t == 0) {
		asm volatile("cvta.shared.u64 %0, %1;" : "=l"(gen) : "l"(sw));
		*(u32 *)gen = 0xabc0 + t;
		asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "l"(sw) : "memory");
		out[8 * t + 1] = v;
		asm volatile("cvta.to.shared.u64 %0, %1;" : "=l"(back) : "l"(gen));
		out[8 * t + 2] = back == sw;
	}
	__syncthreads();
	asm volatile("cvta.local.u64 %0, %1;" : "=l"(gen) : "l"(lw));
	*(volatile u32 *)gen = 0x1000 + t;
	asm volatile("ld.local.u32 %0, [%1];" : "=r"(v) : "l"(lw) : "memory");
	out[8 * t + 3] = v;
	asm volatile("cvta.to.local.u64 %0, %1;" : "=l"(back) : "l"(gen));
	out[8 * t + 4] = back == lw;
	asm volatile("cvta.to.global.u64 %0, %1;" : "=l"(gg) : "l"(g + t));
	asm volatile("st.global.u32 [%0], %1;" : : "l"(gg), "r"(0x2000 + t) : "memory");
	asm volatile("cvta.global.u64 %0, %1;" : "=l"(back) : "l"(gg));
	out[8 * t + 5] = back == (u64)(g + t);
	out[8 * t + 6] = s;
}

static void run_spaces(void)
{
	u32 got[8 * THREADS], gl[THREADS], *d;

	CK(cudaMalloc(&d, sizeof(got) + sizeof(gl)));
	CK(cudaMemset(d, 0, sizeof(got) + sizeof(gl)));
	k_spaces<<<1, THREADS>>>(d, d + THREADS);
	CK(cudaGetLastError());
	CK(cudaMemcpy(gl, d, sizeof(gl), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(got, d + THREADS, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (u32 t = 0; t < THREADS; t++) {
		const u32 *o = got + 8 * t;
		check(o[3] == 0x1000 + t, "st through cvta.local, ld.local, thread %u: got %#x", t, o[3]);
		check(o[4] == 1, "cvta.to.local of cvta.local, thread %u: not the same address", t);
		check(o[5] == 1, "cvta.global of cvta.to.global, thread %u: not the same address", t);
		check(gl[t] == 0x2000 + t, "st.global through cvta.to.global, thread %u: got %#x", t, gl[t]);
		check(o[6] == 0xabc0, "st through cvta.shared, seen by thread %u: got %#x", t, o[6]);
	}
	check(got[1] == 0xabc0, "st through cvta.shared, ld.shared: got %#x", got[1]);
	check(got[2] == 1, "cvta.to.shared of cvta.shared: not the same address");
}

/* isspacep of generic address p: bit i set when the test of space i says
 * yes (0 global, 1 shared, 2 local, 3 const). */
__device__ __forceinline__ u32 spaces_of(const void *p)
{
	u32 g, s, l, c;

	asm volatile("{ .reg .pred p; isspacep.global p, %4; selp.u32 %0, 1, 0, p;"
		     " isspacep.shared p, %4; selp.u32 %1, 1, 0, p;"
		     " isspacep.local p, %4; selp.u32 %2, 1, 0, p;"
		     " isspacep.const p, %4; selp.u32 %3, 1, 0, p; }"
		     : "=r"(g), "=r"(s), "=r"(l), "=r"(c) : "l"(p));
	return g | s << 1 | l << 2 | c << 3;
}

/* isspacep.param of p, and the other spaces in the bits above. */
__device__ __forceinline__ u32 param_spaces_of(const void *p)
{
	u32 q;

	asm volatile("{ .reg .pred q; isspacep.param q, %1; selp.u32 %0, 1, 0, q; }"
		     : "=r"(q) : "l"(p));
	return q | spaces_of(p) << 4;
}

__device__ __noinline__ u32 spaces_in_call(const u32 *callers_local, u32 t, const void *prm)
{
	u32 mine[2];

	mine[t & 1] = t;
	return spaces_of(callers_local) | spaces_of(mine) << 4 | param_spaces_of(prm) << 8;
}

__constant__ u32 c_table[4] = { 1, 2, 3, 4 };

struct big {
	u32 v[4];
};

/* Each thread: the spaces of a global, static and dynamic shared, local
 * and constant address, and of a local one seen from a device function;
 * 4 bits each.  LOCKSTEP: a shuffle makes the kernel run its warps in
 * lockstep (else it runs one thread at a time); .param through a
 * __grid_constant__ parameter, whose address stays in parameter space. */
template <bool LOCKSTEP>
__global__ void k_isspacep(u32 *g, u32 *out, const __grid_constant__ big prm)
{
	extern __shared__ u32 dyn[];
	__shared__ u32 s;
	u32 l[2];
	u32 t = threadIdx.x;

	l[t & 1] = t;
	s = dyn[t] = 0;
	if (LOCKSTEP)
		t = __shfl_sync(~0u, t, t);
	out[4 * t] = spaces_of(g) | spaces_of(&s) << 4 | spaces_of(dyn + t) << 8 |
		spaces_of(l) << 12 | spaces_of(c_table + 1) << 16;
	out[4 * t + 1] = spaces_in_call(l, t, &prm);
	out[4 * t + 2] = param_spaces_of(&prm);
}

static void run_isspacep(int lockstep)
{
	u32 got[4 * THREADS], *d;
	big prm = { { 1, 2, 3, 4 } };
	/* global, shared, shared, local, const */
	u32 want = 1 | 2 << 4 | 2 << 8 | 4 << 12 | 8 << 16;

	CK(cudaMalloc(&d, sizeof(got) + 4));
	CK(cudaMemset(d, 0, sizeof(got) + 4));
	if (lockstep)
		k_isspacep<true><<<1, THREADS, THREADS * 4>>>(d, d + 1, prm);
	else
		k_isspacep<false><<<1, THREADS, THREADS * 4>>>(d, d + 1, prm);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got, d + 1, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (u32 t = 0; t < THREADS; t++) {
		check(got[4 * t] == want, "isspacep (%s), thread %u: got %#x, want %#x (hex digits from "
		      "the right: global, shared, dynamic shared, local, const; bits: global, "
		      "shared, local, const)", lockstep ? "lockstep" : "one thread at a time", t,
		      got[4 * t], want);
		check(got[4 * t + 1] == (4 | 4 << 4 | 1 << 8), "isspacep in a device function (%s), "
		      "thread %u: got %#x, want 0x144 (the caller's local, its own local, the "
		      "kernel's parameter)",
		      lockstep ? "lockstep" : "one thread at a time", t, got[4 * t + 1]);
		check(got[4 * t + 2] == 1, "isspacep.param of a __grid_constant__ parameter (%s), "
		      "thread %u: got %#x, want 1 (param, and in no other space)",
		      lockstep ? "lockstep" : "one thread at a time", t, got[4 * t + 2]);
	}
}

int main()
{
	run_local();
	run_spaces();
	run_isspacep(0);
	run_isspacep(1);
	return verdict("memory");
}
