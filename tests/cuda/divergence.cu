/*
 * divergence: lanes of one warp taking different paths.  Loops with
 * per-lane trip counts (Collatz steps), nested if/else, a switch, break and
 * continue, and after all that a shuffle that needs every lane back
 * together; compared with the same code run on the host.
 */
#include "check.h"

__host__ __device__ int collatz_steps(unsigned long long n)
{
	int steps = 0;
	while (n != 1) {
		n = n & 1 ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

__host__ __device__ int branchy(int i)
{
	int acc = 0;
	for (int k = 0; k < i % 23; k++) {
		if (k % 5 == 4)
			continue;
		if (acc > 1000)
			break;
		switch ((i + k) % 4) {
		case 0:
			acc += k;
			break;
		case 1:
			acc -= k / 2;
			if (i & 8)
				acc *= 2;
			break;
		case 2:
			acc ^= i;
			break;
		default:
			if (k & 1) {
				if (i % 7 == 0)
					acc += 100;
				else
					acc -= 3;
			}
		}
	}
	return acc;
}

__global__ void diverge(int *steps, int *branches, int *neighbour, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int s = 0, b = 0;
	if (i < n) {
		s = collatz_steps(i + 1);
		b = branchy(i);
	}
	/* Every lane must have reconverged for this full-warp shuffle. */
	int other = __shfl_xor_sync(0xffffffffu, s + b, 1);
	if (i < n) {
		steps[i] = s;
		branches[i] = b;
		neighbour[i] = other;
	}
}

int main()
{
	const int n = 3000;
	int *got_s = (int *)malloc(n * 4), *got_b = (int *)malloc(n * 4), *got_o = (int *)malloc(n * 4);
	int *want_s = (int *)malloc(n * 4), *want_b = (int *)malloc(n * 4), *want_o = (int *)malloc(n * 4);
	for (int i = 0; i < n; i++) {
		want_s[i] = collatz_steps(i + 1);
		want_b[i] = branchy(i);
	}
	for (int i = 0; i < n; i++)
		want_o[i] = want_s[i ^ 1] + want_b[i ^ 1];
	int *ds, *db, *dn;
	CK(cudaMalloc(&ds, n * 4));
	CK(cudaMalloc(&db, n * 4));
	CK(cudaMalloc(&dn, n * 4));
	diverge<<<(n + 95) / 96, 96>>>(ds, db, dn, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got_s, ds, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(got_b, db, n * 4, cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(got_o, dn, n * 4, cudaMemcpyDeviceToHost));
	check_array("collatz steps", got_s, want_s, n);
	check_array("branches", got_b, want_b, n);
	check_array("shuffle after reconvergence", got_o, want_o, n);
	CK(cudaFree(ds));
	CK(cudaFree(db));
	CK(cudaFree(dn));
	free(got_s), free(got_b), free(got_o), free(want_s), free(want_b), free(want_o);
	return verdict("divergence");
}
