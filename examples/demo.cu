/*
 * demo: the Mandelbrot set, computed by a CUDA kernel and printed as ASCII
 * art, then a larger image computed again by the kernel and by the host,
 * compared pixel by pixel, with both timings.  Built with --fmad=false so
 * that the device rounds exactly as the host does and every pixel agrees.
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CK(call) ck((call), #call)

static void ck(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return;
	fprintf(stderr, "demo: %s: %s\n", what, cudaGetErrorString(e));
	exit(1);
}

struct view {
	int w, h, max_iter;
	float x0, y0, dx, dy;
};

__host__ __device__ static int escape_time(const struct view v, int px, int py)
{
	float cx = v.x0 + px * v.dx, cy = v.y0 + py * v.dy;
	float x = 0, y = 0;
	int i = 0;
	while (i < v.max_iter && x * x + y * y <= 4.0f) {
		float t = x * x - y * y + cx;
		y = 2.0f * x * y + cy;
		x = t;
		i++;
	}
	return i;
}

__global__ void mandelbrot(struct view v, int *iters)
{
	int px = blockIdx.x * blockDim.x + threadIdx.x;
	int py = blockIdx.y * blockDim.y + threadIdx.y;
	if (px < v.w && py < v.h)
		iters[py * v.w + px] = escape_time(v, px, py);
}

static struct view frame(int w, int h, int max_iter)
{
	struct view v = { w, h, max_iter, -2.2f, -1.2f, 3.2f / w, 2.4f / h };
	return v;
}

/* Runs the kernel over v; returns the milliseconds it took. */
static float render(const struct view v, int *host)
{
	size_t bytes = (size_t)v.w * v.h * sizeof(int);
	int *dev;
	cudaEvent_t start, stop;
	float ms;
	CK(cudaMalloc(&dev, bytes));
	CK(cudaEventCreate(&start));
	CK(cudaEventCreate(&stop));
	dim3 block(16, 16), grid((v.w + 15) / 16, (v.h + 15) / 16);
	CK(cudaEventRecord(start));
	mandelbrot<<<grid, block>>>(v, dev);
	CK(cudaGetLastError());
	CK(cudaEventRecord(stop));
	CK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
	CK(cudaEventElapsedTime(&ms, start, stop));
	CK(cudaEventDestroy(start));
	CK(cudaEventDestroy(stop));
	CK(cudaFree(dev));
	return ms;
}

static void print_ascii(const struct view v, const int *iters)
{
	static const char shades[] = " .:-=+*%#@";
	for (int y = 0; y < v.h; y++) {
		for (int x = 0; x < v.w; x++) {
			int i = iters[y * v.w + x];
			putchar(i == v.max_iter ? '@' : shades[i * 9 / v.max_iter]);
		}
		putchar('\n');
	}
}

int main()
{
	cudaDeviceProp prop;
	CK(cudaGetDeviceProperties(&prop, 0));
	printf("device: %s\n\n", prop.name);

	struct view art = frame(78, 32, 64);
	int *small = (int *)malloc(sizeof(int) * art.w * art.h);
	render(art, small);
	print_ascii(art, small);
	free(small);

	struct view big = frame(1600, 1200, 256);
	size_t n = (size_t)big.w * big.h;
	int *got = (int *)malloc(n * sizeof(int));
	float dev_ms = render(big, got);
	auto t0 = std::chrono::steady_clock::now();
	size_t differ = 0;
	for (int y = 0; y < big.h; y++)
		for (int x = 0; x < big.w; x++)
			differ += got[(size_t)y * big.w + x] != escape_time(big, x, y);
	auto t1 = std::chrono::steady_clock::now();
	double host_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
	free(got);

	printf("\n%dx%d pixels, up to %d iterations: kernel %.1f ms, "
	       "one host core %.1f ms\n", big.w, big.h, big.max_iter, dev_ms, host_ms);
	if (differ) {
		printf("FAIL: %zu of %zu pixels differ from the host's\n", differ, n);
		return 1;
	}
	printf("all %zu pixels equal the host's computation\n", n);
	return 0;
}
