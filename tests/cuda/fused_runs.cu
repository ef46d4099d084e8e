/*
 * fused_runs: loops of lockstep kernels (each has a warp shuffle) whose
 * addresses are computed inside the loop body.  The cpu backend computes
 * such addresses for all lanes before the body, guesses each access's form
 * from how its register is made (src/cpu/forms.c), runs the body as one
 * vector loop when the run-time forms agree, and otherwise runs the body
 * as before, computing those addresses once more (src/cpu/vector.c).
 * Here: the guesses right (16 x 16 blocks: a row of B per half warp, one
 * element of A), wrong (8 x 32 blocks: a half warp spans two rows; a
 * stride of two elements), addresses made from an index the body loads
 * (not computed ahead), and, in PTX, addresses made from registers the
 * body moves on: before the move, after it, and one made anew after a
 * load through it.  A load that branches skip, which becomes a guarded
 * load (src/cpu/ifconv.c).  Last, threads that own four consecutive
 * elements each (lanes a step of 16 bytes apart), under a bound, with a
 * shared value read at one address in the same run: the guess right (32
 * wide blocks) and wrong (8 wide blocks of rows with gaps between); the
 * loop for the guess drops the bound where every lane is inside it, and
 * the last blocks, partly outside, take the split form.
 */
#include "check.h"
#include "floats.h"

#include <vector>

#define FULL 0xffffffffu
#define W 64            /* matrix width */
#define N 4096

/* c = a * b by rows of B: per k, the address of a[row][k] and b[k][col]
 * are made in the loop body from k. */
__global__ void rows(const float *a, const float *b, float *c)
{
	int col = blockIdx.x * blockDim.x + threadIdx.x;
	int row = blockIdx.y * blockDim.y + threadIdx.y;
	float s = __shfl_sync(FULL, 0.0f, 0);
	int k;

	for (k = 0; k < W; k++)
		s += a[row * W + k] * b[k * W + col];
	c[row * W + col] = s;
}

/* Every other element, and an index loaded in the body. */
__global__ void strided(const float *in, const int *perm, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s = __shfl_sync(FULL, 0.0f, 0);
	int k;

	for (k = 0; k < 4; k++) {
		s += in[(2 * i + k) % n];
		s += 2.0f * in[perm[(i + k) % n]];
	}
	out[i] = s;
}

/* A kernel of loop turns in PTX, summing x + 2 y per turn, where the
 * body makes its addresses in ways that decide what may run ahead of it. */
#define TURNS(name, body)                                                                \
	__global__ void name(const float *in, float *out, int turns)                     \
	{                                                                                \
		int i = blockIdx.x * blockDim.x + threadIdx.x;                           \
		float s = __shfl_sync(FULL, 0.0f, 0);                                    \
                                                                                         \
		asm("{\n\t.reg .u64 p, q, r;\n\t.reg .f32 x, y;\n\t.reg .u32 t;\n\t"          \
		    ".reg .pred d;\n\tmov.u64 p, %1;\n\tmov.u64 r, %1;\n\tmov.u32 t, %2;\n"    \
		    "LOOP:\n\t" body "add.f32 %0, %0, x;\n\t"                                \
		    "fma.rn.f32 %0, y, 0f40000000, %0;\n\tsub.u32 t, t, 1;\n\t"               \
		    "setp.ne.u32 d, t, 0;\n\t@d bra LOOP;\n\t}"                               \
		    : "+f"(s) : "l"(in + 32 * i), "r"(turns));                           \
		out[i] = s;                                                              \
	}

/* y at q, made from r before the body moves r on: q runs ahead, and must
 * see r as it was (y = in[k + 2]); x at p, which the body moves on after
 * the load (x = in[k]). */
TURNS(ahead, "ld.global.f32 x, [p];\n\tadd.u64 p, p, 4;\n\t"
	     "add.u64 q, r, 8;\n\tld.global.f32 y, [q];\n\tadd.u64 r, r, 4;\n\t")

/* q made from r after the body moves r on (y = in[k + 3]): it cannot run
 * ahead. */
TURNS(behind, "add.u64 r, r, 4;\n\tadd.u64 q, r, 8;\n\tld.global.f32 y, [q];\n\t"
	      "ld.global.f32 x, [p];\n\tadd.u64 p, p, 4;\n\t")

/* p made anew from r after a load through it (x = in[0], then in[k +
 * 1]; y = in[k + 2]): the new p cannot run ahead of that load. */
