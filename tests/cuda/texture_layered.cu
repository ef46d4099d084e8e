/*
 * texture_layered: layered CUDA arrays (cudaArrayLayered) as textures and
 * surfaces.  tex1DLayered and tex2DLayered filter within the selected
 * layer (linear, clamp and wrap), the layer index is an unsigned index
 * clamped to the last layer; surf2DLayeredwrite lands in the right layer
 * (read back with cudaMemcpy3D and with surf2DLayeredread), and
 * surf1DLayeredread past the last layer reads zero in zero mode.
 */
#include "check.h"
#include "texture_ref.h"

#include <vector>

__global__ void sample1dl(cudaTextureObject_t t, const float *c, const int *layer, float *out,
			  int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex1DLayered<float>(t, c[i], layer[i]);
}

__global__ void sample2dl(cudaTextureObject_t t, const float2 *c, const int *layer,
			  float4 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex2DLayered<float4>(t, c[i].x, c[i].y, layer[i]);
}

__global__ void write2dl(cudaSurfaceObject_t s, int w, int h, int layers)
{
	int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
	if (x < w && y < h && z < layers)
		surf2DLayeredwrite(z * 100.0f + y * 10.0f + x, s, x * 4, y, z);
}

__global__ void read2dl(cudaSurfaceObject_t s, float *out, int w, int h, int layers)
{
	int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
	if (x < w && y < h && z < layers)
		out[(z * h + y) * w + x] = surf2DLayeredread<float>(s, x * 4, y, layers - 1 - z);
}

/* Element 1 of layer z, for z past the last layer too. */
__global__ void read1dl_zero(cudaSurfaceObject_t s, float *out)
{
	int z = threadIdx.x;
	out[z] = surf1DLayeredread<float>(s, 4, z, cudaBoundaryModeZero);
}

static cudaTextureObject_t make_tex(cudaArray_t a, cudaTextureAddressMode m, bool normalized)
{
	cudaResourceDesc rd = {};
	cudaTextureDesc td = {};
	cudaTextureObject_t t;
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	td.addressMode[0] = td.addressMode[1] = m;
	td.filterMode = cudaFilterModeLinear;
	td.normalizedCoords = normalized;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	return t;
}

/* The layer an index selects: unsigned, clamped to the last. */
static int ref_layer(int layer, int layers)
{
	return (unsigned)layer < (unsigned)layers ? layer : layers - 1;
}

