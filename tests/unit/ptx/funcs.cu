#include <cassert>
struct S { double x; int y; float z[3]; };
__device__ __noinline__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
__device__ int add1(int x) { return x + 1; }
__device__ int mul2(int x) { return x * 2; }
typedef int (*fn_t)(int);
__device__ fn_t table[2] = { add1, mul2 };
__device__ int gtab[5] = { 1, 2, 3, -4, 0x7fffffff };
__constant__ float cf[4] = { 1.5f, -2.0f, 3.25f, 0.0f };
__constant__ double cd[2] = { 3.141592653589793, 1e-300 };
__device__ int *gp = &gtab[2];
__device__ const char *names[2] = { "abc", "de" };
struct P { int *p; int k; };
__device__ P pp = { &gtab[1], 9 };
__device__ __noinline__ S make(S s, int k) { s.y += k; s.z[k % 3] = s.x; return s; }
__global__ void kfunc(S s, int sel, int *out, S *so)
{
	int i = threadIdx.x;
	out[i] = table[sel & 1](fact(i));
	assert(i < 1024);
	*so = make(s, i);
	int loc[16];
	for (int j = 0; j < 16; j++) loc[j] = j * i;
	out[i + 1] = loc[sel & 15] + *gp + pp.p[0] + names[sel & 1][0] + (int)cf[i & 3] + (int)cd[i & 1];
	switch (sel) {
	case 0: out[2] = 5; break;
	case 1: out[2] = 7; break;
	case 2: out[3] = 9; break;
	case 3: out[4] = 11; break;
	case 4: out[5] = 1; break;
	case 5: out[2] = 2; break;
	default: break;
	}
}
