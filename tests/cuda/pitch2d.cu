/*
 * pitch2d: a 2D array from cudaMallocPitch (rows padded to the pitch),
 * filled by cudaMemcpy2D from a host array with its own row stride, changed
 * by a kernel that walks rows by the pitch, partly cleared by cudaMemset2D,
 * copied device to device with cudaMemcpy2D into a sub-rectangle, and read
 * back; a pitch smaller than the width is refused.
 */
#include "check.h"

#define W 37
#define H 23
#define HOST_STRIDE 40

__global__ void add_coords(float *a, size_t pitch, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	if (x < w && y < h) {
		float *row = (float *)((char *)a + y * pitch);
		row[x] += x + 1000 * y;
	}
}

int main()
{
	static float host[H][HOST_STRIDE], back[H][W], want[H][W];
	for (int y = 0; y < H; y++)
		for (int x = 0; x < HOST_STRIDE; x++)
			host[y][x] = x < W ? (float)(y * W + x) : -1.0f;

	float *dev;
	size_t pitch = 0;
	CK(cudaMallocPitch((void **)&dev, &pitch, W * sizeof(float), H));
	check(pitch >= W * sizeof(float), "pitch %zu below the row width %zu", pitch,
	      W * sizeof(float));
	CK(cudaMemcpy2D(dev, pitch, host, HOST_STRIDE * sizeof(float), W * sizeof(float), H,
			cudaMemcpyHostToDevice));
	dim3 block(8, 8), grid((W + 7) / 8, (H + 7) / 8);
	add_coords<<<grid, block>>>(dev, pitch, W, H);
	CK(cudaGetLastError());
	/* Rows 5..9, columns 3..12 to zero bytes. */
	CK(cudaMemset2D((char *)dev + 5 * pitch + 3 * sizeof(float), pitch, 0,
			10 * sizeof(float), 5));
	CK(cudaMemcpy2D(back, W * sizeof(float), dev, pitch, W * sizeof(float), H,
			cudaMemcpyDeviceToHost));
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			bool cleared = y >= 5 && y < 10 && x >= 3 && x < 13;
			want[y][x] = cleared ? 0 : host[y][x] + x + 1000 * y;
		}
	check_array("pitched array", &back[0][0], &want[0][0], W * H);

	/* Copy the 6x4 block at (1,2) onto (20,15) inside the same array. */
	float *src = (float *)((char *)dev + 2 * pitch) + 1;
	float *dst = (float *)((char *)dev + 15 * pitch) + 20;
	CK(cudaMemcpy2D(dst, pitch, src, pitch, 6 * sizeof(float), 4, cudaMemcpyDeviceToDevice));
	CK(cudaMemcpy2D(back, W * sizeof(float), dev, pitch, W * sizeof(float), H,
			cudaMemcpyDeviceToHost));
	for (int y = 0; y < 4; y++)
		for (int x = 0; x < 6; x++)
			want[15 + y][20 + x] = want[2 + y][1 + x];
	check_array("after a 2D device-to-device copy", &back[0][0], &want[0][0], W * H);

	CK_EXPECT(cudaMemcpy2D(back, 4, dev, pitch, W * sizeof(float), H, cudaMemcpyDeviceToHost),
		  cudaErrorInvalidPitchValue);
	cudaGetLastError();
	CK(cudaFree(dev));
	return verdict("pitch2d");
}
