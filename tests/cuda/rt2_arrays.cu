/*
 * rt2_arrays: CUDA arrays as storage.  2D and 3D arrays are allocated,
 * described (cudaArrayGetInfo, cudaGetChannelDesc), filled and read back
 * through every copy that takes an array (2D to/from/between arrays, the
 * deprecated 1D forms, cudaMemcpy3D with positions, async and peer forms),
 * with offsets and pitches that differ on each side; a kernel reads what
 * went through an array.  Bad shapes, bad formats and out-of-range copies
 * are cudaErrorInvalidValue.
 */
#include "check.h"

#include <vector>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

__global__ void sum_rows(const float *m, size_t pitch, int w, int h, float *out)
{
	int y = blockIdx.x * blockDim.x + threadIdx.x;
	if (y >= h)
		return;
	const float *row = (const float *)((const char *)m + y * pitch);
	float s = 0;
	for (int x = 0; x < w; x++)
		s += row[x];
	out[y] = s;
}

static void test_2d(void)
{
	const int W = 37, H = 11;
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>(), got;
	cudaChannelFormatDesc c_desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
	cudaArray_t a, b;
	cudaExtent ext;
	unsigned flags = 99;

	check(c_desc.x == 32 && c_desc.y == 0 && c_desc.f == cudaChannelFormatKindFloat,
	      "cudaCreateChannelDesc: %d %d %d", c_desc.x, c_desc.y, (int)c_desc.f);
	CK(cudaMallocArray(&a, &desc, W, H));
	CK(cudaMallocArray(&b, &c_desc, W, H, cudaArraySurfaceLoadStore));
	CK(cudaArrayGetInfo(&got, &ext, &flags, a));
	check(got.x == 32 && got.f == cudaChannelFormatKindFloat, "info desc");
	check(ext.width == W && ext.height == H && ext.depth == 0, "info extent %zu %zu %zu",
	      ext.width, ext.height, ext.depth);
	check(flags == 0, "info flags %u", flags);
	CK(cudaArrayGetInfo(NULL, NULL, &flags, b));
	check(flags == cudaArraySurfaceLoadStore, "flags of b %u", flags);
	CK(cudaGetChannelDesc(&got, b));
	check(got.x == 32 && got.f == cudaChannelFormatKindFloat, "cudaGetChannelDesc");

	/* Host (pitch 40 floats) -> a, a -> b, b -> host (pitch W). */
	const size_t sp = 40 * sizeof(float);
	std::vector<float> src(40 * H, -1), back(W * H, 0), want(W * H);
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++)
			src[y * 40 + x] = want[y * W + x] = y * 100.0f + x;
	CK(cudaMemcpy2DToArray(a, 0, 0, src.data(), sp, W * sizeof(float), H,
			       cudaMemcpyHostToDevice));
	CK(cudaMemcpy2DArrayToArray(b, 0, 0, a, 0, 0, W * sizeof(float), H));
	CK(cudaMemcpy2DFromArray(back.data(), W * sizeof(float), b, 0, 0, W * sizeof(float), H,
				 cudaMemcpyDeviceToHost));
	check_array("2D round trip through two arrays", back.data(), want.data(), W * H);

	/* A 5x3 window at byte 8, row 4 of a, to device memory, then summed by
	 * a kernel. */
	float *d, *sums;
	size_t dp;
	CK(cudaMallocPitch(&d, &dp, 5 * sizeof(float), 3));
	CK(cudaMalloc(&sums, 3 * sizeof(float)));
	CK(cudaMemcpy2DFromArray(d, dp, a, 2 * sizeof(float), 4, 5 * sizeof(float), 3,
				 cudaMemcpyDeviceToDevice));
	sum_rows<<<1, 32>>>(d, dp, 5, 3, sums);
	float hs[3], ws[3];
	CK(cudaMemcpy(hs, sums, sizeof(hs), cudaMemcpyDeviceToHost));
	for (int y = 0; y < 3; y++) {
		ws[y] = 0;
		for (int x = 2; x < 7; x++)
			ws[y] += want[(y + 4) * W + x];
	}
	check_array("kernel sums of an array window", hs, ws, 3);

	/* The window written back into b at another place, async on a stream,
	 * through cudaMemcpyDefault. */
	cudaStream_t s;
	CK(cudaStreamCreate(&s));
	CK(cudaMemcpy2DToArrayAsync(b, 30 * sizeof(float), 8, d, dp, 5 * sizeof(float), 3,
				    cudaMemcpyDefault, s));
	CK(cudaMemcpy2DFromArrayAsync(back.data(), W * sizeof(float), b, 0, 0, W * sizeof(float),
				      H, cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	for (int y = 0; y < 3; y++)
		for (int x = 0; x < 5; x++)
			want[(y + 8) * W + 30 + x] = want[(y + 4) * W + 2 + x];
	check_array("async window into b", back.data(), want.data(), W * H);

	/* Deprecated 1D forms: bytes run on from one row into the next. */
	std::vector<float> lin(50), lin_back(50);
	for (int i = 0; i < 50; i++)
		lin[i] = 7000.0f + i;
	CK(cudaMemcpyToArray(a, 3 * sizeof(float), 2, lin.data(), 50 * sizeof(float),
			     cudaMemcpyHostToDevice));
	CK(cudaMemcpyArrayToArray(b, 0, 0, a, 3 * sizeof(float), 2, 50 * sizeof(float)));
	CK(cudaMemcpyFromArray(lin_back.data(), b, 0, 0, 50 * sizeof(float),
			       cudaMemcpyDeviceToHost));
	check_array("1D copies across rows", lin_back.data(), lin.data(), 50);
	CK(cudaMemcpyFromArrayAsync(lin_back.data(), a, 3 * sizeof(float), 2, 50 * sizeof(float),
				    cudaMemcpyDeviceToHost, s));
	CK(cudaStreamSynchronize(s));
	check_array("1D async from array", lin_back.data(), lin.data(), 50);

	/* Out of range: past the row, past the last row, past the end. */
	CK_EXPECT(cudaMemcpy2DToArray(a, 4, 0, src.data(), sp, W * sizeof(float), 1,
				      cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemcpy2DFromArray(back.data(), W * sizeof(float), a, 0, H - 1,
					W * sizeof(float), 2, cudaMemcpyDeviceToHost),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMemcpyToArray(a, 0, H - 1, lin.data(), (W + 1) * sizeof(float),
				    cudaMemcpyHostToDevice), cudaErrorInvalidValue);
	CK_EXPECT(cudaMemcpy2DToArray(a, 0, 0, src.data(), 4, 8, 1, cudaMemcpyHostToDevice),
		  cudaErrorInvalidPitchValue);
	cudaGetLastError();

	CK(cudaStreamDestroy(s));
	CK(cudaFree(d));
	CK(cudaFree(sums));
	CK(cudaFreeArray(a));
	CK(cudaFreeArray(b));
	CK_EXPECT(cudaFreeArray(a), cudaErrorInvalidValue);
	CK_EXPECT(cudaArrayGetInfo(&got, &ext, &flags, a), cudaErrorInvalidValue);
	CK(cudaFreeArray(NULL));
	cudaGetLastError();
}

static void test_3d(void)
{
	const int W = 9, H = 7, D = 5;
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<uchar4>();
	cudaArray_t a, b;
	cudaExtent ext = make_cudaExtent(W, H, D), got;

	CK(cudaMalloc3DArray(&a, &desc, ext));
	CK(cudaMalloc3DArray(&b, &desc, ext));
	CK(cudaArrayGetInfo(NULL, &got, NULL, a));
	check(got.width == W && got.height == H && got.depth == D, "3D extent");

	std::vector<uchar4> h(W * H * D), back(W * H * D);
	for (int i = 0; i < W * H * D; i++)
		h[i] = make_uchar4(i & 255, (i >> 8) & 255, 3, 4);

	/* Host -> array, all of it. */
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(h.data(), W * sizeof(uchar4), W, H);
	p.dstArray = a;
	p.extent = ext;
	p.kind = cudaMemcpyHostToDevice;
	CK(cudaMemcpy3D(&p));
	/* b starts as zeros (arrays, like cudaMalloc memory, start undefined). */
	p.srcPtr = make_cudaPitchedPtr(back.data(), W * sizeof(uchar4), W, H);
	p.dstArray = b;
	CK(cudaMemcpy3D(&p));

	/* A 4x3x2 box at element (2,1,1) of a -> pitched device memory at
	 * byte 16, row 2, slice 1. */
	cudaPitchedPtr dev;
	CK(cudaMalloc3D(&dev, make_cudaExtent(64, 8, 4)));
	CK(cudaMemset3D(dev, 0, make_cudaExtent(64, 8, 4)));
	p = {};
	p.srcArray = a;
	p.srcPos = make_cudaPos(2, 1, 1);
	p.dstPtr = dev;
	p.dstPos = make_cudaPos(16, 2, 1);
	p.extent = make_cudaExtent(4, 3, 2);
	p.kind = cudaMemcpyDeviceToDevice;
	CK(cudaMemcpy3D(&p));
	/* ... and back from there into b at element (5,4,3), async. */
	cudaStream_t s;
	CK(cudaStreamCreate(&s));
	p = {};
	p.srcPtr = dev;
	p.srcPos = make_cudaPos(16, 2, 1);
	p.dstArray = b;
	p.dstPos = make_cudaPos(5, 4, 3);
	p.extent = make_cudaExtent(4, 3, 2);
	p.kind = cudaMemcpyDeviceToDevice;
	CK(cudaMemcpy3DAsync(&p, s));
	/* b -> host, through the peer form on device 0. */
	int dev0;
	CK(cudaGetDevice(&dev0));
	cudaMemcpy3DPeerParms pp = {};
	std::fill(back.begin(), back.end(), make_uchar4(0, 0, 0, 0));
	pp.srcArray = b;
	pp.srcDevice = dev0;
	pp.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(uchar4), W, H);
	pp.dstDevice = dev0;
	pp.extent = ext;
	CK(cudaMemcpy3DPeerAsync(&pp, s));
	CK(cudaStreamSynchronize(s));
	size_t bad = 0;
	for (int z = 0; z < D; z++)
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				uchar4 g = back[(z * H + y) * W + x], w = make_uchar4(0, 0, 0, 0);
				if (x >= 5 && y >= 4 && z >= 3)
					w = h[((z - 2) * H + (y - 3)) * W + (x - 3)];
				bad += g.x != w.x || g.y != w.y || g.z != w.z || g.w != w.w;
			}
	check(bad == 0, "3D box through array, device memory and array: %zu wrong", bad);

	/* Array to array, whole, then the synchronous peer form to host. */
	p = {};
	p.srcArray = a;
	p.dstArray = b;
	p.extent = ext;
	p.kind = cudaMemcpyDeviceToDevice;
	CK(cudaMemcpy3D(&p));
	CK(cudaMemcpy3DPeer(&pp));
	bad = 0;
	for (int i = 0; i < W * H * D; i++)
		bad += back[i].x != h[i].x || back[i].y != h[i].y;
	check(bad == 0, "3D array to array: %zu wrong", bad);

	/* Errors: both an array and a pointer; a box past the array; another
	 * element size; a bad peer device. */
	p = {};
	p.srcArray = a;
	p.srcPtr = dev;
	p.dstPtr = dev;
	p.extent = make_cudaExtent(1, 1, 1);
	p.kind = cudaMemcpyDeviceToDevice;
	CK_EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
	p.srcPtr = make_cudaPitchedPtr(NULL, 0, 0, 0);
	p.srcPos = make_cudaPos(W - 1, 0, 0);
	p.extent = make_cudaExtent(2, 1, 1);
	CK_EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
	cudaArray_t f;
	cudaChannelFormatDesc fd = cudaCreateChannelDesc<float2>();
	CK(cudaMallocArray(&f, &fd, W, H));
	p = {};
	p.srcArray = a;
	p.dstArray = f;
	p.extent = make_cudaExtent(1, 1, 1);
	p.kind = cudaMemcpyDeviceToDevice;
	CK_EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
	pp.srcDevice = 1000;
	CK_EXPECT(cudaMemcpy3DPeer(&pp), cudaErrorInvalidDevice);
	cudaGetLastError();

	CK(cudaStreamDestroy(s));
	CK(cudaFree(dev.ptr));
	CK(cudaFreeArray(a));
	CK(cudaFreeArray(b));
	CK(cudaFreeArray(f));
}

