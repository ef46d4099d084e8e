/*
 * texture_filter: texture objects over CUDA arrays, sampled with
 * tex1D/tex2D/tex3D and compared with the host's sampler (texture_ref.h,
 * the Programming Guide's formulas): point and linear filtering in 1D, 2D
 * and 3D, unnormalized coordinates (clamp and border) and normalized ones
 * with each address mode (wrap, clamp, mirror, border), one-channel and
 * four-channel float formats.  Coordinates run past both ends; the linear
 * cases use fractions that are not multiples of 1/256, so the 9-bit
 * weights matter, and fractions halfway between two weights round up.
 * tex2DLod and tex2DGrad read the texture's one level.
 */
#include "check.h"
#include "texture_ref.h"

#include <vector>

__global__ void sample1d(cudaTextureObject_t t, const float *c, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex1D<float>(t, c[i]);
}

__global__ void sample2d(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

/* The level-of-detail forms read the one level a texture without
 * mipmaps has, whatever the level or gradients. */
__global__ void sample2d_lod(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[2 * i] = tex2DLod<float4>(t, c[i].x, c[i].y, 2.5f);
		out[2 * i + 1] = tex2DGrad<float4>(t, c[i].x, c[i].y, make_float2(3, 0),
						   make_float2(0, 5));
	}
}

__global__ void sample3d(cudaTextureObject_t t, const float4 *c, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex3D<float>(t, c[i].x, c[i].y, c[i].z);
}

static const cudaTextureAddressMode modes[] = { cudaAddressModeWrap, cudaAddressModeClamp,
						cudaAddressModeMirror, cudaAddressModeBorder };
static const char *const mode_names[] = { "wrap", "clamp", "mirror", "border" };

/* Coordinate k of n spread over [lo, hi), not on a grid of 1/256 when
 * fine is set. */
static float coord(int k, int n, float lo, float hi, bool fine)
{
	float f = lo + (hi - lo) * k / n;
	return fine ? f + 0.0371f * (k % 7) : floorf(f * 64) / 64;
}

struct sampler {
	cudaTextureAddressMode mode;
	bool linear, normalized;
	const char *name;
};

static cudaTextureObject_t make_tex(cudaArray_t a, const sampler &s, float4 border)
{
	cudaResourceDesc rd = {};
	cudaTextureDesc td = {};
	cudaTextureObject_t t;

	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	for (int i = 0; i < 3; i++)
		td.addressMode[i] = s.mode;
	td.filterMode = s.linear ? cudaFilterModeLinear : cudaFilterModePoint;
	td.readMode = cudaReadModeElementType;
	td.normalizedCoords = s.normalized;
	td.borderColor[0] = border.x;
	td.borderColor[1] = border.y;
	td.borderColor[2] = border.z;
	td.borderColor[3] = border.w;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	return t;
}

/* Every sampler setting the tests run: unnormalized clamp and border,
 * normalized with each mode, point and linear. */
static std::vector<sampler> samplers(void)
{
	std::vector<sampler> v;
	for (int lin = 0; lin < 2; lin++) {
		v.push_back({ cudaAddressModeClamp, lin != 0, false, "unnormalized clamp" });
		v.push_back({ cudaAddressModeBorder, lin != 0, false, "unnormalized border" });
		for (int m = 0; m < 4; m++)
			v.push_back({ modes[m], lin != 0, true, mode_names[m] });
	}
	return v;
}

static ref_tex ref_of(const std::vector<float4> &t, int w, int h, int d, int dims,
		      const sampler &s, float4 border)
{
	ref_tex r = { t.data(), w, h, d, dims, { s.mode, s.mode, s.mode }, s.linear,
		      s.normalized, border };
	return r;
}

