/*
 * runtime_unsupported: a call anygpu does not implement fails with
 * cudaErrorNotSupported and a message that names it (once), never
 * silently and never a crash; the device stays usable.
 */
// expect-stderr: anygpu: cudaGraphicsUnregisterResource is not supported yet
#include "check.h"

int main()
{
	cudaGraphicsResource_t r = NULL;
	int *p;

	CK_EXPECT(cudaGraphicsUnregisterResource(r), cudaErrorNotSupported);
	CK_EXPECT(cudaGetLastError(), cudaErrorNotSupported);
	CK_EXPECT(cudaGetLastError(), cudaSuccess);
	CK_EXPECT(cudaGraphicsUnregisterResource(r), cudaErrorNotSupported);
	CK(cudaMalloc(&p, 4));
	CK(cudaFree(p));
	return verdict("runtime_unsupported");
}