TURNS(reused, "ld.global.f32 x, [p];\n\tadd.u64 p, r, 8;\n\tld.global.f32 y, [p];\n\t"
	      "add.u64 r, r, 4;\n\t")

/* Branches over a load (ifconv.c makes the second a guard on the load
 * and keeps the label, which the first names too): out[i] = in[i], or 1
 * for i >= n and for i % 32 == 7. */
__global__ void skips(const float *in, float *out, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	float x, z = __shfl_sync(FULL, 0.0f, 0);

	asm("{\n\t.reg .pred p, q;\n\t.reg .u32 r;\n\t"
	    "setp.ge.u32 p, %1, %2;\n\t"
	    "and.b32 r, %1, 31;\n\t"
	    "setp.eq.u32 q, r, 7;\n\t"
	    "mov.f32 %0, 0f3F800000;\n\t"
	    "@q bra SKIP;\n\t"
	    "@p bra SKIP;\n\t"
	    "ld.global.f32 %0, [%3];\n"
	    "SKIP:\n\t}"
	    : "=f"(x) : "r"(i), "r"(n), "l"(in + i));
	out[i] = x + z;
}

/* in[j], j loaded in the same turn: the address of in[j] cannot be made
 * ahead of the turn (idx makes it consecutive in each half warp). */
__global__ void indexed(const int *idx, const float *in, float *out, int turns)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float s = __shfl_sync(FULL, 0.0f, 0);
	int k;

	for (k = 0; k < turns; k++)
		s += in[idx[k * N + i]];
	out[i] = s;
}

/* out[i + k] = in[i + k] + add * (k + 1) for i + k < n, i the thread's
 * first of four in rows pitch apart; in[i] gets its neighbour's too. */
__global__ void chunks(const unsigned *in, unsigned *out, int n, int pitch)
{
	__shared__ unsigned add;
	int i = (blockIdx.x * blockDim.y + threadIdx.y) * pitch + threadIdx.x * 4;
	unsigned v[4];
	int k;

	if (threadIdx.x == 0 && threadIdx.y == 0)
		add = blockIdx.x + 7;
	__syncthreads();
	for (k = 0; k < 4; k++)
		v[k] = i + k < n ? in[i + k] : 0;
	v[0] += __shfl_xor_sync(FULL, v[0], 1);
	for (k = 0; k < 4; k++)
		if (i + k < n)
			out[i + k] = v[k] + add * (k + 1);
}

static void test_rows(dim3 block)
{
	std::vector<float> a = pattern(W * W, 0.25f), b = pattern(W * W, -0.125f), c(W * W, 0);
	float *da = dev_floats(a), *db = dev_floats(b), *dc = dev_floats(c);
	int r, col, k, bad = 0;

	rows<<<dim3(W / block.x, W / block.y), block>>>(da, db, dc);
	CK(cudaDeviceSynchronize());
	c = host_floats(dc, W * W);
	for (r = 0; r < W; r++)
		for (col = 0; col < W; col++) {
			float s = 0.0f;

			for (k = 0; k < W; k++)
				s += a[r * W + k] * b[k * W + col];
			bad += !check(close_enough(c[r * W + col], s, 1e-5),
				      "rows %ux%u: c[%d][%d] = %g, want %g", block.x, block.y, r, col,
				      c[r * W + col], s);
		}
	check(!bad, "rows %ux%u: %d wrong", block.x, block.y, bad);
	CK(cudaFree(da));
	CK(cudaFree(db));
	CK(cudaFree(dc));
}

static void test_strided()
{
	std::vector<float> in = pattern(N, 0.5f), out(N, 0);
	std::vector<int> perm(N);
	float *din = dev_floats(in), *dout = dev_floats(out);
	int *dp, i, k;

	for (i = 0; i < N; i++)
		perm[i] = (i * 769 + 5) % N;
	CK(cudaMalloc(&dp, N * sizeof(int)));
	CK(cudaMemcpy(dp, perm.data(), N * sizeof(int), cudaMemcpyHostToDevice));
	strided<<<N / 128, 128>>>(din, dp, dout, N);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, N);
	for (i = 0; i < N; i++) {
		float s = 0.0f;

		for (k = 0; k < 4; k++) {
			s += in[(2 * i + k) % N];
			s += 2.0f * in[perm[(i + k) % N]];
		}
		check(out[i] == s, "strided: out[%d] = %g, want %g", i, out[i], s);
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dp));
}

typedef void (*turns_kernel)(const float *, float *, int);

/* x of turn k is in[32 i + k + x_at] (of turn 0: in[32 i]), y is
 * in[32 i + k + y_at] */
