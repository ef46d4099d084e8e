/*
 * error_strings: cudaGetErrorName gives the enum's own name and
 * cudaGetErrorString NVIDIA's description, for a few codes; a code that
 * does not exist gives "unrecognized error code" from both.
 */
#include <cstring>
#include "check.h"

static void expect(cudaError_t e, const char *name, const char *text)
{
	const char *n = cudaGetErrorName(e), *s = cudaGetErrorString(e);
	check(n && strcmp(n, name) == 0, "cudaGetErrorName(%d): got \"%s\", want \"%s\"", (int)e,
	      n ? n : "(null)", name);
	check(s && strcmp(s, text) == 0, "cudaGetErrorString(%d): got \"%s\", want \"%s\"", (int)e,
	      s ? s : "(null)", text);
}

int main()
{
	expect(cudaSuccess, "cudaSuccess", "no error");
	expect(cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument");
	expect(cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory");
	expect(cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
	       "invalid configuration argument");
	expect(cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal");
	expect(cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
	       "invalid resource handle");
	expect(cudaErrorNotReady, "cudaErrorNotReady", "device not ready");
	expect(cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
	       "an illegal memory access was encountered");
	expect(cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered");
	expect(cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
	       "no kernel image is available for execution on the device");
	expect((cudaError_t)12345, "unrecognized error code", "unrecognized error code");
	return verdict("error_strings");
}
