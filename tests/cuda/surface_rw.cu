/*
 * surface_rw: surface objects over CUDA arrays created with
 * cudaArraySurfaceLoadStore.  A kernel writes a 2D float surface with
 * surf2Dwrite (x in bytes), which is read back with cudaMemcpy2DFromArray
 * and by another kernel with surf2Dread; 1D uchar4 surfaces read with the
 * clamp and zero boundary modes past both ends, and written in zero mode
 * past the end (ignored); a 3D surface of int2 written and read with
 * surf3Dwrite/surf3Dread; 16-bit elements.  A texture over the same array
 * sees what the surface wrote.
 */
#include "check.h"

#include <vector>

__global__ void write2d(cudaSurfaceObject_t s, int w, int h)
{
	int x = threadIdx.x, y = blockIdx.x;
	if (x < w && y < h)
		surf2Dwrite(y * 1000.0f + x, s, x * (int)sizeof(float), y);
}

__global__ void read2d(cudaSurfaceObject_t s, float *out, int w, int h)
{
	int x = threadIdx.x, y = blockIdx.x;
	if (x < w && y < h) {
		float v;
		surf2Dread(&v, s, x * (int)sizeof(float), y);
		out[y * w + x] = 2 * v;
	}
}

__global__ void tex_read2d(cudaTextureObject_t t, float *out, int w, int h)
{
	int x = threadIdx.x, y = blockIdx.x;
	if (x < w && y < h)
		out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}

/* Element i - 3 of a 1D surface in each boundary mode; writes past the
 * end in zero mode change nothing. */
__global__ void modes1d(cudaSurfaceObject_t s, uchar4 *clamped, uchar4 *zeroed, int n)
{
	int i = threadIdx.x;
	if (i < n) {
		int x = (i - 3) * 4;
		clamped[i] = surf1Dread<uchar4>(s, x, cudaBoundaryModeClamp);
		zeroed[i] = surf1Dread<uchar4>(s, x, cudaBoundaryModeZero);
		if (i >= n - 3)
			surf1Dwrite(make_uchar4(1, 2, 3, 4), s, (i + 3) * 4, cudaBoundaryModeZero);
	}
}

__global__ void write3d(cudaSurfaceObject_t s, int w, int h, int d)
{
	int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
	if (x < w && y < h && z < d)
		surf3Dwrite(make_int2(x + 10 * y + 100 * z, -z), s, x * 8, y, z);
}

/* Reads mirrored in x: surface writes are visible to the next kernel, not
 * to the same one. */
__global__ void read3d(cudaSurfaceObject_t s, int2 *out, int w, int h, int d)
{
	int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
	if (x < w && y < h && z < d) {
		int2 v;
		surf3Dread(&v, s, (w - 1 - x) * 8, y, z);
		out[(z * h + y) * w + x] = v;
	}
}

__global__ void rw16(cudaSurfaceObject_t s, short *out, int n)
{
	int i = threadIdx.x;
	if (i < n) {
		short v = surf1Dread<short>(s, i * 2);
		surf1Dwrite((short)(v * 3), s, i * 2);
		out[i] = v;
	}
}

static cudaSurfaceObject_t make_surface(cudaArray_t a)
{
	cudaResourceDesc rd = {}, back;
	cudaSurfaceObject_t s;
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	CK(cudaCreateSurfaceObject(&s, &rd));
	CK(cudaGetSurfaceObjectResourceDesc(&back, s));
	check(back.resType == cudaResourceTypeArray && back.res.array.array == a,
	      "cudaGetSurfaceObjectResourceDesc");
	return s;
}

static void test_2d(void)
{
	const int W = 21, H = 6;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	cudaArray_t a;
	std::vector<float> got(W * H), want(W * H);
	float *dout;

	CK(cudaMallocArray(&a, &f, W, H, cudaArraySurfaceLoadStore));
	cudaSurfaceObject_t s = make_surface(a);
	write2d<<<H, 32>>>(s, W, H);
	CK(cudaGetLastError());
	CK(cudaMemcpy2DFromArray(got.data(), W * sizeof(float), a, 0, 0, W * sizeof(float), H,
				 cudaMemcpyDeviceToHost));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			want[y * W + x] = y * 1000.0f + x;
	check_array("surf2Dwrite, cudaMemcpy2DFromArray", got.data(), want.data(), W * H);

	CK(cudaMalloc(&dout, W * H * sizeof(float)));
	read2d<<<H, 32>>>(s, dout, W, H);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * H * sizeof(float), cudaMemcpyDeviceToHost));
	for (int i = 0; i < W * H; i++)
		want[i] *= 2;
	check_array("surf2Dread", got.data(), want.data(), W * H);

	cudaResourceDesc rd = {};
	cudaTextureDesc td = {};
	cudaTextureObject_t t;
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	tex_read2d<<<H, 32>>>(t, dout, W, H);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * H * sizeof(float), cudaMemcpyDeviceToHost));
	for (int i = 0; i < W * H; i++)
		want[i] /= 2;
	check_array("texture over the surface's array", got.data(), want.data(), W * H);
	CK(cudaDestroyTextureObject(t));
	CK(cudaDestroySurfaceObject(s));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

