/*
 * atomics.cu - conformance of atom (every operation and type: add on
 * .u32/.u64/.f32/.f64, min/max signed and unsigned at 32 and 64 bits,
 * and/or/xor at 32 and 64 bits, inc/dec with their wrap-around limit,
 * exch, cas) and red, on global and on shared memory.  1024 threads
 * update one global word and each block one shared word; the final
 * value must be the fold of the operation over every operand (in any
 * order: the operations commute; float sums use small integers, so they
 * are exact), and exch's old values with the final one must be the
 * initial value and the operands, each once.
 */
#include <algorithm>
#include <functional>

#include "conf.h"

#define BLOCKS 8
#define THREADS 128
#define N (BLOCKS * THREADS)

/* Operand of thread i: varied bits, negative values, small integers. */
__host__ __device__ static u64 operand(u32 i)
{
	u64 x = (u64)i * 0x9e3779b97f4a7c15ull;
	return (x ^ (x >> 29)) % 3 ? x ^ (x >> 31) : (u64)(i % 7);
}

/* One kernel per operation: the same atom on a global word and on a
 * shared word per block; old values to olds, shared results to out[1+b]. */
#define ATOM(name, T, C, op, val)                                                        \
	__global__ void k_##name(u64 *out, u64 *olds, u64 init)                         \
	{                                                                               \
		__shared__ T s;                                                         \
		u32 i = blockIdx.x * blockDim.x + threadIdx.x;                          \
		T v = (T)(val), old;                                                    \
		if (threadIdx.x == 0)                                                   \
			s = from_bits<T>(init);                                         \
		__syncthreads();                                                        \
		asm volatile("atom.global." op " %0, [%1], %2;"                          \
			     : "=" C(old) : "l"((T *)out), C(v) : "memory");            \
		olds[i] = to_bits(old);                                                 \
		asm volatile("atom.shared." op " %0, [%1], %2;"                          \
			     : "=" C(old) : "r"((u32)__cvta_generic_to_shared(&s)), C(v) : "memory"); \
		__syncthreads();                                                        \
		if (threadIdx.x == 0)                                                   \
			out[1 + blockIdx.x] = to_bits(s);                               \
	}

#define U32 (u32)operand(i)
#define U64 operand(i)
#define SMALL (i % 7)
ATOM(add_u32, u32, "r", "add.u32", U32)
ATOM(add_u64, u64, "l", "add.u64", U64)
ATOM(add_f32, float, "f", "add.f32", SMALL)
ATOM(add_f64, double, "d", "add.f64", SMALL)
ATOM(min_u32, u32, "r", "min.u32", U32)
ATOM(max_u32, u32, "r", "max.u32", U32)
ATOM(min_s32, u32, "r", "min.s32", U32)
ATOM(max_s32, u32, "r", "max.s32", U32)
ATOM(min_u64, u64, "l", "min.u64", U64)
ATOM(max_s64, u64, "l", "max.s64", U64)
ATOM(and_b32, u32, "r", "and.b32", U32 | 0x10000001)
ATOM(or_b32, u32, "r", "or.b32", U32 & 0xf0f0f0f0)
ATOM(xor_b32, u32, "r", "xor.b32", U32)
ATOM(and_b64, u64, "l", "and.b64", U64 | 0x8000000000000001ull)
ATOM(or_b64, u64, "l", "or.b64", U64 & 0x0f0f0f0f0f0f0f0full)
ATOM(xor_b64, u64, "l", "xor.b64", U64)
ATOM(inc_u32, u32, "r", "inc.u32", 37)
ATOM(dec_u32, u32, "r", "dec.u32", 37)
ATOM(exch_b32, u32, "r", "exch.b32", U32)
ATOM(exch_b64, u64, "l", "exch.b64", U64)

/* cas: every thread adds its operand through a compare-and-swap loop. */
__global__ void k_cas_b32(u64 *out, u64 *olds, u64 init)
{
	__shared__ u32 s;
	u32 i = blockIdx.x * blockDim.x + threadIdx.x, v = (u32)operand(i), old, seen;
	u32 sh = (u32)__cvta_generic_to_shared(&s);

	if (threadIdx.x == 0)
		s = (u32)init;
	__syncthreads();
	olds[i] = 0;
	old = *(volatile u32 *)out;
	do {
		seen = old;
		asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;"
			     : "=r"(old) : "l"(out), "r"(seen), "r"(seen + v) : "memory");
	} while (old != seen);
	old = s;
	do {
		seen = old;
		asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;"
			     : "=r"(old) : "r"(sh), "r"(seen), "r"(seen + v) : "memory");
	} while (old != seen);
	__syncthreads();
	if (threadIdx.x == 0)
		out[1 + blockIdx.x] = s;
}

