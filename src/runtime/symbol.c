/*
 * symbol.c - __device__ and __constant__ variables from the host:
 * cudaMemcpyToSymbol/FromSymbol (and their async and per-thread forms),
 * cudaGetSymbolAddress and cudaGetSymbolSize.
 *
 * The program names a variable by its host shadow's address; register.c
 * finds its address on the current device (loading the module if needed),
 * and the copy itself is an ordinary copy to or from that address.
 */
#include "rt.h"

static cudaError_t symbol_range(const void *symbol, size_t offset, size_t count, void **addr,
				uint64_t *size)
{
	struct rt_var *v = rt_var_find(symbol);
	struct rt_device *d;
	ag_dptr a = 0;
	cudaError_t e;

	if (!v)
		return rt_error(cudaErrorInvalidSymbol);
	e = rt_current(&d);
	if (e == cudaSuccess)
		e = rt_var_addr(v, d, &a, size);
	if (e != cudaSuccess)
		return rt_result(d, e);
	if (offset > *size || count > *size - offset)
		return rt_error(cudaErrorInvalidValue);
	*addr = (char *)(uintptr_t)a + offset;
	return cudaSuccess;
}

/* A copy to (to != 0) or from the variable symbol names: the other side
 * is host memory or, for cudaMemcpyDeviceToDevice, device memory. */
static cudaError_t symbol_copy(int to, const void *symbol, void *other, size_t count,
			       size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream,
			       int async, int per_thread_default)
{
	enum cudaMemcpyKind host_kind = to ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
	uint64_t size;
	void *addr = NULL;   /* set when symbol_range succeeds; GCC -O3 cannot tell */
	cudaError_t e;

	if (kind != host_kind && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
		return rt_error(cudaErrorInvalidMemcpyDirection);
	e = symbol_range(symbol, offset, count, &addr, &size);
	if (e != cudaSuccess)
		return e;
	return to ? rt_copy(addr, other, count, kind, stream, async, per_thread_default)
		  : rt_copy(other, addr, count, kind, stream, async, per_thread_default);
}

RT_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
				      size_t offset, enum cudaMemcpyKind kind)
{
	return symbol_copy(1, symbol, (void *)src, count, offset, kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpyToSymbol_ptds(const void *symbol, const void *src, size_t count,
					   size_t offset, enum cudaMemcpyKind kind)
{
	return symbol_copy(1, symbol, (void *)src, count, offset, kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count,
					   size_t offset, enum cudaMemcpyKind kind,
					   cudaStream_t stream)
{
	return symbol_copy(1, symbol, (void *)src, count, offset, kind, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void *symbol, const void *src,
						size_t count, size_t offset,
						enum cudaMemcpyKind kind, cudaStream_t stream)
{
	return symbol_copy(1, symbol, (void *)src, count, offset, kind, stream, 1, 1);
}

RT_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
					size_t offset, enum cudaMemcpyKind kind)
{
	return symbol_copy(0, symbol, dst, count, offset, kind, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpyFromSymbol_ptds(void *dst, const void *symbol, size_t count,
					     size_t offset, enum cudaMemcpyKind kind)
{
	return symbol_copy(0, symbol, dst, count, offset, kind, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
					     size_t offset, enum cudaMemcpyKind kind,
					     cudaStream_t stream)
{
	return symbol_copy(0, symbol, dst, count, offset, kind, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void *dst, const void *symbol, size_t count,
						  size_t offset, enum cudaMemcpyKind kind,
						  cudaStream_t stream)
{
	return symbol_copy(0, symbol, dst, count, offset, kind, stream, 1, 1);
}

RT_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol)
{
	uint64_t size;

	if (!devPtr)
		return rt_error(cudaErrorInvalidValue);
	return symbol_range(symbol, 0, 0, devPtr, &size);
}

RT_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol)
{
	uint64_t n = 0;
	void *addr;
	cudaError_t e;

	if (!size)
		return rt_error(cudaErrorInvalidValue);
	e = symbol_range(symbol, 0, 0, &addr, &n);
	if (e == cudaSuccess)
		*size = n;
	return e;
}
