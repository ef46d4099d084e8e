/*
 * warp_access: loads and stores of kernels that run in lockstep (each has
 * a warp shuffle), in every form their addresses take across a warp.  The
 * cpu backend looks at a full warp's 32 addresses before an access and
 * makes it a vector access when each half warp reaches consecutive
 * elements, one load and a broadcast when each half reaches one address,
 * and a per-lane gather or scatter otherwise (src/cpu/vector.c).  Here:
 * consecutive across the warp, one address per warp, a permutation,
 * float4 elements, guarded stores at a ragged end that must leave the
 * elements past it alone, and stores of one address by every lane.  Two
 * loads through one register share its form unless it is written between
 * them: here (in PTX, so that the compiler keeps the one register) it is,
 * from consecutive addresses to a permutation's.  Halves with forms of
 * their own (16 x 16 blocks) are in fused_runs.cu.
 */
#include "check.h"
#include "floats.h"

#include <vector>

#define FULL 0xffffffffu
#define N 5000          /* not a multiple of 32 */
#define PAD 64          /* sentinels after the end */

/* Consecutive across the warp; the last warp's end is ragged. */
__global__ void dense(const float *in, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float lane0 = __shfl_sync(FULL, (float)(threadIdx.x % 32), 0);        /* 0 */

	if (i < n)
		out[i] = in[i] * 2.0f + lane0;
}

/* A gather and a scatter through a permutation. */
__global__ void permute(const int *perm, const float *in, float *gathered, float *scattered)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int p = perm[i];
	float v = in[p] + (float)__shfl_sync(FULL, 0, 0);

	gathered[i] = v;
	scattered[p] = in[i];
}

/* Every lane reads one address (the warp's), every lane of a warp stores
 * to one address: the value all of them agree on. */
__global__ void same(const float *in, float *per_warp, int *count)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float v = in[i / 32] + __shfl_sync(FULL, 1.0f, 0);

	per_warp[i / 32] = v;
	if (threadIdx.x % 32 == 5)
		atomicAdd(count, 1);
}

/* One register q: consecutive addresses for the first load, the
 * permutation's for the second. */
__global__ void rewritten(const int *perm, const float *in, float *first, float *second)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float x, y, z = (float)__shfl_sync(FULL, 0, 0);

	asm("{\n\t.reg .u64 q;\n\t"
	    "mov.u64 q, %2;\n\t"
	    "ld.global.f32 %0, [q];\n\t"
	    "mov.u64 q, %3;\n\t"
	    "ld.global.f32 %1, [q];\n\t}"
	    : "=f"(x), "=f"(y) : "l"(in + i), "l"(in + perm[i]));
	first[i] = x + z;
	second[i] = y;
}

/* float4 elements: consecutive, and swapped in pairs (not consecutive). */
__global__ void vec4(const float4 *in, float4 *out, float4 *swapped)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	float4 v = in[i], u = in[i ^ 1];
	float z = __shfl_sync(FULL, 0.0f, 0);

	out[i] = make_float4(v.x + z, v.y * 2, v.z - 1, v.w);
	swapped[i] = u;
}

static void test_dense()
{
	std::vector<float> in = pattern(N + PAD, 0.5f), out(N + PAD, -7.0f);
	float *din = dev_floats(in), *dout = dev_floats(out);
	int i, bad = 0;

	dense<<<(N + 255) / 256, 256>>>(din, dout, N);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, N + PAD);
	for (i = 0; i < N + PAD; i++) {
		float want = i < N ? in[i] * 2.0f : -7.0f;

		bad += !check(out[i] == want, "dense: out[%d] = %g, want %g", i, out[i], want);
	}
	check(!bad, "dense: %d wrong", bad);
	CK(cudaFree(din));
	CK(cudaFree(dout));
}

