/*
 * conf.h - the harness every conformance program shares.  One PTX
 * instruction (with its exact modifiers, through inline asm) becomes one
 * kernel by CONF_OP(); the same line defines the host reference, written
 * from the PTX ISA's definition of the instruction.  run_op() feeds the
 * kernel every combination of the corner values it is given plus random
 * values, and compares each result bit for bit (or with a comparison the
 * ISA allows, such as "any NaN" or a ULP bound for .approx), printing the
 * instruction, the inputs, what came back and what the ISA says.
 * Operands travel as raw bits in 64-bit words: a .f32 is its 32 bits, a
 * 16-bit value its low 16 bits.  Signedness comes from the instruction.
 */
#ifndef AG_CONF_H
#define AG_CONF_H

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "check.h"

typedef unsigned long long u64;
typedef unsigned int u32;
typedef unsigned short u16;

#define OP_ARGS const u64 *a, const u64 *b, const u64 *c, u64 *r, int n

typedef void (*op_kernel)(OP_ARGS);
typedef u64 (*op_ref)(u64 a, u64 b, u64 c);
typedef bool (*op_same)(u64 got, u64 want);

/* Operand bits to the register type the asm constraint wants, and back. */
template <typename T> __device__ T from_bits(u64 v) { return (T)v; }
template <> __device__ float from_bits<float>(u64 v) { return __uint_as_float((u32)v); }
template <> __device__ double from_bits<double>(u64 v) { return __longlong_as_double((long long)v); }
__device__ u64 to_bits(u16 v) { return v; }
__device__ u64 to_bits(u32 v) { return v; }
__device__ u64 to_bits(u64 v) { return v; }
__device__ u64 to_bits(float v) { return __float_as_uint(v); }
__device__ u64 to_bits(double v) { return (u64)__double_as_longlong(v); }

/*
 * One instruction as kernel k_NAME and host reference ref_NAME.  TD/CD:
 * the destination's C type and asm constraint; TA/CA, TB/CB, TC/CC those
 * of the operands a, b, c.  TEXT is the asm: %0 the result, %1..%3 the
 * operands.  REF is an expression of the u64 operand bits a, b, c.
 */
#define CONF_OPX(name, TD, CD, TA, CA, TB, CB, TC, CC, text, ref)              \
	__global__ void k_##name(OP_ARGS)                                       \
	{                                                                       \
		int i = blockIdx.x * blockDim.x + threadIdx.x;                  \
		if (i >= n)                                                     \
			return;                                                 \
		TA x = from_bits<TA>(a[i]);                                     \
		TB y = from_bits<TB>(b[i]);                                     \
		TC z = from_bits<TC>(c[i]);                                     \
		TD d;                                                           \
		asm volatile(text : "=" CD(d) : CA(x), CB(y), CC(z));           \
		r[i] = to_bits(d);                                              \
	}                                                                       \
	static u64 ref_##name(u64 a, u64 b, u64 c)                              \
	{                                                                       \
		(void)a;                                                        \
		(void)b;                                                        \
		(void)c;                                                        \
		return (ref);                                                   \
	}

/* The common case: every operand of one type TS (constraint CS). */
#define CONF_OP(name, TD, CD, TS, CS, text, ref) \
	CONF_OPX(name, TD, CD, TS, CS, TS, CS, TS, CS, text, ref)

/* Operands of run_op(): three parallel arrays. */
struct inputs {
	std::vector<u64> a, b, c;
	void add(u64 x, u64 y, u64 z)
	{
		a.push_back(x);
		b.push_back(y);
		c.push_back(z);
	}
	size_t size() const { return a.size(); }
};

static u64 rng_state = 0x9e3779b97f4a7c15ull;

/* splitmix64: the same sequence on every run. */
static u64 rnd(void)
{
	u64 z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u64 width_mask(int bits)
{
	return bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

/*
 * Every (a, b) pair of corner values with c taken from the corners too
 * (all triples when there are few enough), then nrandom random triples
 * of which half mix a corner in; all masked to bits wide.
 */
static inputs corner_inputs(const std::vector<u64> &v, int bits, int nrandom = 2000)
{
	inputs in;
	u64 m = width_mask(bits);
	size_t n = v.size(), i, j, k;
	bool triples = n * n * n <= 30000;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (triples)
				for (k = 0; k < n; k++)
					in.add(v[i] & m, v[j] & m, v[k] & m);
			else
				in.add(v[i] & m, v[j] & m, v[(i + j) % n] & m);
	for (int t = 0; t < nrandom; t++) {
		u64 x = rnd(), y = rnd(), z = rnd();
		if (t & 1)
			y = v[rnd() % n];
		if (t & 2)
			x >>= rnd() % bits;
		in.add(x & m, y & m, z & m);
	}
	return in;
}

static bool same_bits(u64 got, u64 want)
{
	return got == want;
}

static int op_failures;

/* Runs kernel k over in and checks every result against ref. */
static void run_op(const char *name, op_kernel k, op_ref ref, const inputs &in,
		   op_same same = same_bits)
{
	size_t n = in.size(), bytes = n * sizeof(u64), bad = 0;
	std::vector<u64> got(n);
	u64 *d;

	CK(cudaMalloc(&d, 4 * bytes));
	CK(cudaMemcpy(d, in.a.data(), bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d + n, in.b.data(), bytes, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d + 2 * n, in.c.data(), bytes, cudaMemcpyHostToDevice));
	k<<<(unsigned)(n + 127) / 128, 128>>>(d, d + n, d + 2 * n, d + 3 * n, (int)n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), d + 3 * n, bytes, cudaMemcpyDeviceToHost));
	CK(cudaFree(d));
	for (size_t i = 0; i < n; i++) {
		u64 want = ref(in.a[i], in.b[i], in.c[i]);
		if (same(got[i], want))
			continue;
		/* Every wrong instruction shows, not only the first few. */
		if (bad++ < 3)
			fprintf(stderr, "%s: a=%#llx b=%#llx c=%#llx: got %#llx, want %#llx\n",
				name, in.a[i], in.b[i], in.c[i], got[i], want);
	}
	if (bad > 3)
		fprintf(stderr, "%s: %zu of %zu results differ\n", name, bad, n);
	failures += bad != 0;
	op_failures += bad != 0;
}

