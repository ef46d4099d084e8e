/*
 * peer.c - calls between devices and between processes: PCI bus ids,
 * peer-to-peer attributes, 3D peer copies and CUDA IPC.
 *
 * anygpu's devices never address each other's memory (cudaMemcpyPeer goes
 * through the host, memory.c), so every peer attribute reads 0.  No
 * backend shares device memory or events with another process: the IPC
 * calls check their arguments, then answer cudaErrorNotSupported, which
 * is what CUDA documents for a device without IPC support (and
 * cudaDevAttrIpcEventSupport reads 0 to match).
 */
#include "rt.h"

#include <ctype.h>
#include <string.h>

/* Reads up to 8 hexadecimal digits (and nothing else, not even "0x"). */
static int hex_field(const char **s, unsigned *v)
{
	const char *p = *s;

	for (*v = 0; isxdigit((unsigned char)*p) && p - *s < 8; p++) {
		int c = tolower((unsigned char)*p);

		*v = *v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (p == *s)
		return 0;
	*s = p;
	return 1;
}

/* "[domain:]bus:device[.function]", in hexadecimal. */
static int parse_bus_id(const char *s, unsigned *domain, unsigned *bus, unsigned *dev)
{
	unsigned f[3], fn;
	int n = 0;

	while (n < 3 && hex_field(&s, &f[n])) {
		n++;
		if (*s != ':' || !isxdigit((unsigned char)s[1]))
			break;
		s++;
	}
	if (n < 2 || (*s == '.' && (s++, !hex_field(&s, &fn))) || *s)
		return 0;
	*domain = n == 3 ? f[0] : 0;
	*bus = f[n - 2];
	*dev = f[n - 1];
	return 1;
}

RT_API cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
	unsigned domain, bus, dev;
	struct rt_device *d;
	int n;

	if (!device || !pciBusId || !parse_bus_id(pciBusId, &domain, &bus, &dev))
		return rt_error(cudaErrorInvalidValue);
	n = rt_device_count();
	for (int i = 0; i < n; i++) {
		if (rt_device_get(i, &d) != cudaSuccess)
			continue;
		if ((unsigned)d->info.pci_domain == domain && (unsigned)d->info.pci_bus == bus &&
		    (unsigned)d->info.pci_device == dev) {
			*device = i;
			return cudaSuccess;
		}
	}
	return rt_error(n ? cudaErrorInvalidDevice : rt_init());
}

RT_API cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
					     int srcDevice, int dstDevice)
{
	struct rt_device *src, *dst;
	cudaError_t e;

	if (!value)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(srcDevice, &src);
	if (e == cudaSuccess)
		e = rt_device_get(dstDevice, &dst);
	if (e == cudaSuccess && src == dst)
		e = cudaErrorInvalidDevice;
	if (e != cudaSuccess)
		return rt_error(e);
	switch (attr) {
	case cudaDevP2PAttrPerformanceRank:
	case cudaDevP2PAttrAccessSupported:
	case cudaDevP2PAttrNativeAtomicSupported:
	case cudaDevP2PAttrCudaArrayAccessSupported:
	case cudaDevP2PAttrOnlyPartialNativeAtomicSupported:
		*value = 0;
		return cudaSuccess;
	default:
		return rt_error(cudaErrorInvalidValue);
	}
}

/* The devices are checked; the allocation table already knows where each
 * pointer (or array) lives, so the copy is an ordinary cudaMemcpy3D. */
static cudaError_t copy_3d_peer(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream,
				int async, int per_thread_default)
{
	struct cudaMemcpy3DParms q = { 0 };
	struct rt_device *d;
	cudaError_t e;

	if (!p)
		return rt_error(cudaErrorInvalidValue);
	e = rt_device_get(p->srcDevice, &d);
	if (e == cudaSuccess)
		e = rt_device_get(p->dstDevice, &d);
	if (e != cudaSuccess)
		return rt_error(e);
	q.srcArray = p->srcArray;
	q.srcPos = p->srcPos;
	q.srcPtr = p->srcPtr;
	q.dstArray = p->dstArray;
	q.dstPos = p->dstPos;
	q.dstPtr = p->dstPtr;
	q.extent = p->extent;
	q.kind = cudaMemcpyDefault;
	return rt_copy_3d(&q, stream, async, per_thread_default);
}

RT_API cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p)
{
	return copy_3d_peer(p, NULL, 0, 0);
}

RT_API cudaError_t cudaMemcpy3DPeer_ptds(const struct cudaMemcpy3DPeerParms *p)
{
	return copy_3d_peer(p, NULL, 0, 1);
}

RT_API cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p,
					 cudaStream_t stream)
{
	return copy_3d_peer(p, stream, 1, 0);
}

RT_API cudaError_t cudaMemcpy3DPeerAsync_ptsz(const struct cudaMemcpy3DPeerParms *p,
					      cudaStream_t stream)
{
	return copy_3d_peer(p, stream, 1, 1);
}

static cudaError_t no_ipc(void)
{
	static int said;

	rt_warn_once(&said, "CUDA IPC is not supported: %s devices do not share memory or "
		     "events between processes", rt_ops() ? rt_ops()->name : "anygpu");
	return rt_error(cudaErrorNotSupported);
}

RT_API cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
	struct rt_range r;

	if (!handle || !rt_mem_find(devPtr, &r) || r.kind != RT_MEM_DEVICE)
		return rt_error(cudaErrorInvalidValue);
	return no_ipc();
}

RT_API cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle,
					unsigned int flags)
{
	if (!devPtr || (flags & ~(unsigned)cudaIpcMemLazyEnablePeerAccess))
		return rt_error(cudaErrorInvalidValue);
	*devPtr = NULL;
	return no_ipc();
}

RT_API cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
	if (!devPtr)
		return rt_error(cudaErrorInvalidValue);
	return no_ipc();
}

RT_API cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
	struct rt_device *d;
	struct ag_event *e;
	cudaError_t err;

	if (!handle)
		return rt_error(cudaErrorInvalidValue);
	err = rt_event_get(event, &d, &e);
	if (err != cudaSuccess)
		return rt_result(d, err);
	return no_ipc();
}

RT_API cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
	if (!event)
		return rt_error(cudaErrorInvalidValue);
	return no_ipc();
}
