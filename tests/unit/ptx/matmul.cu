#define TILE 16
__global__ void matmul(const float *a, const float *b, float *c, int n)
{
	__shared__ float ta[TILE][TILE], tb[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0;
	for (int t = 0; t < n / TILE; t++) {
		ta[threadIdx.y][threadIdx.x] = a[row * n + t * TILE + threadIdx.x];
		tb[threadIdx.y][threadIdx.x] = b[(t * TILE + threadIdx.y) * n + col];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += ta[threadIdx.y][k] * tb[k][threadIdx.x];
		__syncthreads();
	}
	c[row * n + col] = acc;
}
__global__ void __launch_bounds__(256, 2) saxpy(int n, float a, const float *__restrict__ x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}