/* perm: a permutation of 0 .. n-1 */
static void run_permute(const char *what, const std::vector<int> &perm)
{
	int n = (int)perm.size(), i;
	std::vector<float> in = pattern(n, 1.0f), zero(n, 0.0f), g, s;
	float *din = dev_floats(in), *dg = dev_floats(zero), *ds = dev_floats(zero);
	int *dp;

	CK(cudaMalloc(&dp, n * sizeof(int)));
	CK(cudaMemcpy(dp, perm.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	permute<<<n / 128, 128>>>(dp, din, dg, ds);
	CK(cudaDeviceSynchronize());
	g = host_floats(dg, n);
	s = host_floats(ds, n);
	for (i = 0; i < n; i++) {
		check(g[i] == in[perm[i]], "%s: gathered[%d] = %g, want %g", what, i, g[i],
		      in[perm[i]]);
		check(s[perm[i]] == in[i], "%s: scattered[%d] = %g, want %g", what, perm[i],
		      s[perm[i]], in[i]);
	}
	rewritten<<<n / 128, 128>>>(dp, din, dg, ds);
	CK(cudaDeviceSynchronize());
	g = host_floats(dg, n);
	s = host_floats(ds, n);
	for (i = 0; i < n; i++) {
		check(g[i] == in[i], "%s, one register: first[%d] = %g, want %g", what, i, g[i],
		      in[i]);
		check(s[i] == in[perm[i]], "%s, one register: second[%d] = %g, want %g", what, i,
		      s[i], in[perm[i]]);
	}
	CK(cudaFree(din));
	CK(cudaFree(dg));
	CK(cudaFree(ds));
	CK(cudaFree(dp));
}

/* A scrambled permutation, and one that is the identity in the first half
 * of each warp and reversed in the second (one half consecutive only). */
static void test_permute()
{
	const int n = 1024;
	std::vector<int> perm(n);
	int i;

	for (i = 0; i < n; i++)
		perm[i] = (i * 389 + 7) % n;    /* 389 is odd: a permutation */
	run_permute("permute", perm);
	for (i = 0; i < n; i++)
		perm[i] = i % 32 < 16 ? i : (i & ~31) + 47 - i % 32;
	run_permute("half reversed", perm);
}

static void test_same()
{
	const int n = 512, warps = n / 32;
	std::vector<float> in = pattern(warps, 2.0f), zero(warps, 0.0f), pw;
	float *din = dev_floats(in), *dpw = dev_floats(zero);
	int *dcount, count = 0, i;

	CK(cudaMalloc(&dcount, sizeof(int)));
	CK(cudaMemset(dcount, 0, sizeof(int)));
	same<<<n / 256, 256>>>(din, dpw, dcount);
	CK(cudaDeviceSynchronize());
	pw = host_floats(dpw, warps);
	CK(cudaMemcpy(&count, dcount, sizeof(int), cudaMemcpyDeviceToHost));
	for (i = 0; i < warps; i++)
		check(pw[i] == in[i] + 1.0f, "same: per_warp[%d] = %g, want %g", i, pw[i],
		      in[i] + 1.0f);
	check(count == warps, "same: %d lanes counted, want %d", count, warps);
	CK(cudaFree(din));
	CK(cudaFree(dpw));
	CK(cudaFree(dcount));
}

static void test_vec4()
{
	const int n = 256;
	std::vector<float> in = pattern(4 * n, 0.75f), zero(4 * n, 0.0f), out, sw;
	float *din = dev_floats(in), *dout = dev_floats(zero), *dsw = dev_floats(zero);
	int i, k;

	vec4<<<n / 64, 64>>>((const float4 *)din, (float4 *)dout, (float4 *)dsw);
	CK(cudaDeviceSynchronize());
	out = host_floats(dout, 4 * n);
	sw = host_floats(dsw, 4 * n);
	for (i = 0; i < n; i++) {
		const float *v = &in[4 * i], *u = &in[4 * (i ^ 1)];
		float want[4] = { v[0], v[1] * 2, v[2] - 1, v[3] };

		for (k = 0; k < 4; k++) {
			check(out[4 * i + k] == want[k], "vec4: out[%d].%d = %g, want %g", i, k,
			      out[4 * i + k], want[k]);
			check(sw[4 * i + k] == u[k], "vec4: swapped[%d].%d = %g, want %g", i, k,
			      sw[4 * i + k], u[k]);
		}
	}
	CK(cudaFree(din));
	CK(cudaFree(dout));
	CK(cudaFree(dsw));
}

int main()
{
	test_dense();
	test_permute();
	test_same();
	test_vec4();
	return verdict("warp_access");
}
