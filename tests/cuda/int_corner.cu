/*
 * int_corner: integer corners where PTX defines what C leaves undefined.
 * Shift counts of 32 or more (PTX clamps them: a left shift gives 0, an
 * arithmetic right shift the sign), signed division and remainder rounding
 * toward zero, unsigned division, division by zero and INT_MIN / -1 (which
 * must not trap: their values are unspecified), and the bit intrinsics
 * __popc, __clz, __ffs, __brev, __byte_perm, __funnelshift_l/r, __mulhi,
 * __umulhi, __sad, __hadd, __rhadd.
 */
#include <climits>
#include "check.h"

#define NSHIFT 48

struct out {
	unsigned shl[NSHIFT], shr[NSHIFT];
	int sar[NSHIFT];
	int q[64], r[64];
	unsigned uq[64], ur[64];
	int popc[64], clz[64], ffs[64];
	unsigned brev[64], perm[64], fsl[64], fsr[64], umulhi[64], sad[64];
	int mulhi[64], hadd[64], rhadd[64];
	int done;
};

__global__ void shifts(unsigned x, int sx, struct out *o)
{
	int n = threadIdx.x;
	if (n < NSHIFT) {
		o->shl[n] = x << n;
		o->shr[n] = x >> n;
		o->sar[n] = sx >> n;
	}
}

__global__ void divide(const int *a, const int *b, const unsigned *ua, const unsigned *ub,
		       struct out *o)
{
	int i = threadIdx.x;
	o->q[i] = a[i] / b[i];
	o->r[i] = a[i] % b[i];
	o->uq[i] = ua[i] / ub[i];
	o->ur[i] = ua[i] % ub[i];
}

/* Values unspecified by PTX: only that the kernel completes is checked. */
__global__ void divide_undefined(const int *a, const int *zero, struct out *o)
{
	volatile int sink;
	sink = a[0] / zero[0];
	sink = a[1] % zero[0];
	sink = INT_MIN / zero[1];
	sink = INT_MIN % zero[1];
	sink = (unsigned)a[2] / (unsigned)zero[0];
	(void)sink;
	o->done = 1;
}

__device__ __host__ unsigned selector(int i)
{
	return (i * 0x1234567u) & 0x7777;   /* bit 3 of each nibble clear */
}

__global__ void bits(const unsigned *ua, const unsigned *ub, const unsigned *uc, const int *a,
		     const int *b, struct out *o)
{
	int i = threadIdx.x;
	unsigned u = ua[i], v = ub[i];
	o->popc[i] = __popc(u);
	o->clz[i] = __clz(uc[i]);
	o->ffs[i] = __ffs(uc[i]);
	o->brev[i] = __brev(u);
	o->perm[i] = __byte_perm(u, v, selector(i));
	o->fsl[i] = __funnelshift_l(u, v, i);
	o->fsr[i] = __funnelshift_r(u, v, i);
	o->umulhi[i] = __umulhi(u, v);
	o->mulhi[i] = __mulhi(a[i], b[i]);
	o->sad[i] = __sad(a[i], b[i], 7u);
	o->hadd[i] = __hadd(a[i], b[i]);
	o->rhadd[i] = __rhadd(a[i], b[i]);
}

static int popc(unsigned u) { int n = 0; for (; u; u &= u - 1) n++; return n; }
static int clz(unsigned u) { int n = 0; for (unsigned m = 1u << 31; m && !(u & m); m >>= 1) n++; return n; }
static int ffs_(unsigned u) { for (int k = 0; k < 32; k++) if (u >> k & 1) return k + 1; return 0; }

static unsigned brev(unsigned u)
{
	unsigned r = 0;
	for (int k = 0; k < 32; k++)
		r |= (u >> k & 1) << (31 - k);
	return r;
}

/* __byte_perm: each selector nibble picks one of the 8 bytes of {v,u}. */
static unsigned byte_perm(unsigned u, unsigned v, unsigned s)
{
	unsigned long long bytes = (unsigned long long)v << 32 | u;
	unsigned r = 0;
	for (int k = 0; k < 4; k++)
		r |= (unsigned)(bytes >> (8 * ((s >> (4 * k)) & 7)) & 0xff) << (8 * k);
	return r;
}

/* Funnel shifts: the 64-bit {hi=v, lo=u} shifted by n & 31. */
static unsigned funnel_l(unsigned u, unsigned v, int n)
{
	return (unsigned)((((unsigned long long)v << 32 | u) << (n & 31)) >> 32);
}

static unsigned funnel_r(unsigned u, unsigned v, int n)
{
	return (unsigned)(((unsigned long long)v << 32 | u) >> (n & 31));
}