static void test_1d(void)
{
	const int W = 13, N = 200;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	cudaArray_t a;
	std::vector<float> texels(W), c(N), got(N);
	std::vector<float4> t4(W);
	float *dc, *dout;
	const float4 border = make_float4(-7.5f, 0, 0, 1);

	for (int i = 0; i < W; i++) {
		texels[i] = (float)((i * 37) % 11) - 3.25f;
		t4[i] = make_float4(texels[i], 0, 0, 1);
	}
	CK(cudaMallocArray(&a, &f, W));
	CK(cudaMemcpy2DToArray(a, 0, 0, texels.data(), W * sizeof(float), W * sizeof(float), 1,
			       cudaMemcpyHostToDevice));
	CK(cudaMalloc(&dc, N * sizeof(float)));
	CK(cudaMalloc(&dout, N * sizeof(float)));
	for (const sampler &s : samplers()) {
		for (int k = 0; k < N; k++)
			c[k] = s.normalized ? coord(k, N, -1.5f, 2.5f, false) :
				coord(k, N, -2.0f, W + 2.0f, s.linear);
		CK(cudaMemcpy(dc, c.data(), N * sizeof(float), cudaMemcpyHostToDevice));
		cudaTextureObject_t t = make_tex(a, s, border);
		sample1d<<<(N + 63) / 64, 64>>>(t, dc, dout, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got.data(), dout, N * sizeof(float), cudaMemcpyDeviceToHost));
		CK(cudaDestroyTextureObject(t));
		ref_tex r = ref_of(t4, W, 1, 1, 1, s, border);
		std::vector<float> want(N);
		for (int k = 0; k < N; k++)
			want[k] = ref_sample(r, c[k]).x;
		char what[96];
		snprintf(what, sizeof(what), "1D %s %s", s.linear ? "linear" : "point", s.name);
		check_array(what, got.data(), want.data(), N, 1e-5);
	}
	CK(cudaFree(dc));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

/* Fractions exactly halfway between two weights, (m + 1/2) / 256: the
 * weight rounds up to (m + 1) / 256, as an H200 does (not to even). */
