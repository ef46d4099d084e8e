/*
 * atomics: every atomic operation under contention from many blocks, in
 * global and shared memory, with results the host can predict whatever the
 * order: add (int, unsigned long long, float on exact values, double),
 * sub, min, max, and, or, xor, inc and dec with wrap-around, exch, CAS
 * loops (a double multiply built on atomicCAS), and the values atomics
 * return (every ticket from atomicAdd is handed out exactly once).
 */
#include "check.h"

#define BLOCKS 40
#define THREADS 128
#define T (BLOCKS * THREADS)

struct acc {
	int add, sub, min, max;
	unsigned and_, or_, xor_, inc, dec, exch_seen;
	unsigned long long add64;
	float fadd;
	double dadd, dmul;
	int shared_sum[BLOCKS];
	unsigned tickets[T];
};

__device__ double atomic_mul(double *p, double v)
{
	unsigned long long *u = (unsigned long long *)p, old = *u, assumed;
	do {
		assumed = old;
		old = atomicCAS(u, assumed, __double_as_longlong(__longlong_as_double(assumed) * v));
	} while (assumed != old);
	return __longlong_as_double(old);
}

__global__ void hammer(struct acc *a, unsigned *exch)
{
	__shared__ int block_sum;
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (threadIdx.x == 0)
		block_sum = 0;
	__syncthreads();
	atomicAdd(&a->add, t);
	atomicSub(&a->sub, t % 7);
	atomicMin(&a->min, 1000 - t);
	atomicMax(&a->max, t * 3 - 5);
	atomicAnd(&a->and_, ~(1u << (t % 32)) | (t % 64 < 32 ? 0u : ~0u));
	atomicOr(&a->or_, 1u << (t % 29));
	atomicXor(&a->xor_, (unsigned)t);
	atomicInc(&a->inc, 999u);
	atomicDec(&a->dec, 99u);
	atomicAdd(&a->add64, (unsigned long long)t << 20);
	atomicAdd(&a->fadd, 0.5f);
	atomicAdd(&a->dadd, 0.25);
	if (t % 512 == 0)
		atomic_mul(&a->dmul, 2.0);
	unsigned ticket = atomicAdd(&a->exch_seen, 1u);
	a->tickets[ticket] = t;
	atomicExch(exch, (unsigned)t);
	atomicAdd(&block_sum, threadIdx.x + 1);
	__syncthreads();
	if (threadIdx.x == 0)
		a->shared_sum[blockIdx.x] = block_sum;
}

int main()
{
	struct acc init = {}, got, want = {};
	init.min = 1 << 30;
	init.max = -(1 << 30);
	init.and_ = ~0u;
	init.dec = 50;
	init.dmul = 1.0;
	unsigned *exch, last = ~0u;
	struct acc *d;
	CK(cudaMalloc(&d, sizeof(init)));
	CK(cudaMalloc(&exch, sizeof(unsigned)));
	CK(cudaMemcpy(d, &init, sizeof(init), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(exch, &last, sizeof(last), cudaMemcpyHostToDevice));
	hammer<<<BLOCKS, THREADS>>>(d, exch);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));
	CK(cudaMemcpy(&last, exch, sizeof(last), cudaMemcpyDeviceToHost));

	want = init;
	for (int t = 0; t < T; t++) {
		want.add += t;
		want.sub -= t % 7;
		want.min = 1000 - t < want.min ? 1000 - t : want.min;
		want.max = t * 3 - 5 > want.max ? t * 3 - 5 : want.max;
		want.and_ &= ~(1u << (t % 32)) | (t % 64 < 32 ? 0u : ~0u);
		want.or_ |= 1u << (t % 29);
		want.xor_ ^= (unsigned)t;
		want.inc = want.inc >= 999u ? 0 : want.inc + 1;
		want.dec = want.dec == 0 || want.dec > 99u ? 99u : want.dec - 1;
		want.add64 += (unsigned long long)t << 20;
		if (t % 512 == 0)
			want.dmul *= 2.0;
	}
	want.fadd = 0.5f * T;
	want.dadd = 0.25 * T;
	want.exch_seen = T;
	check(got.add == want.add, "atomicAdd int: got %d, want %d", got.add, want.add);
	check(got.sub == want.sub, "atomicSub: got %d, want %d", got.sub, want.sub);
	check(got.min == want.min, "atomicMin: got %d, want %d", got.min, want.min);
	check(got.max == want.max, "atomicMax: got %d, want %d", got.max, want.max);
	check(got.and_ == want.and_, "atomicAnd: got %#x, want %#x", got.and_, want.and_);
	check(got.or_ == want.or_, "atomicOr: got %#x, want %#x", got.or_, want.or_);
	check(got.xor_ == want.xor_, "atomicXor: got %#x, want %#x", got.xor_, want.xor_);
	check(got.inc == want.inc, "atomicInc: got %u, want %u", got.inc, want.inc);
	check(got.dec == want.dec, "atomicDec: got %u, want %u", got.dec, want.dec);
	check(got.add64 == want.add64, "atomicAdd 64-bit: got %llu, want %llu", got.add64,
	      want.add64);
	check(got.fadd == want.fadd, "atomicAdd float: got %f, want %f", got.fadd, want.fadd);
	check(got.dadd == want.dadd, "atomicAdd double: got %f, want %f", got.dadd, want.dadd);
	check(got.dmul == want.dmul, "atomicCAS multiply: got %f, want %f", got.dmul, want.dmul);
	check(got.exch_seen == want.exch_seen, "tickets: got %u, want %u", got.exch_seen,
	      want.exch_seen);
	check(last < (unsigned)T, "atomicExch left %u, not a thread's value", last);
	static int seen[T];
	for (int i = 0; i < T; i++) {
		unsigned t = got.tickets[i];
		if (check(t < (unsigned)T, "ticket %d went to thread %u", i, t))
			seen[t]++;
	}
	for (int t = 0; t < T; t++)
		check(seen[t] == 1, "thread %d got %d tickets, want 1", t, seen[t]);
	int want_block[BLOCKS];
	for (int b = 0; b < BLOCKS; b++)
		want_block[b] = THREADS * (THREADS + 1) / 2;
	check_array("shared atomicAdd", got.shared_sum, want_block, BLOCKS);
	CK(cudaFree(d));
	CK(cudaFree(exch));
	return verdict("atomics");
}
