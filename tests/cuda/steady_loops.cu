/*
 * steady_loops: loops of one basic block in lockstep kernels (each has a
 * warp shuffle) whose load moves its address by a register each turn.
 * The cpu backend finds the form of such a load (consecutive or one
 * address per half warp) on the loop's first turn only when the move is
 * the same in each half warp (src/cpu/steady.c), which it tests once for a
 * register the loop does not write.  Here: a move the same for all lanes,
 * for each half warp its own, and for each lane its own (where the form
 * of the first turn does not last); one address per half warp; and a move
 * that the loop itself changes, lane by lane, after two turns.
 *
 * Then a 32-bit index stepped by the loop and widened into the address
 * (sign- and zero-extended, a grid-stride loop's a + 4 * (int64)i), whose
 * form lasts only while no lane's index has wrapped at 2^31 (2^32) apart
 * from its half's first: here the lanes cross the wrap on different
 * turns, and only lanes that have crossed load (from the array; the
 * others' addresses are 8 to 16 GiB away), so a form kept from the first
 * turn would read through a wrong half-warp address.  The widened address
 * is also used after the loop.
 */
#include "check.h"
#include "floats.h"

#include <vector>

#define FULL 0xffffffffu
#define THREADS 256
#define TURNS 20

/* Sums in[] at p, moving p on by q bytes each turn; body may move q. */
#define LOOP(name, first, step, body)                                                    \
	__global__ void name(const float *in, float *out, int turns)                     \
	{                                                                                \
		int i = blockIdx.x * blockDim.x + threadIdx.x;                           \
		float s = __shfl_sync(FULL, 0.0f, 0);                                    \
		unsigned long long q = (step), r = 4 * (threadIdx.x & 1);               \
                                                                                         \
		asm("{\n\t.reg .u64 p, q, r;\n\t.reg .f32 x;\n\t.reg .u32 t;\n\t"            \
		    ".reg .pred d;\n\tmov.u64 p, %1;\n\tmov.u64 q, %2;\n\t"                   \
		    "mov.u64 r, %3;\n\tmov.u32 t, %4;\n"                                      \
		    "LOOP:\n\tld.global.f32 x, [p];\n\tadd.f32 %0, %0, x;\n\t"                \
		    "add.u64 p, p, q;\n\t" body "sub.u32 t, t, 1;\n\t"                        \
		    "setp.ne.u32 d, t, 0;\n\t@d bra LOOP;\n\t}"                               \
		    : "+f"(s) : "l"(in + (first)), "l"(q), "l"(r), "r"(turns));           \
		out[i] = s;                                                              \
	}

LOOP(uniform, i, 4 * 64, "")
LOOP(halves, i, 4 * (1 + threadIdx.x / 16 % 2) * 16, "")
LOOP(per_lane, i, 4 * (1 + i % 3), "")
LOOP(same, i / 16, 4 * 32, "")
/* q grows by 4 bytes in odd lanes each turn: the first two turns read
 * consecutive elements, the later ones do not */
LOOP(growing, i, 4, "add.u64 q, q, r;\n\t")

/* Sums in[j] over the turns where index j has wrapped past 2^31 - 1
 * (sign: signed, read through in + 2^31 elements) or 2^32 - 1 (unsigned,
 * through in), j moving on by 16 each turn; also stores the last widened
 * address's distance from in. */
#define WIDE(name, cvt, crossed, base)                                                   \
	__global__ void name(const float *in, float *out, long long *last, unsigned start, \
			     int turns)                                                  \
	{                                                                                \
		int i = threadIdx.x;                                                     \
		float s = __shfl_sync(FULL, 0.0f, 0);                                    \
		unsigned long long w;                                                    \
                                                                                         \
		asm("{\n\t.reg .u64 p, o, q;\n\t.reg .f32 x;\n\t.reg .u32 j, t;\n\t"         \
		    ".reg .pred d, g;\n\tmov.u64 p, %2;\n\tmov.u32 j, %3;\n\t"                \
		    "mov.u32 t, %4;\n"                                                       \
		    "LOOP:\n\t" cvt "\n\tadd.u64 %1, o, p;\n\t" crossed "\n\t"               \
		    "@g ld.global.f32 x, [%1];\n\t@g add.f32 %0, %0, x;\n\t"                  \
		    "add.u32 j, j, 16;\n\tsub.u32 t, t, 1;\n\t"                             \
		    "setp.ne.u32 d, t, 0;\n\t@d bra LOOP;\n\t}"                              \
		    : "+f"(s), "=l"(w) : "l"(base), "r"(start + i), "r"(turns));           \
		out[i] = s;                                                              \
		last[i] = (long long)(w - (unsigned long long)in);                       \
	}