__global__ void k_cas_b64(u64 *out, u64 *olds, u64 init)
{
	__shared__ u64 s;
	u32 i = blockIdx.x * blockDim.x + threadIdx.x;
	u64 v = operand(i), old, seen;
	u32 sh = (u32)__cvta_generic_to_shared(&s);

	if (threadIdx.x == 0)
		s = init;
	__syncthreads();
	olds[i] = 0;
	old = *(volatile u64 *)out;
	do {
		seen = old;
		asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;"
			     : "=l"(old) : "l"(out), "l"(seen), "l"(seen + v) : "memory");
	} while (old != seen);
	old = s;
	do {
		seen = old;
		asm volatile("atom.shared.cas.b64 %0, [%1], %2, %3;"
			     : "=l"(old) : "r"(sh), "l"(seen), "l"(seen + v) : "memory");
	} while (old != seen);
	__syncthreads();
	if (threadIdx.x == 0)
		out[1 + blockIdx.x] = s;
}

/* red: no old value. */
__global__ void k_red_add_u64(u64 *out, u64 *olds, u64 init)
{
	__shared__ u64 s;
	u32 i = blockIdx.x * blockDim.x + threadIdx.x;
	u64 v = operand(i);

	if (threadIdx.x == 0)
		s = init;
	__syncthreads();
	olds[i] = 0;
	asm volatile("red.global.add.u64 [%0], %1;" : : "l"(out), "l"(v) : "memory");
	asm volatile("red.shared.add.u64 [%0], %1;" : : "r"((u32)__cvta_generic_to_shared(&s)), "l"(v) : "memory");
	__syncthreads();
	if (threadIdx.x == 0)
		out[1 + blockIdx.x] = s;
}

typedef void (*atom_kernel)(u64 *, u64 *, u64);
typedef std::function<u64(u64 acc, u64 v)> atom_fold;

/* Runs k from init; checks the global and every block's shared result
 * against the fold of f over the operands (width bits).  Returns the old
 * values of the global word. */
