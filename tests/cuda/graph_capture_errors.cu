/*
 * graph_capture_errors: the rules CUDA enforces during stream capture.
 * An illegal call returns its error and invalidates the capture, which
 * then ends with cudaErrorStreamCaptureInvalidated and no graph; the
 * capture mode decides whether potentially unsafe calls (cudaMalloc) are
 * allowed, per thread; the legacy stream may not be used while a blocking
 * stream captures.
 */
#include <thread>

#include "check.h"

__global__ void nop(int *p)
{
	if (p)
		*p = 1;
}

/* Ends the capture on s and checks how it ended. */
static void end_expect(cudaStream_t s, cudaError_t want, const char *what)
{
	cudaGraph_t g = (cudaGraph_t)1;
	cudaError_t e = cudaStreamEndCapture(s, &g);

	check(e == want, "%s: end returned %s, want %s", what, cudaGetErrorName(e),
	      cudaGetErrorName(want));
	if (want == cudaSuccess)
		CK(cudaGraphDestroy(g));
	else
		check(g == NULL, "%s: an invalidated capture returned a graph", what);
}

static cudaError_t malloc_on_other_thread()
{
	cudaError_t e;
	int *p = NULL;

	std::thread t([&] { e = cudaMalloc(&p, 16); if (e == cudaSuccess) cudaFree(p); });
	t.join();
	return e;
}

int main()
{
	cudaStream_t s, nb;
	cudaEvent_t ev;
	int *p, *q;
	enum cudaStreamCaptureMode mode;
	enum cudaStreamCaptureStatus st;

	CK(cudaStreamCreate(&s));
	CK(cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking));
	CK(cudaEventCreate(&ev));
	CK(cudaMalloc(&p, 64));

	/* The legacy stream cannot capture; a stream cannot capture twice. */
	CK_EXPECT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
		  cudaErrorStreamCaptureUnsupported);
	CK_EXPECT(cudaStreamBeginCapture(s, (cudaStreamCaptureMode)7), cudaErrorInvalidValue);
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK_EXPECT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
	nop<<<1, 1, 0, s>>>(p);
	end_expect(s, cudaSuccess, "plain capture");

	/* Global mode: cudaMalloc is potentially unsafe. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	nop<<<1, 1, 0, s>>>(p);
	CK_EXPECT(cudaMalloc(&q, 16), cudaErrorStreamCaptureUnsupported);
	CK(cudaStreamIsCapturing(s, &st));
	check(st == cudaStreamCaptureStatusInvalidated, "status after cudaMalloc: %d", st);
	CK_EXPECT(cudaMemsetAsync(p, 0, 64, s), cudaErrorStreamCaptureInvalidated);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "cudaMalloc in global mode");

	/* ... and so is it from another thread while a global capture runs,
	 * but not while the capture is thread-local. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK_EXPECT(malloc_on_other_thread(), cudaErrorStreamCaptureUnsupported);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "cudaMalloc on another thread");
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	CK_EXPECT(malloc_on_other_thread(), cudaSuccess);
	CK_EXPECT(cudaMalloc(&q, 16), cudaErrorStreamCaptureUnsupported);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "cudaMalloc in thread-local mode");

	/* Relaxed capture, or a thread in relaxed mode: allowed. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
	CK(cudaMalloc(&q, 16));
	CK(cudaFree(q));
	end_expect(s, cudaSuccess, "cudaMalloc in relaxed mode");
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	mode = cudaStreamCaptureModeRelaxed;
	CK(cudaThreadExchangeStreamCaptureMode(&mode));
	check(mode == cudaStreamCaptureModeGlobal, "thread's mode was %d", mode);
	CK(cudaMalloc(&q, 16));
	CK(cudaFree(q));
	CK(cudaThreadExchangeStreamCaptureMode(&mode));
	check(mode == cudaStreamCaptureModeRelaxed, "exchange returned %d", mode);
	end_expect(s, cudaSuccess, "cudaMalloc with the thread relaxed");

	/* Synchronising or querying a capturing stream, or the device. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
	CK_EXPECT(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "cudaStreamSynchronize");
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
	CK_EXPECT(cudaStreamQuery(s), cudaErrorStreamCaptureUnsupported);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "cudaStreamQuery");
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
	CK_EXPECT(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "cudaDeviceSynchronize");

	/* The legacy stream waits for blocking streams: not while one captures. */
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK_EXPECT(cudaMemsetAsync(p, 0, 64, 0), cudaErrorStreamCaptureImplicit);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "legacy stream during capture");
	CK(cudaStreamBeginCapture(nb, cudaStreamCaptureModeGlobal));
	CK(cudaMemsetAsync(p, 0, 64, 0));
	nop<<<1, 1, 0, nb>>>(p);
	end_expect(nb, cudaSuccess, "legacy stream beside a non-blocking capture");

	/* Waiting on work outside the capture. */
	CK(cudaEventRecord(ev, 0));
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK_EXPECT(cudaStreamWaitEvent(s, ev, 0), cudaErrorStreamCaptureIsolation);
	end_expect(s, cudaErrorStreamCaptureInvalidated, "wait on an uncaptured event");

	/* The stream works normally again. */
	nop<<<1, 1, 0, s>>>(p);
	CK(cudaStreamSynchronize(s));
	CK_EXPECT(cudaStreamEndCapture(s, NULL), cudaErrorInvalidValue);
	CK(cudaFree(p));
	CK(cudaEventDestroy(ev));
	CK(cudaStreamDestroy(s));
	CK(cudaStreamDestroy(nb));
	CK_EXPECT(cudaGetLastError(), cudaErrorInvalidValue);   /* the NULL graph pointer */
	return verdict("graph_capture_errors");
}