static void test_weight_ties(void)
{
	const int W = 4, M = 128, N = 3 * M;
	const float texels[W] = { 0, 1, 0, 1 };
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	sampler s = { cudaAddressModeClamp, true, false, "clamp" };
	std::vector<float> c(N), got(N), want(N);
	cudaArray_t a;
	float *dc, *dout;

	for (int i = 0; i < 3; i++) {
		for (int m = 0; m < M; m++) {
			float wt = (m + 1) / 256.0f;

			c[i * M + m] = 0.5f + i + (2 * m + 1) / 512.0f;
			want[i * M + m] = (1 - wt) * texels[i] + wt * texels[i + 1];
		}
	}
	CK(cudaMallocArray(&a, &f, W));
	CK(cudaMemcpy2DToArray(a, 0, 0, texels, sizeof(texels), sizeof(texels), 1,
			       cudaMemcpyHostToDevice));
	CK(cudaMalloc(&dc, N * sizeof(float)));
	CK(cudaMalloc(&dout, N * sizeof(float)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float), cudaMemcpyHostToDevice));
	cudaTextureObject_t t = make_tex(a, s, make_float4(0, 0, 0, 0));
	sample1d<<<(N + 63) / 64, 64>>>(t, dc, dout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, N * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	check_array("weights halfway between two steps", got.data(), want.data(), N, 0);
	CK(cudaFree(dc));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

static void test_2d(void)
{
	const int W = 8, H = 4, N = 300;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float4>();
	cudaArray_t a;
	std::vector<float4> texels(W * H), got(N), want(N), lod(2 * N), both(2 * N);
	std::vector<float2> c(N);
	float2 *dc;
	float4 *dout, *dlod;
	const float4 border = make_float4(1.5f, -2.5f, 3.5f, -4.5f);

	for (int i = 0; i < W * H; i++)
		texels[i] = make_float4(i, i * 0.5f - 3, (i * 7) % 5, -i);
	CK(cudaMallocArray(&a, &f, W, H));
	CK(cudaMemcpy2DToArray(a, 0, 0, texels.data(), W * sizeof(float4), W * sizeof(float4), H,
			       cudaMemcpyHostToDevice));
	CK(cudaMalloc(&dc, N * sizeof(float2)));
	CK(cudaMalloc(&dout, N * sizeof(float4)));
	CK(cudaMalloc(&dlod, 2 * N * sizeof(float4)));
	for (const sampler &s : samplers()) {
		for (int k = 0; k < N; k++)
			c[k] = s.normalized ?
				make_float2(coord(k, N, -1.25f, 2.25f, false),
					    coord((k * 7) % N, N, -1.5f, 2.5f, false)) :
				make_float2(coord(k, N, -2.0f, W + 2.0f, s.linear),
					    coord((k * 7) % N, N, -1.0f, H + 1.0f, s.linear));
		CK(cudaMemcpy(dc, c.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
		cudaTextureObject_t t = make_tex(a, s, border);
		sample2d<<<(N + 63) / 64, 64>>>(t, dc, dout, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got.data(), dout, N * sizeof(float4), cudaMemcpyDeviceToHost));
		CK(cudaDestroyTextureObject(t));
		ref_tex r = ref_of(texels, W, H, 1, 2, s, border);
		for (int k = 0; k < N; k++)
			want[k] = ref_sample(r, c[k].x, c[k].y);
		char what[96];
		snprintf(what, sizeof(what), "2D %s %s", s.linear ? "linear" : "point", s.name);
		check_array(what, (const float *)got.data(), (const float *)want.data(), 4 * N, 1e-5);
		if (s.linear && s.mode == cudaAddressModeWrap) {
			t = make_tex(a, s, border);
			sample2d_lod<<<(N + 63) / 64, 64>>>(t, dc, dlod, N);
			CK(cudaGetLastError());
			CK(cudaMemcpy(lod.data(), dlod, 2 * N * sizeof(float4),
				      cudaMemcpyDeviceToHost));
			CK(cudaDestroyTextureObject(t));
			for (int k = 0; k < 2 * N; k++)
				both[k] = got[k / 2];
			check_array("tex2DLod and tex2DGrad", (const float *)lod.data(),
				    (const float *)both.data(), 8 * N);
		}
	}
	CK(cudaFree(dc));
	CK(cudaFree(dout));
	CK(cudaFree(dlod));
	CK(cudaFreeArray(a));
}

static void test_3d(void)
{
	const int W = 4, H = 8, D = 2, N = 300;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	cudaArray_t a;
	std::vector<float> texels(W * H * D), got(N), want(N);
	std::vector<float4> t4(W * H * D), c(N);
	float4 *dc;
	float *dout;
	const float4 border = make_float4(100, 0, 0, 1);

	for (int i = 0; i < W * H * D; i++) {
		texels[i] = (float)((i * 13) % 29) * 0.25f;
		t4[i] = make_float4(texels[i], 0, 0, 1);
	}
	CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(W, H, D)));
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(texels.data(), W * sizeof(float), W, H);
	p.dstArray = a;
	p.extent = make_cudaExtent(W, H, D);
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	CK(cudaMalloc(&dc, N * sizeof(float4)));
	CK(cudaMalloc(&dout, N * sizeof(float)));
	for (const sampler &s : samplers()) {
		for (int k = 0; k < N; k++)
			c[k] = s.normalized ?
				make_float4(coord(k, N, -1.25f, 2.25f, false),
					    coord((k * 7) % N, N, -1.5f, 2.5f, false),
					    coord((k * 13) % N, N, -1.0f, 2.0f, false), 0) :
				make_float4(coord(k, N, -1.0f, W + 1.0f, s.linear),
					    coord((k * 7) % N, N, -1.0f, H + 1.0f, s.linear),
					    coord((k * 13) % N, N, -1.0f, D + 1.0f, s.linear), 0);
		CK(cudaMemcpy(dc, c.data(), N * sizeof(float4), cudaMemcpyHostToDevice));
		cudaTextureObject_t t = make_tex(a, s, border);
		sample3d<<<(N + 63) / 64, 64>>>(t, dc, dout, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got.data(), dout, N * sizeof(float), cudaMemcpyDeviceToHost));
		CK(cudaDestroyTextureObject(t));
		ref_tex r = ref_of(t4, W, H, D, 3, s, border);
		for (int k = 0; k < N; k++)
			want[k] = ref_sample(r, c[k].x, c[k].y, c[k].z).x;
		char what[96];
		snprintf(what, sizeof(what), "3D %s %s", s.linear ? "linear" : "point", s.name);
		check_array(what, got.data(), want.data(), N, 1e-5);
	}
	CK(cudaFree(dc));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

int main(void)
{
	test_1d();
	test_weight_ties();
	test_2d();
	test_3d();
	return verdict("texture_filter");
}