static void test_turns(const char *what, turns_kernel kernel, int x_at, int y_at)
{
	const int threads = 256, turns = 20;
	std::vector<float> in = pattern(32 * threads + 64, 1.0f), out(threads, 0);
	float *din = dev_floats(in), *dout = dev_floats(out);
	int i, k;

	kernel<<<threads / 64, 64>>>(din, dout, turns);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, threads);
	for (i = 0; i < threads; i++) {
		float s = 0.0f;

		for (k = 0; k < turns; k++) {
			s += in[32 * i + (k ? k + x_at : 0)];
			s = fmaf(in[32 * i + k + y_at], 2.0f, s);
		}
		check(out[i] == s, "%s: out[%d] = %g, want %g", what, i, out[i], s);
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

static void test_skips()
{
	const unsigned n = 1000, threads = 1024;
	std::vector<float> in = pattern(threads, 0.5f), out(threads, 0);
	float *din = dev_floats(in), *dout = dev_floats(out);
	unsigned i;

	skips<<<threads / 128, 128>>>(din, dout, n);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, threads);
	for (i = 0; i < threads; i++) {
		float want = i >= n || i % 32 == 7 ? 1.0f : in[i];

		check(out[i] == want, "skips: out[%u] = %g, want %g", i, out[i], want);
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

static void test_indexed()
{
	const int turns = 12;
	std::vector<float> in = pattern(N, 0.5f), out(N, 0);
	std::vector<int> idx((size_t)turns * N);
	float *din = dev_floats(in), *dout = dev_floats(out);
	int *didx, i, k;

	for (k = 0; k < turns; k++)
		for (i = 0; i < N; i++)
			idx[(size_t)k * N + i] = (i + 64 * k) % N;
	CK(cudaMalloc(&didx, idx.size() * sizeof(int)));
	CK(cudaMemcpy(didx, idx.data(), idx.size() * sizeof(int), cudaMemcpyHostToDevice));
	indexed<<<N / 128, 128>>>(didx, din, dout, turns);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, N);
	for (i = 0; i < N; i++) {
		float s = 0.0f;

		for (k = 0; k < turns; k++)
			s += in[idx[(size_t)k * N + i]];
		check(out[i] == s, "indexed: out[%d] = %g, want %g", i, out[i], s);
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(didx));
}

static void test_chunks(dim3 block, int pitch)
{
	const int blocks = 33, size = blocks * block.y * pitch, n = size - 37;
	const unsigned untouched = 0xdeadbeefu;
	std::vector<unsigned> in(size), out(size, untouched);
	unsigned *din, *dout;
	int b, y, x, k, bad = 0;

	for (x = 0; x < size; x++)
		in[x] = (unsigned)x * 2654435761u;
	CK(cudaMalloc(&din, size * sizeof(unsigned)));
	CK(cudaMalloc(&dout, size * sizeof(unsigned)));
	CK(cudaMemcpy(din, in.data(), size * sizeof(unsigned), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dout, out.data(), size * sizeof(unsigned), cudaMemcpyHostToDevice));
	chunks<<<blocks, block>>>(din, dout, n, pitch);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(out.data(), dout, size * sizeof(unsigned), cudaMemcpyDeviceToHost));
	std::vector<unsigned> want(size, untouched);
	for (b = 0; b < blocks; b++)
		for (y = 0; y < (int)block.y; y++)
			for (x = 0; x < (int)block.x; x++) {
				int i = (b * block.y + y) * pitch + x * 4, j = i - x * 4 + (x ^ 1) * 4;

				for (k = 0; k < 4 && i + k < n; k++)
					want[i + k] = in[i + k] + (b + 7) * (k + 1) +
						(k == 0 && j < n ? in[j] : 0);
			}
	for (x = 0; x < size; x++)
		bad += !check(out[x] == want[x], "chunks %ux%u: out[%d] = %#x, want %#x", block.x,
			      block.y, x, out[x], want[x]);
	check(!bad, "chunks %ux%u: %d wrong", block.x, block.y, bad);
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

int main()
{
	test_rows(dim3(16, 16));
	test_rows(dim3(32, 8));
	test_rows(dim3(8, 32));
	test_strided();
	test_turns("ahead", ahead, 0, 2);
	test_turns("behind", behind, 0, 3);
	test_turns("reused", reused, 1, 2);
	test_indexed();
	test_skips();
	test_chunks(dim3(32, 1), 128);
	test_chunks(dim3(8, 4), 40);
	return verdict("fused_runs");
}
