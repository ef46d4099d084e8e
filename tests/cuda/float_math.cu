/*
 * float_math: single and double precision math against the host's libm.
 * Operations IEEE 754 rounds exactly (+, *, /, sqrt, fma, in float and
 * double; nvcc's defaults are -prec-div=true -prec-sqrt=true) must agree to
 * the bit; the rest within the error bounds of the CUDA Programming Guide
 * (sinf, cosf, expf, logf: 2 ulp, rsqrtf: 2 ulp; checked with some slack).
 * Also: denormals are kept (no flush to zero by default), rounding
 * functions, fminf/fmaxf with NaN, and infinities.
 */
#include <cfloat>
#include "check.h"

#define N 1024

struct out {
	float add[N], mul[N], div[N], sqrt[N], fma[N];
	double dadd[N], dmul[N], ddiv[N], dsqrt[N], dfma[N];
	float sin[N], cos[N], exp[N], log[N], rsqrt[N], pow[N], tanh[N];
	float floor[N], ceil[N], trunc[N], round[N], rint[N];
	float fmin[N], fmax[N], denorm[N], copysign[N];
};

__global__ void math(const float *a, const float *b, const float *c, const double *da,
		     const double *db, struct out *o)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= N)
		return;
	float x = a[i], y = b[i], z = c[i];
	o->add[i] = __fadd_rn(x, y);
	o->mul[i] = __fmul_rn(x, y);
	o->div[i] = x / y;
	o->sqrt[i] = sqrtf(fabsf(x));
	o->fma[i] = fmaf(x, y, z);
	o->dadd[i] = __dadd_rn(da[i], db[i]);
	o->dmul[i] = __dmul_rn(da[i], db[i]);
	o->ddiv[i] = da[i] / db[i];
	o->dsqrt[i] = sqrt(fabs(da[i]));
	o->dfma[i] = fma(da[i], db[i], (double)z);
	o->sin[i] = sinf(x);
	o->cos[i] = cosf(x);
	o->exp[i] = expf(x / 16);
	o->log[i] = logf(fabsf(y) + 1e-3f);
	o->rsqrt[i] = rsqrtf(fabsf(x) + 1e-3f);
	o->pow[i] = powf(fabsf(y), 1.5f);
	o->tanh[i] = tanhf(x / 8);
	o->floor[i] = floorf(z);
	o->ceil[i] = ceilf(z);
	o->trunc[i] = truncf(z);
	o->round[i] = roundf(z);
	o->rint[i] = rintf(z);
	o->fmin[i] = fminf(i % 3 ? x : nanf(""), y);
	o->fmax[i] = fmaxf(x, i % 5 ? y : nanf(""));
	o->denorm[i] = __fmul_rn(x, 1e-40f);
	o->copysign[i] = copysignf(x, -y);
}