WIDE(wide_signed, "mul.wide.s32 o, j, 4;", "setp.lt.s32 g, j, 0;", in + 2147483648LL)
WIDE(wide_unsigned, "cvt.u64.u32 q, j;\n\tshl.b64 o, q, 2;", "setp.lt.u32 g, j, 4096;", in)

typedef void (*loop_kernel)(const float *, float *, int);
typedef void (*wide_kernel)(const float *, float *, long long *, unsigned, int);

/* What thread i's loop sums: the element at first, moving on by step
 * elements (growing by grow each turn). */
static float expected(const std::vector<float> &in, int first, int step, int grow)
{
	float s = 0.0f;
	int k, at = first;

	for (k = 0; k < TURNS; k++) {
		s += in[at];
		at += step;
		step += grow;
	}
	return s;
}

static void test_loop(const char *what, loop_kernel kernel, int kind)
{
	std::vector<float> in = pattern(THREADS + 64 * TURNS + 512, 1.0f), out(THREADS, 0);
	float *din = dev_floats(in), *dout = dev_floats(out);
	int i, bad = 0;

	kernel<<<THREADS / 64, 64>>>(din, dout, TURNS);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, THREADS);
	for (i = 0; i < THREADS; i++) {
		int tx = i % 64;
		float want = kind == 0 ? expected(in, i, 64, 0)
			   : kind == 1 ? expected(in, i, (1 + tx / 16 % 2) * 16, 0)
			   : kind == 2 ? expected(in, i, 1 + i % 3, 0)
			   : kind == 3 ? expected(in, i / 16, 32, 0)
				       : expected(in, i, 1, tx & 1);

		bad += !check(out[i] == want, "%s: out[%d] = %g, want %g", what, i, out[i], want);
	}
	check(!bad, "%s: %d wrong", what, bad);
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

/* Lane i's index starts at start + i (mod 2^32) and moves on by 16 a
 * turn; it loads once it has crossed 2^31 (sign) or 2^32. */
static void test_wide(const char *what, wide_kernel kernel, int sign)
{
	const int threads = 64, turns = 8;
	const unsigned start = sign ? 0x7fffffffu - 40 : 0xffffffffu - 40;
	std::vector<float> in = pattern(512, 1.0f), out(threads, 0);
	std::vector<long long> last(threads, 0);
	float *din = dev_floats(in), *dout = dev_floats(out);
	long long *dlast;
	int i, k, bad = 0;

	CK(cudaMalloc(&dlast, threads * sizeof(long long)));
	kernel<<<1, threads>>>(din, dout, dlast, start, turns);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, threads);
	CK(cudaMemcpy(last.data(), dlast, threads * sizeof(long long), cudaMemcpyDeviceToHost));
	for (i = 0; i < threads; i++) {
		float want = 0.0f;
		unsigned j = 0;
		long long at;

		for (k = 0; k < turns; k++) {
			long long v = (long long)start + i + 16 * k;
			long long wrap = sign ? 0x80000000LL : 0x100000000LL;

			j = (unsigned)v;
			if (v >= wrap)
				want += in[v - wrap];
		}
		at = sign ? 4 * ((long long)(int)j + 2147483648LL) : 4 * (long long)j;
		bad += !check(out[i] == want, "%s: out[%d] = %g, want %g", what, i, out[i], want);
		bad += !check(last[i] == at, "%s: last address %d is in + %lld, want in + %lld",
			      what, i, last[i], at);
	}
	check(!bad, "%s: %d wrong", what, bad);
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dlast));
}

int main()
{
	test_loop("uniform", uniform, 0);
	test_loop("halves", halves, 1);
	test_loop("per_lane", per_lane, 2);
	test_loop("same", same, 3);
	test_loop("growing", growing, 4);
	test_wide("wide_signed", wide_signed, 1);
	test_wide("wide_unsigned", wide_unsigned, 0);
	return verdict("steady_loops");
}
