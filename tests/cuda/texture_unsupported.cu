/*
 * texture_unsupported: a program whose kernel samples a cubemap texture
 * (tex.cube), which the cpu backend does not implement, is refused when its
 * device code loads, with a message naming the instruction, its line and
 * the missing feature; the launch fails with cudaErrorInvalidPtx (not
 * sticky), and nothing runs with a wrong answer.
 */
// engine: cpu
// expect-stderr: unsupported instruction 'tex\.cube\.v4\.f32\.f32' at line [0-9]+ \(cubemap textures\)
#include "check.h"

__global__ void cubemap(cudaTextureObject_t t, float *out)
{
	out[threadIdx.x] = texCubemap<float>(t, threadIdx.x + 0.5f, 0.5f, 1.0f);
}

int main(void)
{
	float *out;

	CK(cudaMalloc(&out, 32 * sizeof(float)));
	cubemap<<<1, 32>>>(0, out);
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidPtx);
	CK(cudaDeviceSynchronize());
	CK(cudaFree(out));
	return verdict("texture_unsupported");
}
