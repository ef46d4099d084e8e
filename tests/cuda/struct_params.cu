/*
 * struct_params: kernel parameters of every size and alignment, which the
 * runtime must pack as the kernel's PTX .param list lays them out (the
 * host stub passes only an array of pointers): char, short, bool, double
 * after a char, a struct with inner padding passed by value, a 16-byte
 * aligned float4, a large struct (a 256-byte array), pointers.
 */
#include "check.h"

struct mixed {
	char c;
	double d;
	short s;
	int a[3];
	long long ll;
};

struct big {
	int v[64];
};

struct out {
	int c, s, b;
	double d;
	struct mixed m;
	float f4[4];
	int big_sum, big_first, big_last;
	unsigned long long tail;
};

__global__ void params(char c, short s, bool b, double d, struct mixed m, char c2, float4 f,
		       struct big big, unsigned long long tail, struct out *o)
{
	o->c = c + c2;
	o->s = s;
	o->b = b;
	o->d = d;
	o->m = m;
	o->f4[0] = f.x, o->f4[1] = f.y, o->f4[2] = f.z, o->f4[3] = f.w;
	int sum = 0;
	for (int i = 0; i < 64; i++)
		sum += big.v[i];
	o->big_sum = sum;
	o->big_first = big.v[0];
	o->big_last = big.v[63];
	o->tail = tail;
}

int main()
{
	struct mixed m = { 'q', -2.75, -1234, { 7, -8, 9 }, -77777777777LL };
	struct big big;
	int sum = 0;
	for (int i = 0; i < 64; i++)
		sum += big.v[i] = i * i - 100;
	struct out *d, got;
	CK(cudaMalloc(&d, sizeof(got)));
	CK(cudaMemset(d, 0, sizeof(got)));
	params<<<1, 1>>>(-5, -30000, true, 1e-300, m, 'A', make_float4(1.5f, -2, 3e30f, -0.0f), big,
			 0xfedcba9876543210ull, d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));
	check(got.c == -5 + 'A', "char params: got %d, want %d", got.c, -5 + 'A');
	check(got.s == -30000, "short: got %d", got.s);
	check(got.b == 1, "bool: got %d", got.b);
	check(got.d == 1e-300, "double after bool: got %g", got.d);
	check(got.m.c == 'q' && got.m.d == -2.75 && got.m.s == -1234 && got.m.a[0] == 7 &&
	      got.m.a[1] == -8 && got.m.a[2] == 9 && got.m.ll == -77777777777LL,
	      "struct by value: got {%d, %g, %d, {%d %d %d}, %lld}", got.m.c, got.m.d, got.m.s,
	      got.m.a[0], got.m.a[1], got.m.a[2], got.m.ll);
	float f4[4] = { 1.5f, -2, 3e30f, -0.0f };
	check_array("float4", got.f4, f4, 4);
	check(got.big_sum == sum && got.big_first == -100 && got.big_last == 63 * 63 - 100,
	      "256-byte struct: sum %d first %d last %d, want %d %d %d", got.big_sum,
	      got.big_first, got.big_last, sum, -100, 63 * 63 - 100);
	check(got.tail == 0xfedcba9876543210ull, "u64 after the big struct: got %#llx", got.tail);
	CK(cudaFree(d));
	return verdict("struct_params");
}
