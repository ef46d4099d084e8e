/*
 * stream_query: the non-blocking queries.  While a host function holds a
 * stream back, cudaStreamQuery and cudaEventQuery (for an event recorded
 * after it) say cudaErrorNotReady and the work queued behind it has not
 * run; once released, they report cudaSuccess.
 */
#include <atomic>
#include <chrono>
#include "check.h"

static std::atomic<int> release;
static std::atomic<int> ran_after;

/* Holds the stream until released; gives up after 10 s so that a runtime
 * that wrongly waits for this stream fails the test instead of hanging. */
static void CUDART_CB hold(void *)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (!release.load() && std::chrono::steady_clock::now() < end)
		;
	if (!release.load())
		fprintf(stderr, "stream_query: the host function was never released\n");
}

static void CUDART_CB after(void *)
{
	ran_after.store(1);
}

int main()
{
	cudaStream_t s;
	cudaEvent_t e;
	int *d, v = 0;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaEventCreate(&e));
	CK(cudaMalloc(&d, sizeof(int)));
	CK(cudaMemset(d, 0, sizeof(int)));
	CK(cudaLaunchHostFunc(s, hold, NULL));
	CK(cudaMemsetAsync(d, 0x11, sizeof(int), s));
	CK(cudaEventRecord(e, s));
	CK(cudaLaunchHostFunc(s, after, NULL));

	CK_EXPECT(cudaStreamQuery(s), cudaErrorNotReady);
	CK_EXPECT(cudaEventQuery(e), cudaErrorNotReady);
	check(!ran_after.load(), "work queued behind a held host function ran");
	CK(cudaMemcpy(&v, d, sizeof(int), cudaMemcpyDeviceToHost));
	check(v == 0, "a memset queued behind a held host function ran: %#x", v);
	cudaGetLastError();  /* as PyTorch does after a query that says not ready */

	release.store(1);
	CK(cudaStreamSynchronize(s));
	CK_EXPECT(cudaStreamQuery(s), cudaSuccess);
	CK_EXPECT(cudaEventQuery(e), cudaSuccess);
	check(ran_after.load(), "the last host function did not run");
	CK(cudaMemcpy(&v, d, sizeof(int), cudaMemcpyDeviceToHost));
	check(v == 0x11111111, "memset after release: %#x", v);
	CK(cudaFree(d));
	CK(cudaEventDestroy(e));
	CK(cudaStreamDestroy(s));
	return verdict("stream_query");
}
