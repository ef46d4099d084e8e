/*
 * device_functions: real calls between device functions.  __noinline__
 * functions with many arguments and a struct result, recursion (factorial,
 * Fibonacci, Ackermann), a local array passed by pointer to a callee (a
 * generic pointer into local memory), a table of device function pointers
 * called indirectly, and a template instantiated twice.
 */
#include "check.h"

struct pair {
	long long sum;
	double mean;
};

__device__ __noinline__ struct pair stats(int a, char b, short c, long long d, float e,
					  double f, unsigned g, int h)
{
	struct pair p;
	p.sum = a + b + c + d + (long long)e + (long long)f + g + h;
	p.mean = p.sum / 8.0;
	return p;
}

__device__ __noinline__ unsigned long long factorial(unsigned n)
{
	return n <= 1 ? 1 : n * factorial(n - 1);
}

__device__ __noinline__ int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__device__ __noinline__ int ackermann(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ void fill_squares(int *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = i * i;
}

__device__ __noinline__ int sum_array(const int *a, int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += a[i];
	return s;
}

__device__ int op_add(int a, int b) { return a + b; }
__device__ int op_sub(int a, int b) { return a - b; }
__device__ int op_mul(int a, int b) { return a * b; }

typedef int (*binop)(int, int);
__device__ binop ops[3] = { op_add, op_sub, op_mul };

template <typename T>
__device__ __noinline__ T twice(T x)
{
	return x + x;
}

struct results {
	long long sum[32];
	double mean[32];
	unsigned long long fact[32];
	int fib[32], ack[32], local[32], indirect[32];
	float tf[32];
	long long tl[32];
};

__global__ void calls(struct results *r)
{
	int t = threadIdx.x;
	struct pair p = stats(t, (char)-t, (short)(t * 100), (long long)t << 33, t * 1.5f,
			      -t * 2.25, 7u * t, -1);
	r->sum[t] = p.sum;
	r->mean[t] = p.mean;
	r->fact[t] = factorial(t % 21);
	r->fib[t] = fib(t % 20);
	r->ack[t] = ackermann(t % 3, t % 5);
	int local[40];
	fill_squares(local, 10 + t);
	r->local[t] = sum_array(local, 10 + t);
	r->indirect[t] = ops[t % 3](t, 5);
	r->tf[t] = twice(t * 0.5f);
	r->tl[t] = twice((long long)t << 40);
}

static unsigned long long host_factorial(unsigned n) { return n <= 1 ? 1 : n * host_factorial(n - 1); }
static int host_fib(int n) { return n < 2 ? n : host_fib(n - 1) + host_fib(n - 2); }
static int host_ack(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return host_ack(m - 1, 1);
	return host_ack(m - 1, host_ack(m, n - 1));
}

int main()
{
	struct results got, want;
	for (int t = 0; t < 32; t++) {
		want.sum[t] = t + (char)-t + (short)(t * 100) + ((long long)t << 33) +
			      (long long)(t * 1.5f) + (long long)(-t * 2.25) + 7u * t + -1;
		want.mean[t] = want.sum[t] / 8.0;
		want.fact[t] = host_factorial(t % 21);
		want.fib[t] = host_fib(t % 20);
		want.ack[t] = host_ack(t % 3, t % 5);
		want.local[t] = 0;
		for (int i = 0; i < 10 + t; i++)
			want.local[t] += i * i;
		want.indirect[t] = t % 3 == 0 ? t + 5 : t % 3 == 1 ? t - 5 : t * 5;
		want.tf[t] = t * 0.5f * 2;
		want.tl[t] = ((long long)t << 40) * 2;
	}
	struct results *d;
	CK(cudaMalloc(&d, sizeof(*d)));
	calls<<<1, 32>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));
	check_array("stats sum", got.sum, want.sum, 32);
	check_array("stats mean", got.mean, want.mean, 32);
	check_array("factorial", got.fact, want.fact, 32);
	check_array("fib", got.fib, want.fib, 32);
	check_array("ackermann", got.ack, want.ack, 32);
	check_array("local array", got.local, want.local, 32);
	check_array("function pointers", got.indirect, want.indirect, 32);
	check_array("template float", got.tf, want.tf, 32);
	check_array("template long long", got.tl, want.tl, 32);
	CK(cudaFree(d));
	return verdict("device_functions");
}