#define RUN(name, in, ...) run_op(#name, k_##name, ref_##name, in, ##__VA_ARGS__)

/* Host views of operand bits. */
static inline float f32(u64 v)
{
	float f;
	u32 u = (u32)v;
	memcpy(&f, &u, 4);
	return f;
}

static inline double f64(u64 v)
{
	double d;
	memcpy(&d, &v, 8);
	return d;
}

static inline u64 bits32(float f)
{
	u32 u;
	memcpy(&u, &f, 4);
	return u;
}

static inline u64 bits64(double d)
{
	u64 u;
	memcpy(&u, &d, 8);
	return u;
}

static inline long long sx(u64 v, int bits)
{
	return bits >= 64 ? (long long)v : (long long)(v << (64 - bits)) >> (64 - bits);
}

/* NaN compares equal to any NaN (the ISA leaves the payload open). */
static bool same_f32(u64 got, u64 want)
{
	if (std::isnan(f32(want)))
		return std::isnan(f32(got)) && got <= 0xffffffffull;
	return got == want;
}

static bool same_f64(u64 got, u64 want)
{
	if (std::isnan(f64(want)))
		return std::isnan(f64(got));
	return got == want;
}

/* .ftz: a subnormal f32 becomes zero of the same sign. */
static inline u64 ftz32(u64 v)
{
	return (v & 0x7f800000) == 0 ? v & 0x80000000 : v & 0xffffffff;
}

/*
 * The result of f() computed under rounding mode mode (FE_TONEAREST,
 * FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD); the host is IEEE 754, so each
 * basic operation is then the correctly rounded one the ISA asks for.
 * f reads its operands from volatiles and the result goes to one: GCC
 * may otherwise move the arithmetic across fesetround() even with
 * -frounding-math (GCC bug 34678).
 */
template <typename F> static u64 in_mode(int mode, F f)
{
	volatile u64 r;

	fesetround(mode);
	r = f();
	fesetround(FE_TONEAREST);
	return r;
}

/* Corner values of each width and format. */
static const std::vector<u64> int_corners = {
	0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
	0x7fffffff, 0x80000000, 0xffffffff, 0x7fffffffffffffffull, 0x8000000000000000ull,
	~0ull, ~1ull, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull, 0x123456789abcdef0ull,
};

static const std::vector<u64> f32_corners = {
	0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000, 0xc0200000,
	0x3f000000, 0x40400000, 0x3eaaaaab, 0x3f800001, 0x4b000000, 0x4b800000,
	0x00000001, 0x80000001, 0x007fffff, 0x807fffff, 0x00800000, 0x80800000,
	0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
	0x33800000, 0x4effffff, 0x4f000000, 0xcf000000, 0x5f000000, 0x5f800000,
	0xdf000000, 0x3effffff, 0x40490fdb,
};

static const std::vector<u64> f64_corners = {
	0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
	0x3ff8000000000000ull, 0xc004000000000000ull, 0x3fe0000000000000ull,
	0x3fd5555555555555ull, 0x3ff0000000000001ull, 0x4330000000000000ull,
	0x0000000000000001ull, 0x8000000000000001ull, 0x000fffffffffffffull,
	0x0010000000000000ull, 0x8010000000000000ull, 0x7fefffffffffffffull,
	0xffefffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
	0x7ff8000000000000ull, 0x41dfffffffc00000ull, 0x41e0000000000000ull,
	0xc1e0000000000000ull, 0x43e0000000000000ull, 0x43f0000000000000ull,
	0x36a0000000000000ull, 0x380fffffe0000000ull, 0x47efffffe0000000ull,
	0x47efffffffffffffull, 0x400921fb54442d18ull,
};

static int conf_verdict(const char *name)
{
	if (op_failures)
		fprintf(stderr, "%s: %d instructions gave wrong results\n", name, op_failures);
	return verdict(name);
}

#endif
