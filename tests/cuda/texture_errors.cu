/*
 * texture_errors: what cudaCreateTextureObject and cudaCreateSurfaceObject
 * refuse.  NULL descriptors, bad enum values, linear filtering of integers
 * read as elements, normalized reads of 32-bit integers, mixed or
 * three-channel formats, unaligned pitches, host memory, surfaces without
 * cudaArraySurfaceLoadStore or over linear memory are errors as in CUDA;
 * cubemap arrays, mipmapped arrays, sRGB, anisotropy and resource views,
 * which anygpu does not implement, are cudaErrorNotSupported with a
 * message.  Destroying an object twice, or with the other kind's call, is
 * cudaErrorInvalidValue.  None of these errors is sticky.
 */
// expect-stderr: cubemap arrays are not supported yet
// expect-stderr: sRGB conversions are not supported yet
// expect-stderr: mipmapped arrays are not supported yet
#include "check.h"

#include <vector>

static cudaResourceDesc array_res(cudaArray_t a)
{
	cudaResourceDesc rd = {};
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	return rd;
}

static cudaResourceDesc linear_res(void *p, cudaChannelFormatDesc f, size_t bytes)
{
	cudaResourceDesc rd = {};
	rd.resType = cudaResourceTypeLinear;
	rd.res.linear.devPtr = p;
	rd.res.linear.desc = f;
	rd.res.linear.sizeInBytes = bytes;
	return rd;
}

static void test_arguments(cudaArray_t fa, cudaArray_t ia)
{
	cudaResourceDesc rd = array_res(fa), ri = array_res(ia);
	cudaTextureDesc td = {};
	cudaTextureObject_t t;

	CK_EXPECT(cudaCreateTextureObject(NULL, &rd, &td, NULL), cudaErrorInvalidValue);
	CK_EXPECT(cudaCreateTextureObject(&t, NULL, &td, NULL), cudaErrorInvalidValue);
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, NULL, NULL), cudaErrorInvalidValue);
	td.addressMode[0] = (cudaTextureAddressMode)7;
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidValue);
	td = {};
	td.filterMode = (cudaTextureFilterMode)2;
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidValue);
	td = {};
	rd.flags = 1;
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidValue);
	rd.flags = 0;
	/* integers read as elements cannot be filtered */
	td.filterMode = cudaFilterModeLinear;
	CK_EXPECT(cudaCreateTextureObject(&t, &ri, &td, NULL), cudaErrorInvalidValue);
	/* ... and 32-bit integers cannot be read as normalized floats */
	td.filterMode = cudaFilterModePoint;
	td.readMode = cudaReadModeNormalizedFloat;
	CK_EXPECT(cudaCreateTextureObject(&t, &ri, &td, NULL), cudaErrorInvalidValue);
	/* float textures may be filtered in either read mode */
	td.filterMode = cudaFilterModeLinear;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	CK(cudaDestroyTextureObject(t));
	CK_EXPECT(cudaDestroyTextureObject(t), cudaErrorInvalidValue);
	CK_EXPECT(cudaDestroyTextureObject(12345), cudaErrorInvalidValue);
}

