/*
 * int64: 64-bit integer arithmetic and conversions between integer and
 * floating types of every width, over operands the compiler cannot fold
 * (they come from memory), compared with the host evaluating the same
 * expressions.  Only conversions C defines are used here.
 */
#include "check.h"

#define OPS 24

__host__ __device__ void ops64(long long a, long long b, unsigned long long u, unsigned long long v,
			       int i, unsigned short h, signed char c, long long *r)
{
	r[0] = (long long)((unsigned long long)a + (unsigned long long)b);
	r[1] = (long long)((unsigned long long)a - (unsigned long long)b);
	r[2] = (long long)((unsigned long long)a * (unsigned long long)b);
	r[3] = b ? a / b : 0;
	r[4] = b ? a % b : 0;
	r[5] = (long long)(v ? u / v : 0);
	r[6] = (long long)(v ? u % v : 0);
	r[7] = (long long)(u >> (i & 63));
	r[8] = a >> (i & 63);
	r[9] = (long long)(u << (i & 63));
	r[10] = (long long)i;                 /* sign extension */
	r[11] = (long long)(unsigned)i;       /* zero extension */
	r[12] = (long long)(int)a;            /* truncation */
	r[13] = c;
	r[14] = h;
	r[15] = (long long)(signed char)i;
	r[16] = (long long)(double)a;
	r[17] = (long long)(float)(a >> 20);
	r[18] = (long long)((double)(u >> 11) * 2.0);
	r[19] = a < b ? -1 : a > b;
	r[20] = (long long)(u < v) + 2 * (long long)(u > v);
	r[21] = a ^ (long long)~u;
	r[22] = (a & 0x7fffffff) * (long long)(unsigned)i;
	r[23] = (long long)(float)(u >> 8);        /* rounds to nearest */
}

/* The full 128-bit product's upper half, which the host computes by parts. */
__global__ void run(const long long *a, const long long *b, const unsigned long long *u,
		    const unsigned long long *v, const int *iv, long long *r,
		    unsigned long long *hi, int n)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= n)
		return;
	ops64(a[k], b[k], u[k], v[k], iv[k], (unsigned short)iv[k], (signed char)(iv[k] >> 3),
	      r + k * OPS);
	hi[k] = __umul64hi(u[k], v[k]);
}

static unsigned long long host_umulhi(unsigned long long x, unsigned long long y)
{
	return (unsigned long long)(((unsigned __int128)x * y) >> 64);
}

int main()
{
	const int n = 512;
	long long a[n], b[n];
	unsigned long long u[n], v[n], hi[n], want_hi[n];
	int iv[n];
	static long long r[n * OPS], want[n * OPS];
	unsigned long long x = 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < n; k++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		a[k] = (long long)x >> (k % 40);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[k] = k % 5 == 0 ? -(long long)(x >> (k % 50)) : (long long)(x >> 3);
		if (k % 17 == 0)
			b[k] = 0;
		u[k] = x * 3;
		v[k] = k % 13 == 0 ? 0 : x >> (k % 60);
		iv[k] = (int)(x >> 32);
		if (k == 1)
			a[k] = LLONG_MIN, b[k] = 1;
		if (k == 2)
			u[k] = ~0ull, v[k] = ~0ull;
		ops64(a[k], b[k], u[k], v[k], iv[k], (unsigned short)iv[k], (signed char)(iv[k] >> 3),
		      want + k * OPS);
		want_hi[k] = host_umulhi(u[k], v[k]);
	}
	long long *da, *db, *dr;
	unsigned long long *du, *dv, *dhi;
	int *di;
	CK(cudaMalloc(&da, sizeof(a)));
	CK(cudaMalloc(&db, sizeof(b)));
	CK(cudaMalloc(&du, sizeof(u)));
	CK(cudaMalloc(&dv, sizeof(v)));
	CK(cudaMalloc(&di, sizeof(iv)));
	CK(cudaMalloc(&dr, sizeof(r)));
	CK(cudaMalloc(&dhi, sizeof(hi)));
	CK(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(du, u, sizeof(u), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dv, v, sizeof(v), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(di, iv, sizeof(iv), cudaMemcpyHostToDevice));
	run<<<(n + 127) / 128, 128>>>(da, db, du, dv, di, dr, dhi, n);
	CK(cudaGetLastError());
	CK(cudaMemcpy(r, dr, sizeof(r), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(hi, dhi, sizeof(hi), cudaMemcpyDeviceToHost));
	for (int op = 0; op < OPS; op++) {
		long long got_op[n], want_op[n];
		for (int k = 0; k < n; k++) {
			got_op[k] = r[k * OPS + op];
			want_op[k] = want[k * OPS + op];
		}
		char what[32];
		snprintf(what, sizeof(what), "operation %d", op);
		check_array(what, got_op, want_op, n);
	}
	check_array("__umul64hi", hi, want_hi, n);
	CK(cudaFree(da));
	CK(cudaFree(db));
	CK(cudaFree(du));
	CK(cudaFree(dv));
	CK(cudaFree(di));
	CK(cudaFree(dr));
	CK(cudaFree(dhi));
	return verdict("int64");
}