static void test_shapes(void)
{
	cudaChannelFormatDesc desc = cudaCreateChannelDesc<int>();
	cudaChannelFormatDesc odd = { 12, 0, 0, 0, cudaChannelFormatKindSigned };
	cudaChannelFormatDesc gap = { 8, 0, 8, 0, cudaChannelFormatKindUnsigned };
	cudaChannelFormatDesc f8 = { 8, 0, 0, 0, cudaChannelFormatKindFloat };
	cudaChannelFormatDesc half2 = cudaCreateChannelDescHalf2();
	cudaArray_t a;
	cudaExtent ext;

	CK(cudaMalloc3DArray(&a, &desc, make_cudaExtent(16, 0, 4), cudaArrayLayered));
	CK(cudaArrayGetInfo(NULL, &ext, NULL, a));
	check(ext.width == 16 && ext.height == 0 && ext.depth == 4, "layered 1D extent");
	CK(cudaFreeArray(a));
	CK(cudaMalloc3DArray(&a, &half2, make_cudaExtent(8, 8, 6), cudaArrayCubemap));
	CK(cudaFreeArray(a));
	CK(cudaMallocArray(&a, &desc, 100));   /* 1D */
	CK(cudaFreeArray(a));
	CK_EXPECT(cudaMalloc3DArray(&a, &desc, make_cudaExtent(16, 0, 4), 0), cudaErrorInvalidValue);
	CK_EXPECT(cudaMalloc3DArray(&a, &desc, make_cudaExtent(8, 9, 6), cudaArrayCubemap),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &desc, 0, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &odd, 4, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &gap, 4, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &f8, 4, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, NULL, 4, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &desc, 4, 4, cudaArrayLayered), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &desc, 4, 4, 0x1000), cudaErrorInvalidValue);
	CK_EXPECT(cudaMallocArray(&a, &desc, 4, 4, cudaArraySparse), cudaErrorNotSupported);
	cudaGetLastError();
}

int main()
{
	test_2d();
	test_3d();
	test_shapes();
	return verdict("rt2_arrays");
}