static void test_tex1d_layered(void)
{
	const int W = 9, L = 4, N = 96;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	std::vector<float> texels(W * L), c(N), got(N), want(N);
	std::vector<int> layer(N);
	std::vector<float4> t4(W * L);
	cudaArray_t a;
	float *dc, *dout;
	int *dl;

	for (int i = 0; i < W * L; i++) {
		texels[i] = (float)((i * 29) % 17) - 4.5f;
		t4[i] = make_float4(texels[i], 0, 0, 1);
	}
	for (int k = 0; k < N; k++) {
		c[k] = -1.0f + k * 0.1237f;
		layer[k] = k % 7 - 1;   /* -1 (a huge unsigned index) to L + 1 */
	}
	CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(W, 0, L), cudaArrayLayered));
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(texels.data(), W * sizeof(float), W, 1);
	p.dstArray = a;
	p.extent = make_cudaExtent(W, 1, L);
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	CK(cudaMalloc(&dc, N * sizeof(float)));
	CK(cudaMalloc(&dl, N * sizeof(int)));
	CK(cudaMalloc(&dout, N * sizeof(float)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dl, layer.data(), N * sizeof(int), cudaMemcpyHostToDevice));
	cudaTextureObject_t t = make_tex(a, cudaAddressModeClamp, false);
	sample1dl<<<1, N>>>(t, dc, dl, dout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, N * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	for (int k = 0; k < N; k++) {
		ref_tex r = { t4.data() + ref_layer(layer[k], L) * W, W, 1, 1, 1,
			      { cudaAddressModeClamp, cudaAddressModeClamp, cudaAddressModeClamp },
			      true, false, make_float4(0, 0, 0, 0) };
		want[k] = ref_sample(r, c[k]).x;
	}
	check_array("tex1DLayered linear clamp", got.data(), want.data(), N, 1e-5);
	CK(cudaFree(dc));
	CK(cudaFree(dl));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

static void test_tex2d_layered(void)
{
	const int W = 8, H = 4, L = 3, N = 128;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float4>();
	std::vector<float4> texels(W * H * L), got(N), want(N);
	std::vector<float2> c(N);
	std::vector<int> layer(N);
	cudaArray_t a;
	float2 *dc;
	float4 *dout;
	int *dl;

	for (int i = 0; i < W * H * L; i++)
		texels[i] = make_float4(i, -0.5f * i, (i * 5) % 7, 100 - i);
	for (int k = 0; k < N; k++) {
		c[k] = make_float2(-0.75f + k * (2.5f / N), 1.5f - k * (2.0f / N));
		layer[k] = k % 5;
	}
	CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(W, H, L), cudaArrayLayered));
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(texels.data(), W * sizeof(float4), W, H);
	p.dstArray = a;
	p.extent = make_cudaExtent(W, H, L);
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	CK(cudaMalloc(&dc, N * sizeof(float2)));
	CK(cudaMalloc(&dl, N * sizeof(int)));
	CK(cudaMalloc(&dout, N * sizeof(float4)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dl, layer.data(), N * sizeof(int), cudaMemcpyHostToDevice));
	cudaTextureObject_t t = make_tex(a, cudaAddressModeWrap, true);
	sample2dl<<<N / 64, 64>>>(t, dc, dl, dout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, N * sizeof(float4), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	for (int k = 0; k < N; k++) {
		ref_tex r = { texels.data() + ref_layer(layer[k], L) * W * H, W, H, 1, 2,
			      { cudaAddressModeWrap, cudaAddressModeWrap, cudaAddressModeWrap },
			      true, true, make_float4(0, 0, 0, 0) };
		want[k] = ref_sample(r, c[k].x, c[k].y);
	}
	check_array("tex2DLayered linear wrap", (const float *)got.data(),
		    (const float *)want.data(), 4 * N, 1e-5);
	CK(cudaFree(dc));
	CK(cudaFree(dl));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

static void test_surfaces(void)
{
	const int W = 6, H = 3, L = 4;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	std::vector<float> back(W * H * L), got(W * H * L), want(W * H * L), zero(L + 2);
	cudaResourceDesc rd = {};
	cudaSurfaceObject_t s;
	cudaArray_t a, a1;
	float *dout;

	CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(W, H, L),
			     cudaArrayLayered | cudaArraySurfaceLoadStore));
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	CK(cudaCreateSurfaceObject(&s, &rd));
	write2dl<<<L, dim3(W, H)>>>(s, W, H, L);
	CK(cudaGetLastError());
	cudaMemcpy3DParms p = {};
	p.srcArray = a;
	p.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(float), W, H);
	p.extent = make_cudaExtent(W, H, L);
	p.kind = cudaMemcpyDeviceToHost;
	CK(cudaMemcpy3D(&p));
	for (int z = 0; z < L; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++)
				want[(z * H + y) * W + x] = z * 100.0f + y * 10.0f + x;
	check_array("surf2DLayeredwrite", back.data(), want.data(), W * H * L);
	CK(cudaMalloc(&dout, W * H * L * sizeof(float)));
	read2dl<<<L, dim3(W, H)>>>(s, dout, W, H, L);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * H * L * sizeof(float), cudaMemcpyDeviceToHost));
	for (int z = 0; z < L; z++)
		for (int i = 0; i < W * H; i++)
			want[z * W * H + i] = back[(L - 1 - z) * W * H + i];
	check_array("surf2DLayeredread", got.data(), want.data(), W * H * L);
	CK(cudaDestroySurfaceObject(s));

	/* 1D layers: element 1 of each layer, and zeros past the last layer */
	std::vector<float> rows(W * L), want1(L + 2, 0.0f);
	for (int i = 0; i < W * L; i++)
		rows[i] = 0.5f * i + 1;
	for (int z = 0; z < L; z++)
		want1[z] = rows[z * W + 1];
	CK(cudaMalloc3DArray(&a1, &f, make_cudaExtent(W, 0, L),
			     cudaArrayLayered | cudaArraySurfaceLoadStore));
	p = {};
	p.srcPtr = make_cudaPitchedPtr(rows.data(), W * sizeof(float), W, 1);
	p.dstArray = a1;
	p.extent = make_cudaExtent(W, 1, L);
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	rd.res.array.array = a1;
	CK(cudaCreateSurfaceObject(&s, &rd));
	read1dl_zero<<<1, L + 2>>>(s, dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(zero.data(), dout, (L + 2) * sizeof(float), cudaMemcpyDeviceToHost));
	check_array("surf1DLayeredread zero mode", zero.data(), want1.data(), L + 2);
	CK(cudaDestroySurfaceObject(s));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
	CK(cudaFreeArray(a1));
}

int main(void)
{
	test_tex1d_layered();
	test_tex2d_layered();
	test_surfaces();
	return verdict("texture_layered");
}
