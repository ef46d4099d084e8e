/*
 * half_precision: the __half type of cuda_fp16.h.  Conversions float ->
 * half (round to nearest even, overflow to infinity, subnormal halves) and
 * back, half arithmetic (__hadd, __hmul, __hfma, comparisons) and __half2
 * pairs, checked bit for bit against a host model of IEEE binary16.
 */
#include <cstring>
#include <cuda_fp16.h>
#include "check.h"

#define N 512

struct out {
	unsigned short from_float[N];
	float to_float[N];
	unsigned short add[N], mul[N], fma[N];
	int less[N];
	float pair_sum[N];
};

__global__ void halves(const float *f, const unsigned short *bits, struct out *o)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	__half h = __float2half_rn(f[i]);
	o->from_float[i] = __half_as_ushort(h);
	__half b = __ushort_as_half(bits[i]);
	o->to_float[i] = __half2float(b);
	__half c = __float2half_rn(0.75f);
	o->add[i] = __half_as_ushort(__hadd(h, c));
	o->mul[i] = __half_as_ushort(__hmul(h, c));
	o->fma[i] = __half_as_ushort(__hfma(h, c, b));
	o->less[i] = __hlt(h, b);
	__half2 p = __halves2half2(h, c);
	__half2 q = __hadd2(p, p);
	o->pair_sum[i] = __low2float(q) + __high2float(q);
}

/*
 * A real number -> binary16, rounded to nearest even: the model the device
 * must match.  The value is scaled to an integer count r of its quantum
 * 2^q (2^-24 below 2^-13, where halves are subnormal or in the lowest
 * binade), r is rounded, and the bits are (q + 25) << 10 plus r - 1024
 * (a carry out of the mantissa lands in the exponent, as it should).
 */
static unsigned short to_half(double d)
{
	unsigned short sign = std::signbit(d) ? 0x8000 : 0;
	d = fabs(d);
	if (d == 0)
		return sign;
	if (d >= 65520.0)  /* halfway between 65504 and 65536 and above */
		return sign | 0x7c00;
	int e;
	frexp(d, &e);
	int q = e - 11 < -24 ? -24 : e - 11;
	int r = (int)nearbyint(ldexp(d, -q));
	return sign | (unsigned short)(((q + 25) << 10) + r - 1024);
}

static float from_half(unsigned short h)
{
	unsigned sign = (h & 0x8000u) << 16, e = h >> 10 & 0x1f, m = h & 0x3ff, x;
	if (e == 0x1f)
		x = sign | 0x7f800000 | m << 13;
	else if (e)
		x = sign | (e - 15 + 127) << 23 | m << 13;
	else if (!m)
		x = sign;
	else {
		int k = 0;
		while (!(m & 0x400)) {
			m <<= 1;
			k++;
		}
		x = sign | (unsigned)(127 - 15 + 1 - k) << 23 | (m & 0x3ff) << 13;
	}
	float f;
	memcpy(&f, &x, 4);
	return f;
}

int main()
{
	static float f[N];
	static unsigned short bits[N];
	static struct out got, want;
	for (int i = 0; i < N; i++) {
		f[i] = (i - 256) * 3.14159f * (i % 3 ? 1 : 1e-3f) * (i % 7 ? 1 : 300);
		bits[i] = (unsigned short)(i * 131 + 7);
		if ((bits[i] & 0x7c00) == 0x7c00)
			bits[i] &= 0xbfff;  /* no NaN or infinity operands */
	}
	f[0] = 65520.0f;         /* rounds to infinity */
	f[1] = 65519.0f;         /* rounds to 65504 */
	f[2] = 1e-7f;            /* a subnormal half */
	f[3] = 2.98e-8f;         /* below half the smallest subnormal: zero */
	f[4] = 1.0f + 1.0f / 2048;  /* a tie: to even */
	for (int i = 0; i < N; i++) {
		unsigned short h = to_half(f[i]);
		float hf = from_half(h), bf = from_half(bits[i]);
		want.from_float[i] = h;
		want.to_float[i] = bf;
		want.add[i] = to_half(hf + 0.75f);
		want.mul[i] = to_half(hf * 0.75f);
		want.fma[i] = to_half((double)hf * 0.75 + bf);  /* exact, rounded once */
		want.less[i] = hf < bf;
		want.pair_sum[i] = from_half(to_half(hf + hf)) + 1.5f;
	}
	float *df;
	unsigned short *dbits;
	struct out *dout;
	CK(cudaMalloc(&df, sizeof(f)));
	CK(cudaMalloc(&dbits, sizeof(bits)));
	CK(cudaMalloc(&dout, sizeof(got)));
	CK(cudaMemcpy(df, f, sizeof(f), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dbits, bits, sizeof(bits), cudaMemcpyHostToDevice));
	halves<<<N / 128, 128>>>(df, dbits, dout);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, dout, sizeof(got), cudaMemcpyDeviceToHost));
	check_array("__float2half_rn", got.from_float, want.from_float, N);
	check_array("__half2float", got.to_float, want.to_float, N);
	check_array("__hadd", got.add, want.add, N);
	check_array("__hmul", got.mul, want.mul, N);
	check_array("__hfma", got.fma, want.fma, N);
	check_array("__hlt", got.less, want.less, N);
	check_array("__hadd2", got.pair_sum, want.pair_sum, N);
	CK(cudaFree(df));
	CK(cudaFree(dbits));
	CK(cudaFree(dout));
	return verdict("half_precision");
}
