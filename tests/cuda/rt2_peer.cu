/*
 * rt2_peer: calls about other devices and other processes on a device
 * that has neither peers nor IPC.  Peer access to itself is
 * cudaErrorInvalidDevice, as in CUDA; cudaMemcpyPeer works within the
 * device; PCI bus ids round-trip through cudaDeviceGetByPCIBusId; IPC
 * calls check their arguments and then answer cudaErrorNotSupported, as
 * CUDA does for a device without IPC support; the profiler calls succeed.
 */
// expect-stderr: CUDA IPC is not supported
#include "check.h"

#include <cuda_profiler_api.h>
#include <string.h>

int main()
{
	int dev, n, v = -1;
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceCount(&n));

	/* Peers. */
	CK(cudaDeviceCanAccessPeer(&v, dev, dev));
	check(v == 0, "a device is not its own peer: %d", v);
	CK_EXPECT(cudaDeviceEnablePeerAccess(dev, 0), cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceDisablePeerAccess(dev), cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceEnablePeerAccess(n, 0), cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceCanAccessPeer(&v, dev, n), cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, dev, dev),
		  cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, dev, n),
		  cudaErrorInvalidDevice);
	CK_EXPECT(cudaDeviceGetP2PAttribute(NULL, cudaDevP2PAttrPerformanceRank, dev, dev),
		  cudaErrorInvalidValue);
	if (n > 1) {
		int other = dev == 0 ? 1 : 0;
		CK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, dev, other));
		check(v == 0, "peer access supported between devices: %d", v);
		CK(cudaDeviceCanAccessPeer(&v, dev, other));
		check(v == 0, "can access peer: %d", v);
	}
	cudaGetLastError();

	int h[256], back[256];
	for (int i = 0; i < 256; i++)
		h[i] = i * 7 - 100;
	int *a, *b;
	CK(cudaMalloc(&a, sizeof(h)));
	CK(cudaMalloc(&b, sizeof(h)));
	CK(cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice));
	CK(cudaMemcpyPeer(b, dev, a, dev, sizeof(h)));
	CK(cudaMemcpy(back, b, sizeof(h), cudaMemcpyDeviceToHost));
	check_array("cudaMemcpyPeer within a device", back, h, 256);
	CK(cudaMemset(b, 0, sizeof(h)));
	CK(cudaMemcpyPeerAsync(b + 10, dev, a, dev, 100 * sizeof(int), 0));
	CK(cudaMemcpy(back, b, sizeof(h), cudaMemcpyDeviceToHost));
	int want[256] = { 0 };
	memcpy(want + 10, h, 100 * sizeof(int));
	check_array("cudaMemcpyPeerAsync within a device", back, want, 256);

	/* PCI bus ids. */
	char id[64], shortid[64];
	int found = -1;
	CK(cudaDeviceGetPCIBusId(id, sizeof(id), dev));
	CK(cudaDeviceGetByPCIBusId(&found, id));
	check(found == dev, "bus id %s names device %d", id, found);
	unsigned dom, bus, slot;
	check(sscanf(id, "%x:%x:%x", &dom, &bus, &slot) == 3, "bus id format %s", id);
	snprintf(shortid, sizeof(shortid), "%x:%x", bus, slot);   /* bus:device */
	found = -1;
	CK(cudaDeviceGetByPCIBusId(&found, shortid));
	check(found == dev && dom == 0, "short bus id %s names device %d", shortid, found);
	CK_EXPECT(cudaDeviceGetByPCIBusId(&found, "not a bus id"), cudaErrorInvalidValue);
	CK_EXPECT(cudaDeviceGetByPCIBusId(&found, "0000:00:00.0x"), cudaErrorInvalidValue);
	CK_EXPECT(cudaDeviceGetByPCIBusId(NULL, id), cudaErrorInvalidValue);
	snprintf(shortid, sizeof(shortid), "%x:%x:%x.0", dom + 1, bus, slot);
	CK_EXPECT(cudaDeviceGetByPCIBusId(&found, shortid), cudaErrorInvalidDevice);
	cudaGetLastError();

	/* IPC: no device here shares memory with another process. */
	cudaIpcMemHandle_t mh;
	cudaIpcEventHandle_t eh;
	cudaEvent_t ev;
	void *opened = &opened;
	CK(cudaDeviceGetAttribute(&v, cudaDevAttrIpcEventSupport, dev));
	check(v == 0, "cudaDevAttrIpcEventSupport %d", v);
	CK_EXPECT(cudaIpcGetMemHandle(&mh, a), cudaErrorNotSupported);
	CK_EXPECT(cudaIpcGetMemHandle(&mh, h), cudaErrorInvalidValue);
	CK_EXPECT(cudaIpcGetMemHandle(NULL, a), cudaErrorInvalidValue);
	memset(&mh, 0, sizeof(mh));
	CK_EXPECT(cudaIpcOpenMemHandle(&opened, mh, cudaIpcMemLazyEnablePeerAccess),
		  cudaErrorNotSupported);
	check(opened == NULL, "a failed open leaves NULL");
	CK_EXPECT(cudaIpcOpenMemHandle(&opened, mh, 8), cudaErrorInvalidValue);
	CK_EXPECT(cudaIpcCloseMemHandle(a), cudaErrorNotSupported);
	CK(cudaEventCreateWithFlags(&ev, cudaEventInterprocess | cudaEventDisableTiming));
	CK_EXPECT(cudaIpcGetEventHandle(&eh, ev), cudaErrorNotSupported);
	CK_EXPECT(cudaIpcGetEventHandle(&eh, (cudaEvent_t)&eh), cudaErrorInvalidResourceHandle);
	CK_EXPECT(cudaIpcOpenEventHandle(&ev, eh), cudaErrorNotSupported);
	CK_EXPECT(cudaGetLastError(), cudaErrorNotSupported);
	CK(cudaEventDestroy(ev));

	/* The device is unharmed; the profiler calls are harmless. */
	CK(cudaProfilerStart());
	CK(cudaMemcpy(back, a, sizeof(h), cudaMemcpyDeviceToHost));
	CK(cudaProfilerStop());
	check_array("device after IPC refusals", back, h, 256);
	CK(cudaFree(a));
	CK(cudaFree(b));
	return verdict("rt2_peer");
}