int main()
{
	static struct out got, want;
	struct out *d;
	CK(cudaMalloc(&d, sizeof(got)));
	CK(cudaMemset(d, 0, sizeof(got)));

	unsigned x = 0xdeadbeef;
	int sx = -123456789;
	shifts<<<1, NSHIFT>>>(x, sx, d);
	CK(cudaGetLastError());
	for (int n = 0; n < NSHIFT; n++) {
		want.shl[n] = n < 32 ? x << n : 0;
		want.shr[n] = n < 32 ? x >> n : 0;
		want.sar[n] = n < 32 ? sx >> n : -1;
	}

	int a[64], b[64], zero[2] = { 0, -1 };
	unsigned ua[64], ub[64], uc[64];
	for (int i = 0; i < 64; i++) {
		a[i] = (i % 2 ? -1 : 1) * (i * 7919 + 13) * (i % 3 + 1);
		b[i] = (i % 4 < 2 ? -1 : 1) * (i % 9 + 1);
		if (i == 5)
			a[i] = INT_MIN, b[i] = 3;
		if (i == 6)
			a[i] = INT_MAX, b[i] = -2;
		ua[i] = 0xffffffffu - i * 123456789u;
		ub[i] = i % 5 ? i * 3 + 1 : 0x80000001u;
		want.q[i] = a[i] / b[i];
		want.r[i] = a[i] % b[i];
		want.uq[i] = ua[i] / ub[i];
		want.ur[i] = ua[i] % ub[i];
		uc[i] = i == 0 ? 0 : ua[i] >> (i % 32);
		want.popc[i] = popc(ua[i]);
		want.clz[i] = clz(uc[i]);
		want.ffs[i] = ffs_(uc[i]);
		want.brev[i] = brev(ua[i]);
		want.perm[i] = byte_perm(ua[i], ub[i], selector(i));
		want.fsl[i] = funnel_l(ua[i], ub[i], i);
		want.fsr[i] = funnel_r(ua[i], ub[i], i);
		want.umulhi[i] = (unsigned)((unsigned long long)ua[i] * ub[i] >> 32);
		want.mulhi[i] = (int)((long long)a[i] * b[i] >> 32);
		want.sad[i] = (unsigned)(a[i] > b[i] ? (long long)a[i] - b[i] : (long long)b[i] - a[i]) + 7u;
		want.hadd[i] = (int)(((long long)a[i] + b[i]) >> 1);
		want.rhadd[i] = (int)(((long long)a[i] + b[i] + 1) >> 1);
	}
	int *da, *db, *dz;
	unsigned *dua, *dub, *duc;
	CK(cudaMalloc(&da, sizeof(a)));
	CK(cudaMalloc(&db, sizeof(b)));
	CK(cudaMalloc(&dz, sizeof(zero)));
	CK(cudaMalloc(&dua, sizeof(ua)));
	CK(cudaMalloc(&dub, sizeof(ub)));
	CK(cudaMalloc(&duc, sizeof(uc)));
	CK(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dz, zero, sizeof(zero), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dua, ua, sizeof(ua), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dub, ub, sizeof(ub), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(duc, uc, sizeof(uc), cudaMemcpyHostToDevice));
	divide<<<1, 64>>>(da, db, dua, dub, d);
	CK(cudaGetLastError());
	divide_undefined<<<1, 1>>>(da, dz, d);
	CK(cudaGetLastError());
	bits<<<1, 64>>>(dua, dub, duc, da, db, d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));

	check_array("shl", got.shl, want.shl, NSHIFT);
	check_array("shr", got.shr, want.shr, NSHIFT);
	check_array("sar", got.sar, want.sar, NSHIFT);
	check_array("signed quotient", got.q, want.q, 64);
	check_array("signed remainder", got.r, want.r, 64);
	check_array("unsigned quotient", got.uq, want.uq, 64);
	check_array("unsigned remainder", got.ur, want.ur, 64);
	check(got.done == 1, "a kernel dividing by zero did not complete");
	check_array("__popc", got.popc, want.popc, 64);
	check_array("__clz", got.clz, want.clz, 64);
	check_array("__ffs", got.ffs, want.ffs, 64);
	check_array("__brev", got.brev, want.brev, 64);
	check_array("__byte_perm", got.perm, want.perm, 64);
	check_array("__funnelshift_l", got.fsl, want.fsl, 64);
	check_array("__funnelshift_r", got.fsr, want.fsr, 64);
	check_array("__umulhi", got.umulhi, want.umulhi, 64);
	check_array("__mulhi", got.mulhi, want.mulhi, 64);
	check_array("__sad", got.sad, want.sad, 64);
	check_array("__hadd", got.hadd, want.hadd, 64);
	check_array("__rhadd", got.rhadd, want.rhadd, 64);
	CK(cudaFree(d));
	CK(cudaFree(da));
	CK(cudaFree(db));
	CK(cudaFree(dz));
	CK(cudaFree(dua));
	CK(cudaFree(dub));
	CK(cudaFree(duc));
	return verdict("int_corner");
}
