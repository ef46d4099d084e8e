/*
 * streams_events: ordering with streams and events.  A slow kernel on one
 * stream and a consumer on another ordered only by cudaStreamWaitEvent;
 * host functions (cudaLaunchHostFunc) that run in stream order between
 * kernels and see their results; cudaEventElapsedTime > 0 around real work;
 * queries that report idle after synchronisation; an event without timing
 * refused by cudaEventElapsedTime.
 */
#include "check.h"

#define N (1 << 16)

/* Slow on purpose: many dependent steps per element. */
__global__ void produce(float *a, int n, int steps)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = i;
	for (int s = 0; s < steps; s++)
		v = v * 0.5f + 1.0f;
	a[i] = v + i;
}

__global__ void consume(const float *a, float *b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		b[i] = a[i] * 2;
}

__global__ void add_one(int *x)
{
	*x += 1;
}

struct log {
	int seen[8];
	int count;
	const int *value;
};

/* Reads the pinned copy the stream made just before it. */
static void CUDART_CB record(void *p)
{
	struct log *l = (struct log *)p;
	l->seen[l->count++] = *l->value;
}

static float expected_a(int i, int steps)
{
	float v = i;
	for (int s = 0; s < steps; s++)
		v = v * 0.5f + 1.0f;
	return v + i;
}

static void test_wait_event(void)
{
	const int steps = 2000;
	cudaStream_t s1, s2;
	cudaEvent_t done;
	float *a, *b, *hb = (float *)malloc(N * sizeof(float)), *want = (float *)malloc(N * sizeof(float));
	CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
	CK(cudaMalloc(&a, N * sizeof(float)));
	CK(cudaMalloc(&b, N * sizeof(float)));
	CK(cudaMemsetAsync(a, 0, N * sizeof(float), s1));
	produce<<<N / 256, 256, 0, s1>>>(a, N, steps);
	CK(cudaGetLastError());
	CK(cudaEventRecord(done, s1));
	CK(cudaStreamWaitEvent(s2, done, 0));
	consume<<<N / 256, 256, 0, s2>>>(a, b, N);
	CK(cudaGetLastError());
	CK(cudaMemcpyAsync(hb, b, N * sizeof(float), cudaMemcpyDeviceToHost, s2));
	CK(cudaStreamSynchronize(s2));
	for (int i = 0; i < N; i++)
		want[i] = expected_a(i, steps) * 2;
	check_array("consumer after cudaStreamWaitEvent", hb, want, N);
	CK_EXPECT(cudaEventQuery(done), cudaSuccess);
	CK(cudaStreamSynchronize(s1));
	CK_EXPECT(cudaStreamQuery(s1), cudaSuccess);
	CK_EXPECT(cudaStreamQuery(s2), cudaSuccess);
	CK(cudaEventDestroy(done));
	CK(cudaStreamDestroy(s1));
	CK(cudaStreamDestroy(s2));
	CK(cudaFree(a));
	CK(cudaFree(b));
	free(hb), free(want);
}

static void test_host_funcs(void)
{
	cudaStream_t s;
	struct log log = { { 0 }, 0, NULL };
	int *dev, *pinned, start = 10;
	CK(cudaStreamCreate(&s));
	CK(cudaMalloc(&dev, sizeof(int)));
	CK(cudaMallocHost(&pinned, sizeof(int)));
	CK(cudaMemcpy(dev, &start, sizeof(int), cudaMemcpyHostToDevice));
	log.value = pinned;
	for (int k = 0; k < 3; k++) {
		add_one<<<1, 1, 0, s>>>(dev);
		CK(cudaGetLastError());
		CK(cudaMemcpyAsync(pinned, dev, sizeof(int), cudaMemcpyDeviceToHost, s));
		CK(cudaLaunchHostFunc(s, record, &log));
	}
	CK(cudaStreamSynchronize(s));
	check(log.count == 3, "host functions ran %d times, want 3", log.count);
	for (int k = 0; k < 3 && k < log.count; k++)
		check(log.seen[k] == 11 + k, "host function %d saw %d, want %d", k, log.seen[k], 11 + k);
	CK(cudaFree(dev));
	CK(cudaFreeHost(pinned));
	CK(cudaStreamDestroy(s));
}

static void test_elapsed(void)
{
	cudaEvent_t start, stop, untimed;
	float *a, ms = -1;
	CK(cudaMalloc(&a, N * sizeof(float)));
	CK(cudaEventCreate(&start));
	CK(cudaEventCreate(&stop));
	CK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
	CK(cudaEventRecord(start, 0));
	produce<<<N / 256, 256>>>(a, N, 5000);
	CK(cudaGetLastError());
	CK(cudaEventRecord(stop, 0));
	CK(cudaEventRecord(untimed, 0));
	CK(cudaEventSynchronize(stop));
	CK(cudaEventElapsedTime(&ms, start, stop));
	check(ms > 0, "elapsed time %f ms, want > 0", ms);
	CK(cudaEventSynchronize(untimed));
	CK_EXPECT(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
	CK(cudaEventDestroy(start));
	CK(cudaEventDestroy(stop));
	CK(cudaEventDestroy(untimed));
	CK(cudaFree(a));
}

int main()
{
	test_wait_event();
	test_host_funcs();
	test_elapsed();
	return verdict("streams_events");
}