static void test_memory(void)
{
	cudaTextureDesc td = {};
	cudaTextureObject_t t;
	std::vector<float> host(64);
	void *d;

	CK(cudaMalloc(&d, 4096));
	cudaResourceDesc rd = linear_res(host.data(), cudaCreateChannelDesc<float>(), 256);
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidValue);
	rd = linear_res(d, cudaCreateChannelDesc<float>(), 8192);
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidValue);
	rd = linear_res(d, cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned), 256);
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidChannelDescriptor);
	rd = linear_res(d, cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat), 240);
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorInvalidChannelDescriptor);
	rd = linear_res(d, cudaCreateChannelDesc<float>(), 4096);
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	/* the handle of a texture is not a surface */
	CK_EXPECT(cudaDestroySurfaceObject(t), cudaErrorInvalidValue);
	CK(cudaDestroyTextureObject(t));

	cudaResourceDesc rp = {};
	rp.resType = cudaResourceTypePitch2D;
	rp.res.pitch2D.devPtr = d;
	rp.res.pitch2D.desc = cudaCreateChannelDesc<float>();
	rp.res.pitch2D.width = 10;
	rp.res.pitch2D.height = 8;
	rp.res.pitch2D.pitchInBytes = 40;   /* not a multiple of texturePitchAlignment */
	CK_EXPECT(cudaCreateTextureObject(&t, &rp, &td, NULL), cudaErrorInvalidValue);
	rp.res.pitch2D.pitchInBytes = 64;
	rp.res.pitch2D.height = 65;         /* past the allocation */
	CK_EXPECT(cudaCreateTextureObject(&t, &rp, &td, NULL), cudaErrorInvalidValue);
	rp.res.pitch2D.height = 64;
	CK(cudaCreateTextureObject(&t, &rp, &td, NULL));
	CK(cudaDestroyTextureObject(t));
	CK(cudaFree(d));
}

static void test_surfaces(cudaArray_t plain)
{
	cudaSurfaceObject_t s;
	cudaResourceDesc rd = array_res(plain);
	void *d;

	CK_EXPECT(cudaCreateSurfaceObject(NULL, &rd), cudaErrorInvalidValue);
	CK_EXPECT(cudaCreateSurfaceObject(&s, NULL), cudaErrorInvalidValue);
	/* an array without cudaArraySurfaceLoadStore */
	CK_EXPECT(cudaCreateSurfaceObject(&s, &rd), cudaErrorInvalidValue);
	CK(cudaMalloc(&d, 256));
	rd = linear_res(d, cudaCreateChannelDesc<float>(), 256);
	CK_EXPECT(cudaCreateSurfaceObject(&s, &rd), cudaErrorInvalidValue);
	CK(cudaFree(d));
	CK_EXPECT(cudaDestroySurfaceObject(99), cudaErrorInvalidValue);
}

static void test_not_supported(void)
{
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
	cudaTextureDesc td = {};
	cudaTextureObject_t t;
	cudaArray_t cube, a;

	CK(cudaMalloc3DArray(&cube, &f, make_cudaExtent(8, 8, 6), cudaArrayCubemap));
	cudaResourceDesc rd = array_res(cube);
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorNotSupported);
	CK(cudaFreeArray(cube));

	CK(cudaMallocArray(&a, &f, 8, 8));
	rd = array_res(a);
	td.sRGB = 1;
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorNotSupported);
	td = {};
	td.maxAnisotropy = 4;
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, NULL), cudaErrorNotSupported);
	td = {};
	cudaResourceViewDesc view = {};
	view.format = cudaResViewFormatFloat1;
	view.width = 8;
	view.height = 8;
	CK_EXPECT(cudaCreateTextureObject(&t, &rd, &td, &view), cudaErrorNotSupported);
	CK(cudaFreeArray(a));

	cudaResourceDesc rm = {};
	rm.resType = cudaResourceTypeMipmappedArray;
	CK_EXPECT(cudaCreateTextureObject(&t, &rm, &td, NULL), cudaErrorNotSupported);
}

int main(void)
{
	cudaChannelFormatDesc ff = cudaCreateChannelDesc<float>();
	cudaChannelFormatDesc fi = cudaCreateChannelDesc<int>();
	cudaArray_t fa, ia;

	CK(cudaMallocArray(&fa, &ff, 16, 4));
	CK(cudaMallocArray(&ia, &fi, 16, 4));
	test_arguments(fa, ia);
	test_memory();
	test_surfaces(fa);
	test_not_supported();
	CK(cudaFreeArray(fa));
	CK(cudaFreeArray(ia));
	/* none of the errors above is sticky */
	CK_EXPECT(cudaGetLastError(), cudaErrorNotSupported);
	CK(cudaDeviceSynchronize());
	CK(cudaGetLastError());
	return verdict("texture_errors");
}
