/*
 * mutex: a lock between blocks, built from atomicCAS and atomicExch with
 * __threadfence: one thread per block takes the lock, updates plain
 * (non-atomic) shared state, and releases it.  With blocks running in
 * parallel, a lock that does not exclude, or stores that are not visible
 * to the next holder, lose updates.
 */
#include "check.h"

#define BLOCKS 64
#define ROUNDS 50

struct state {
	int lock;
	int counter;
	int last;
	int order_errors;
};

__global__ void contend(struct state *s)
{
	if (threadIdx.x != 0)
		return;
	volatile struct state *v = s;
	for (int r = 0; r < ROUNDS; r++) {
		while (atomicCAS(&s->lock, 0, 1) != 0)
			;
		__threadfence();
		int c = v->counter;
		if (v->last != c * 7)
			v->order_errors++;
		v->counter = c + 1;
		v->last = (c + 1) * 7;
		__threadfence();
		atomicExch(&s->lock, 0);
	}
}

int main()
{
	struct state init = { 0, 0, 0, 0 }, got;
	struct state *d;
	CK(cudaMalloc(&d, sizeof(init)));
	CK(cudaMemcpy(d, &init, sizeof(init), cudaMemcpyHostToDevice));
	contend<<<BLOCKS, 64>>>(d);
	CK(cudaGetLastError());
	CK(cudaMemcpy(&got, d, sizeof(got), cudaMemcpyDeviceToHost));
	check(got.counter == BLOCKS * ROUNDS, "counter %d, want %d: updates were lost",
	      got.counter, BLOCKS * ROUNDS);
	check(got.order_errors == 0, "%d holders saw a stale value", got.order_errors);
	check(got.lock == 0, "lock left held: %d", got.lock);
	CK(cudaFree(d));
	return verdict("mutex");
}