static std::vector<u64> run_atom(const char *name, atom_kernel k, atom_fold f, u64 init, int width,
				 std::function<u64(u32)> val)
{
	std::vector<u64> out(1 + BLOCKS), olds(N);
	u64 *d, m = width_mask(width);

	CK(cudaMalloc(&d, (1 + BLOCKS + N) * 8));
	CK(cudaMemcpy(d, &init, 8, cudaMemcpyHostToDevice));
	k<<<BLOCKS, THREADS>>>(d, d + 1 + BLOCKS, init);
	CK(cudaGetLastError());
	CK(cudaMemcpy(out.data(), d, out.size() * 8, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(olds.data(), d + 1 + BLOCKS, N * 8, cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	u64 all = init;
	for (u32 b = 0; b < BLOCKS; b++) {
		u64 blk = init;
		for (u32 t = 0; t < THREADS; t++) {
			u64 v = val(b * THREADS + t) & m;
			blk = f(blk, v) & m;
			all = f(all, v) & m;
		}
		check((out[1 + b] & m) == blk, "%s shared, block %u: got %#llx, want %#llx", name, b,
		      out[1 + b] & m, blk);
	}
	check((out[0] & m) == all, "%s global: got %#llx, want %#llx", name, out[0] & m, all);
	olds.push_back(out[0]);
	return olds;
}

static u64 as_f32_sum(u64 acc, u64 v) { return bits32(f32(acc) + (float)v); }
static u64 as_f64_sum(u64 acc, u64 v) { return bits64(f64(acc) + (double)v); }

int main()
{
	auto u32v = [](u32 i) { return (u64)(u32)operand(i); };
	auto u64v = [](u32 i) { return operand(i); };
	auto small = [](u32 i) { return (u64)(i % 7); };
	auto lim = [](u32 i) { (void)i; return (u64)37; };
	auto add = [](u64 a, u64 v) { return a + v; };
	auto umin = [](u64 a, u64 v) { return std::min(a, v); };
	auto umax = [](u64 a, u64 v) { return std::max(a, v); };
	auto smin32 = [](u64 a, u64 v) { return (u64)(u32)std::min((int)a, (int)v); };
	auto smax32 = [](u64 a, u64 v) { return (u64)(u32)std::max((int)a, (int)v); };
	auto smax64 = [](u64 a, u64 v) { return (u64)std::max((long long)a, (long long)v); };
	auto band = [](u64 a, u64 v) { return a & v; };
	auto bor = [](u64 a, u64 v) { return a | v; };
	auto bxor = [](u64 a, u64 v) { return a ^ v; };
	/* inc: old >= b ? 0 : old + 1; dec: old == 0 || old > b ? b : old - 1 */
	auto inc = [](u64 a, u64 b) { return a >= b ? 0 : a + 1; };
	auto dec = [](u64 a, u64 b) { return a == 0 || a > b ? b : a - 1; };

	run_atom("atom.add.u32", k_add_u32, add, 5, 32, u32v);
	run_atom("atom.add.u64", k_add_u64, add, 5, 64, u64v);
	run_atom("atom.add.f32", k_add_f32, as_f32_sum, bits32(0.5f), 32, small);
	run_atom("atom.add.f64", k_add_f64, as_f64_sum, bits64(-0.25), 64, small);
	run_atom("atom.min.u32", k_min_u32, umin, 0xfffffff0, 32, u32v);
	run_atom("atom.max.u32", k_max_u32, umax, 3, 32, u32v);
	run_atom("atom.min.s32", k_min_s32, smin32, 0x7ffffff0, 32, u32v);
	run_atom("atom.max.s32", k_max_s32, smax32, 0x80000005, 32, u32v);
	run_atom("atom.min.u64", k_min_u64, umin, ~0ull, 64, u64v);
	run_atom("atom.max.s64", k_max_s64, smax64, 1ull << 63, 64, u64v);
	run_atom("atom.and.b32", k_and_b32, band, 0xffffffff, 32, [](u32 i) { return (u64)((u32)operand(i) | 0x10000001); });
	run_atom("atom.or.b32", k_or_b32, bor, 0, 32, [](u32 i) { return (u64)((u32)operand(i) & 0xf0f0f0f0); });
	run_atom("atom.xor.b32", k_xor_b32, bxor, 0x12345678, 32, u32v);
	run_atom("atom.and.b64", k_and_b64, band, ~0ull, 64, [](u32 i) { return operand(i) | 0x8000000000000001ull; });
	run_atom("atom.or.b64", k_or_b64, bor, 0, 64, [](u32 i) { return operand(i) & 0x0f0f0f0f0f0f0f0full; });
	run_atom("atom.xor.b64", k_xor_b64, bxor, 0x123456789ull, 64, u64v);
	run_atom("atom.inc.u32", k_inc_u32, inc, 0, 32, lim);
	run_atom("atom.inc.u32 from above the limit", k_inc_u32, inc, 100, 32, lim);
	run_atom("atom.dec.u32", k_dec_u32, dec, 0, 32, lim);
	run_atom("atom.dec.u32 from above the limit", k_dec_u32, dec, 100, 32, lim);
	run_atom("atom.cas.b32", k_cas_b32, add, 9, 32, u32v);
	run_atom("atom.cas.b64", k_cas_b64, add, 9, 64, u64v);
	run_atom("red.add.u64", k_red_add_u64, add, 9, 64, u64v);

	/* exch: the olds and the final value are the initial value and the
	 * operands, each exactly once (the shared result only needs to be
	 * one of its block's operands: the fold keeps the last). */
	for (int w : { 32, 64 }) {
		const char *name = w == 32 ? "atom.exch.b32" : "atom.exch.b64";
		auto val = w == 32 ? std::function<u64(u32)>(u32v) : std::function<u64(u32)>(u64v);
		std::vector<u64> out(1 + BLOCKS), olds(N), want;
		u64 *d, init = 0x5a5a5a5a;

		CK(cudaMalloc(&d, (1 + BLOCKS + N) * 8));
		CK(cudaMemcpy(d, &init, 8, cudaMemcpyHostToDevice));
		(w == 32 ? k_exch_b32 : k_exch_b64)<<<BLOCKS, THREADS>>>(d, d + 1 + BLOCKS, init);
		CK(cudaGetLastError());
		CK(cudaMemcpy(out.data(), d, out.size() * 8, cudaMemcpyDeviceToHost));
		CK(cudaMemcpy(olds.data(), d + 1 + BLOCKS, N * 8, cudaMemcpyDeviceToHost));
		CK(cudaFree(d));
		olds.push_back(out[0] & width_mask(w));
		want.push_back(init);
		for (u32 i = 0; i < N; i++)
			want.push_back(val(i));
		std::sort(olds.begin(), olds.end());
		std::sort(want.begin(), want.end());
		check(olds == want, "%s: old values and final value are not the operands once each", name);
		for (u32 b = 0; b < BLOCKS; b++) {
			bool found = false;
			for (u32 t = 0; t < THREADS; t++)
				found |= val(b * THREADS + t) == (out[1 + b] & width_mask(w));
			check(found, "%s shared, block %u: %#llx is no operand", name, b, out[1 + b]);
		}
	}
	return verdict("atomics");
}