int main()
{
	static float a[N], b[N], c[N];
	static double da[N], db[N];
	static struct out got, want;
	for (int i = 0; i < N; i++) {
		a[i] = (i - 500) * 0.173f + 1.0f / (i + 3);
		b[i] = i % 7 == 0 ? 3.0f : (i * 0.031f - 11.7f);
		c[i] = (i - 512) * 0.25f;  /* halves and quarters: rounding ties */
		da[i] = (i - 300) * 1.0000001 / 3;
		db[i] = i % 11 == 0 ? -7.0 : i * 0.7 + 0.1;
	}
	for (int i = 0; i < N; i++) {
		float x = a[i], y = b[i], z = c[i];
		want.add[i] = x + y;
		want.mul[i] = x * y;
		want.div[i] = x / y;
		want.sqrt[i] = sqrtf(fabsf(x));
		want.fma[i] = fmaf(x, y, z);
		want.dadd[i] = da[i] + db[i];
		want.dmul[i] = da[i] * db[i];
		want.ddiv[i] = da[i] / db[i];
		want.dsqrt[i] = sqrt(fabs(da[i]));
		want.dfma[i] = fma(da[i], db[i], (double)z);
		want.sin[i] = (float)sin((double)x);
		want.cos[i] = (float)cos((double)x);
		want.exp[i] = (float)exp((double)(x / 16));
		want.log[i] = (float)log((double)(fabsf(y) + 1e-3f));
		want.rsqrt[i] = (float)(1 / sqrt((double)(fabsf(x) + 1e-3f)));
		want.pow[i] = (float)pow((double)fabsf(y), 1.5);
		want.tanh[i] = (float)tanh((double)(x / 8));
		want.floor[i] = floorf(z);
		want.ceil[i] = ceilf(z);
		want.trunc[i] = truncf(z);
		want.round[i] = roundf(z);
		want.rint[i] = rintf(z);
		want.fmin[i] = fminf(i % 3 ? x : nanf(""), y);
		want.fmax[i] = fmaxf(x, i % 5 ? y : nanf(""));
		want.denorm[i] = x * 1e-40f;
		want.copysign[i] = copysignf(x, -y);
	}
	float *d_a, *d_b, *d_c;
	double *d_da, *d_db;
	struct out *d_out;
	CK(cudaMalloc(&d_a, sizeof(a)));
	CK(cudaMalloc(&d_b, sizeof(b)));
	CK(cudaMalloc(&d_c, sizeof(c)));
	CK(cudaMalloc(&d_da, sizeof(da)));
	CK(cudaMalloc(&d_db, sizeof(db)));
	CK(cudaMalloc(&d_out, sizeof(got)));
	CK(cudaMemcpy(d_a, a, sizeof(a), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_b, b, sizeof(b), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_c, c, sizeof(c), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_da, da, sizeof(da), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(d_db, db, sizeof(db), cudaMemcpyHostToDevice));
	math<<<N / 128, 128>>>(d_a, d_b, d_c, d_da, d_db, d_out);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d_out, sizeof(got), cudaMemcpyDeviceToHost));

	check_array("add", got.add, want.add, N);
	check_array("mul", got.mul, want.mul, N);
	check_array("div", got.div, want.div, N);
	check_array("sqrtf", got.sqrt, want.sqrt, N);
	check_array("fmaf", got.fma, want.fma, N);
	check_array("double add", got.dadd, want.dadd, N);
	check_array("double mul", got.dmul, want.dmul, N);
	check_array("double div", got.ddiv, want.ddiv, N);
	check_array("sqrt", got.dsqrt, want.dsqrt, N);
	check_array("fma", got.dfma, want.dfma, N);
	/* 4 float ulp at 1.0 is 4.8e-7; close_enough() scales above 1. */
	check_array("sinf", got.sin, want.sin, N, 5e-7);
	check_array("cosf", got.cos, want.cos, N, 5e-7);
	check_array("expf", got.exp, want.exp, N, 5e-7);
	check_array("logf", got.log, want.log, N, 5e-7);
	check_array("rsqrtf", got.rsqrt, want.rsqrt, N, 5e-7);
	check_array("powf", got.pow, want.pow, N, 1e-6);
	check_array("tanhf", got.tanh, want.tanh, N, 5e-7);
	check_array("floorf", got.floor, want.floor, N);
	check_array("ceilf", got.ceil, want.ceil, N);
	check_array("truncf", got.trunc, want.trunc, N);
	check_array("roundf", got.round, want.round, N);
	check_array("rintf", got.rint, want.rint, N);
	check_array("fminf", got.fmin, want.fmin, N);
	check_array("fmaxf", got.fmax, want.fmax, N);
	check_array("denormal products", got.denorm, want.denorm, N);
	check_array("copysignf", got.copysign, want.copysign, N);
	int denormals = 0;
	for (int i = 0; i < N; i++)
		denormals += got.denorm[i] != 0 && fabsf(got.denorm[i]) < FLT_MIN;
	check(denormals > N / 2, "only %d denormal results: flushed to zero?", denormals);
	CK(cudaFree(d_a));
	CK(cudaFree(d_b));
	CK(cudaFree(d_c));
	CK(cudaFree(d_da));
	CK(cudaFree(d_db));
	CK(cudaFree(d_out));
	return verdict("float_math");
}