static void test_modes(void)
{
	const int W = 10, N = W + 6;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<uchar4>();
	cudaArray_t a;
	std::vector<uchar4> texels(W), clamped(N), zeroed(N), after(W);
	uchar4 *dc, *dz;

	for (int i = 0; i < W; i++)
		texels[i] = make_uchar4(i, 10 + i, 20 + i, 30 + i);
	CK(cudaMallocArray(&a, &f, W, 0, cudaArraySurfaceLoadStore));
	CK(cudaMemcpy2DToArray(a, 0, 0, texels.data(), W * 4, W * 4, 1, cudaMemcpyHostToDevice));
	cudaSurfaceObject_t s = make_surface(a);
	CK(cudaMalloc(&dc, N * 4));
	CK(cudaMalloc(&dz, N * 4));
	modes1d<<<1, N>>>(s, dc, dz, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(clamped.data(), dc, N * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(zeroed.data(), dz, N * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy2DFromArray(after.data(), W * 4, a, 0, 0, W * 4, 1, cudaMemcpyDeviceToHost));
	std::vector<uchar4> wc(N), wz(N);
	for (int i = 0; i < N; i++) {
		int x = i - 3;
		wc[i] = texels[x < 0 ? 0 : x >= W ? W - 1 : x];
		wz[i] = x < 0 || x >= W ? make_uchar4(0, 0, 0, 0) : texels[x];
	}
	check_array("surf1Dread clamp", (const unsigned char *)clamped.data(),
		    (const unsigned char *)wc.data(), 4 * N);
	check_array("surf1Dread zero", (const unsigned char *)zeroed.data(),
		    (const unsigned char *)wz.data(), 4 * N);
	check_array("surf1Dwrite zero past the end", (const unsigned char *)after.data(),
		    (const unsigned char *)texels.data(), 4 * W);
	CK(cudaDestroySurfaceObject(s));
	CK(cudaFree(dc));
	CK(cudaFree(dz));
	CK(cudaFreeArray(a));
}

static void test_3d(void)
{
	const int W = 5, H = 4, D = 3;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<int2>();
	cudaArray_t a;
	std::vector<int2> got(W * H * D), back(W * H * D);
	int2 *dout;

	CK(cudaMalloc3DArray(&a, &f, make_cudaExtent(W, H, D), cudaArraySurfaceLoadStore));
	cudaSurfaceObject_t s = make_surface(a);
	CK(cudaMalloc(&dout, W * H * D * sizeof(int2)));
	write3d<<<D, dim3(W, H)>>>(s, W, H, D);
	CK(cudaGetLastError());
	read3d<<<D, dim3(W, H)>>>(s, dout, W, H, D);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * H * D * sizeof(int2), cudaMemcpyDeviceToHost));
	cudaMemcpy3DParms p = {};
	p.srcArray = a;
	p.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(int2), W, H);
	p.extent = make_cudaExtent(W, H, D);
	p.kind = cudaMemcpyDeviceToHost;
	CK(cudaMemcpy3D(&p));
	std::vector<int2> wg(W * H * D), wb(W * H * D);
	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				int i = (z * H + y) * W + x;
				wb[i] = make_int2(x + 10 * y + 100 * z, -z);
				wg[i] = make_int2(W - 1 - x + 10 * y + 100 * z, -z);
			}
	check_array("surf3Dread", (const int *)got.data(), (const int *)wg.data(), 2 * W * H * D);
	check_array("surf3Dwrite", (const int *)back.data(), (const int *)wb.data(), 2 * W * H * D);
	CK(cudaDestroySurfaceObject(s));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

static void test_16bit(void)
{
	const int W = 24;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<short>();
	cudaArray_t a;
	std::vector<short> v(W), got(W), after(W), want(W);
	short *dout;

	for (int i = 0; i < W; i++) {
		v[i] = (short)(i * 101 - 1000);
		want[i] = (short)(v[i] * 3);
	}
	CK(cudaMallocArray(&a, &f, W, 0, cudaArraySurfaceLoadStore));
	CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), W * 2, W * 2, 1, cudaMemcpyHostToDevice));
	cudaSurfaceObject_t s = make_surface(a);
	CK(cudaMalloc(&dout, W * sizeof(short)));
	rw16<<<1, W>>>(s, dout, W);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * sizeof(short), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy2DFromArray(after.data(), W * 2, a, 0, 0, W * 2, 1, cudaMemcpyDeviceToHost));
	check_array("surf1Dread short", got.data(), v.data(), W);
	check_array("surf1Dwrite short", after.data(), want.data(), W);
	CK(cudaDestroySurfaceObject(s));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

int main(void)
{
	test_2d();
	test_modes();
	test_3d();
	test_16bit();
	return verdict("surface_rw");
}
