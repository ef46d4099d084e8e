/*
 * error.c - the thread's last error and the device's sticky error.
 *
 * Every error a call returns is also the calling thread's last error, until
 * cudaGetLastError reads and clears it.  A fault while a kernel ran (illegal
 * address, trap, assert, ...) leaves a GPU context unusable: such errors
 * become the device's sticky error, which every later call on the device
 * returns and cudaGetLastError cannot clear; not even cudaDeviceReset
 * does: "to continue using CUDA, the process must be terminated and
 * relaunched" (driver_types.h), and a GPU's driver holds to that.
 */
#include "rt.h"

#include <stdarg.h>
#include <stdio.h>

static __thread cudaError_t last_error;

/* The codes driver_types.h documents as leaving the context inconsistent. */
static int is_sticky(cudaError_t e)
{
	switch (e) {
	case cudaErrorIllegalAddress:
	case cudaErrorLaunchTimeout:
	case cudaErrorHardwareStackError:
	case cudaErrorIllegalInstruction:
	case cudaErrorMisalignedAddress:
	case cudaErrorInvalidAddressSpace:
	case cudaErrorInvalidPc:
	case cudaErrorLaunchFailure:
	case cudaErrorAssert:
	case cudaErrorContained:
	case cudaErrorTensorMemoryLeak:
	case cudaErrorExternalDevice:
		return 1;
	default:
		return 0;
	}
}

cudaError_t rt_error(cudaError_t e)
{
	if (e != cudaSuccess && e != cudaErrorNotReady)
		last_error = e;
	return e;
}

cudaError_t rt_result(struct rt_device *d, cudaError_t e)
{
	if (d && is_sticky(e))
		__atomic_store_n(&d->sticky, e, __ATOMIC_RELAXED);
	return rt_error(e);
}

void rt_warn_once(int *said, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_exchange_n(said, 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	fputs("anygpu: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static cudaError_t current_sticky(void)
{
	int i = rt_current_ordinal();

	if (i < 0 || i >= rt_device_count())
		return cudaSuccess;
	return __atomic_load_n(&rt_device_at(i)->sticky, __ATOMIC_RELAXED);
}

RT_API cudaError_t cudaGetLastError(void)
{
	cudaError_t e = last_error;

	last_error = cudaSuccess;
	return e != cudaSuccess ? e : current_sticky();
}

RT_API cudaError_t cudaPeekAtLastError(void)
{
	return last_error != cudaSuccess ? last_error : current_sticky();
}

/* The entry point of every generated stub for a call anygpu lacks. */
cudaError_t rt_unsupported(const char *name, int *said);

cudaError_t rt_unsupported(const char *name, int *said)
{
	rt_warn_once(said, "%s is not supported yet", name);
	return rt_error(cudaErrorNotSupported);
}
