/*
 * test_cudart12 - a C program built as one built against CUDA 12 is: it
 * links libcudart.so.12 (so its references carry that version node) and
 * declares the CUDA 12 prototypes itself, since the toolkit's headers here
 * are CUDA 13's.  It checks that the twin library loads and answers in
 * CUDA 12's ABI: cudaGetDeviceProperties_v2 fills CUDA 12's
 * cudaDeviceProp (fields after maxGridSize moved in CUDA 13: each is
 * compared with cudaDeviceGetAttribute), and the unified memory hints take
 * a device ordinal, and the graph calls that gained edge data in CUDA 13
 * take none under their plain names (the _v2 names have it; the capture
 * info is _v2 without, _v3 with).  Prints PASS and exits 0 only when
 * every check holds.
 */
#include <stdio.h>
#include <string.h>

#include <driver_types.h>

#include "cudart12.h"

typedef struct CUstream_st *cudaStream_t;
typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;

cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp12 *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaMalloc(void **p, size_t size);
cudaError_t cudaMallocManaged(void **p, size_t size, unsigned flags);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind);
cudaError_t cudaFree(void *p);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaMemPrefetchAsync(const void *p, size_t n, int device, cudaStream_t s);
cudaError_t cudaMemPrefetchAsync_v2(const void *p, size_t n, struct cudaMemLocation loc,
				    unsigned flags, cudaStream_t s);
cudaError_t cudaMemAdvise(const void *p, size_t n, enum cudaMemoryAdvise advice, int device);
cudaError_t cudaMemRangeGetAttribute(void *data, size_t size, enum cudaMemRangeAttribute attr,
				     const void *p, size_t n);
const char *cudaGetErrorName(cudaError_t e);
cudaError_t cudaStreamCreate(cudaStream_t *s);
cudaError_t cudaStreamDestroy(cudaStream_t s);
cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *g);
cudaError_t cudaStreamGetCaptureInfo_v2(cudaStream_t s, enum cudaStreamCaptureStatus *status,
					unsigned long long *id, cudaGraph_t *g,
					const cudaGraphNode_t **deps, size_t *ndeps);
cudaError_t cudaStreamGetCaptureInfo_v3(cudaStream_t s, enum cudaStreamCaptureStatus *status,
					unsigned long long *id, cudaGraph_t *g,
					const cudaGraphNode_t **deps,
					const cudaGraphEdgeData **edges, size_t *ndeps);
cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned flags);
cudaError_t cudaGraphDestroy(cudaGraph_t g);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *n, cudaGraph_t g, const cudaGraphNode_t *deps,
				  size_t ndeps);
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
				     const cudaGraphNode_t *to, size_t n);
cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from,
					const cudaGraphNode_t *to, size_t n);
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
			      size_t *n);
cudaError_t cudaGraphGetEdges_v2(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to,
				 cudaGraphEdgeData *edges, size_t *n);
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *deps, size_t *n);
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *deps,
					   size_t *n);

static int failures;

static void check(int ok, const char *what, long got, long want)
{
	if (ok)
		return;
	failures++;
	fprintf(stderr, "%s: got %ld, want %ld\n", what, got, want);
}

static void expect(cudaError_t got, cudaError_t want, const char *what)
{
	if (got != want)
		fprintf(stderr, "%s: %s, want %s\n", what, cudaGetErrorName(got),
			cudaGetErrorName(want));
	failures += got != want;
}

/* Fields of the CUDA 12 layout against the attribute that names them. */
static void check_props(const struct cudaDeviceProp12 *p, int dev)
{
	static const struct {
		const char *name;
		size_t offset;
		enum cudaDeviceAttr attr;
	} fields[] = {
#define F(field, attr) { #field, offsetof(struct cudaDeviceProp12, field), attr }
		F(maxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock),
		F(clockRate, cudaDevAttrClockRate),
		F(major, cudaDevAttrComputeCapabilityMajor),
		F(minor, cudaDevAttrComputeCapabilityMinor),
		F(multiProcessorCount, cudaDevAttrMultiProcessorCount),
		F(computeMode, cudaDevAttrComputeMode),
		F(concurrentKernels, cudaDevAttrConcurrentKernels),
		F(pciBusID, cudaDevAttrPciBusId),
		F(asyncEngineCount, cudaDevAttrAsyncEngineCount),
		F(unifiedAddressing, cudaDevAttrUnifiedAddressing),
		F(memoryClockRate, cudaDevAttrMemoryClockRate),
		F(l2CacheSize, cudaDevAttrL2CacheSize),
		F(maxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor),
		F(regsPerMultiprocessor, cudaDevAttrMaxRegistersPerMultiprocessor),
		F(managedMemory, cudaDevAttrManagedMemory),
		F(singleToDoublePrecisionPerfRatio, cudaDevAttrSingleToDoublePrecisionPerfRatio),
		F(concurrentManagedAccess, cudaDevAttrConcurrentManagedAccess),
		F(cooperativeLaunch, cudaDevAttrCooperativeLaunch),
		F(maxBlocksPerMultiProcessor, cudaDevAttrMaxBlocksPerMultiprocessor),
		F(hostRegisterSupported, cudaDevAttrHostRegisterSupported),
		F(memoryPoolsSupported, cudaDevAttrMemoryPoolsSupported),
		F(clusterLaunch, cudaDevAttrClusterLaunch),
#undef F
	};
	int v;

	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		int got;

		memcpy(&got, (const char *)p + fields[i].offset, sizeof(got));
		expect(cudaDeviceGetAttribute(&v, fields[i].attr, dev), cudaSuccess, fields[i].name);
		check(got == v, fields[i].name, got, v);
	}
	expect(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev),
	       cudaSuccess, "opt-in shared");
	check(p->sharedMemPerBlockOptin == (size_t)v, "sharedMemPerBlockOptin",
	      (long)p->sharedMemPerBlockOptin, v);
	expect(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev),
	       cudaSuccess, "shared per SM");
	check(p->sharedMemPerMultiprocessor == (size_t)v, "sharedMemPerMultiprocessor",
	      (long)p->sharedMemPerMultiprocessor, v);
	check(p->name[0] != 0, "name is set", p->name[0], 1);
	check(p->totalGlobalMem > 0, "totalGlobalMem", (long)p->totalGlobalMem, 1);
	check(p->reserved[59] == 0, "reserved tail untouched", p->reserved[59], 0);
}

static void check_memory(int dev)
{
	int h[64], back[64], v = 0;
	int *d, *m;

	for (int i = 0; i < 64; i++)
		h[i] = i * i - 7;
	expect(cudaMalloc((void **)&d, sizeof(h)), cudaSuccess, "cudaMalloc");
	expect(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice), cudaSuccess, "to device");
	expect(cudaMemcpy(back, d, sizeof(h), cudaMemcpyDeviceToHost), cudaSuccess, "to host");
	check(!memcmp(h, back, sizeof(h)), "round trip", 0, 0);
	expect(cudaFree(d), cudaSuccess, "cudaFree");

	expect(cudaMallocManaged((void **)&m, 4096, cudaMemAttachGlobal), cudaSuccess, "managed");
	expect(cudaMemPrefetchAsync(m, 4096, dev, NULL), cudaSuccess, "prefetch to device");
	expect(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096),
	       cudaSuccess, "last prefetch");
	check(v == dev, "last prefetch location", v, dev);
	expect(cudaMemPrefetchAsync(m, 4096, cudaCpuDeviceId, NULL), cudaSuccess, "prefetch to host");
	expect(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096),
	       cudaSuccess, "last prefetch");
	check(v == cudaCpuDeviceId, "last prefetch location (host)", v, cudaCpuDeviceId);
	expect(cudaMemPrefetchAsync(m, 4096, 1000, NULL), cudaErrorInvalidDevice, "bad device");
	expect(cudaMemPrefetchAsync_v2(m, 4096, (struct cudaMemLocation){
			cudaMemLocationTypeDevice, dev }, 0, NULL), cudaSuccess, "prefetch _v2");
	expect(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId),
	       cudaSuccess, "advise host");
	expect(cudaMemRangeGetAttribute(&v, 4, cudaMemRangeAttributePreferredLocation, m, 4096),
	       cudaSuccess, "preferred");
	check(v == cudaCpuDeviceId, "preferred location", v, cudaCpuDeviceId);
	expect(cudaDeviceSynchronize(), cudaSuccess, "synchronize");
	m[1023] = 5;
	check(m[1023] == 5, "managed memory from the host", m[1023], 5);
	expect(cudaFree(m), cudaSuccess, "free managed");
}

/* Edges through CUDA 12's forms: a size_t count where CUDA 13 has the
 * edge data would be read as a pointer, and the count as garbage. */
static void check_graph(void)
{
	cudaGraphNode_t a, b, from[2] = { 0 }, to[2] = { 0 }, got = NULL;
	cudaGraphEdgeData ed[2];
	cudaGraph_t g, captured = NULL;
	cudaStream_t s;
	enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
	const cudaGraphNode_t *deps = NULL;
	const cudaGraphEdgeData *edges = NULL;
	size_t n = 0;

	expect(cudaGraphCreate(&g, 0), cudaSuccess, "cudaGraphCreate");
	expect(cudaGraphAddEmptyNode(&a, g, NULL, 0), cudaSuccess, "empty node");
	expect(cudaGraphAddEmptyNode(&b, g, NULL, 0), cudaSuccess, "empty node");
	expect(cudaGraphAddDependencies(g, &a, &b, 1), cudaSuccess, "cudaGraphAddDependencies");
	n = 2;
	expect(cudaGraphGetEdges(g, from, to, &n), cudaSuccess, "cudaGraphGetEdges");
	check(n == 1 && from[0] == a && to[0] == b, "edges", (long)n, 1);
	n = 2;
	expect(cudaGraphGetEdges_v2(g, from, to, ed, &n), cudaSuccess, "cudaGraphGetEdges_v2");
	check(n == 1 && ed[0].type == 0, "edges (_v2)", (long)n, 1);
	n = 1;
	expect(cudaGraphNodeGetDependencies(b, &got, &n), cudaSuccess, "dependencies");
	check(n == 1 && got == a, "dependencies of b", (long)n, 1);
	n = 1;
	expect(cudaGraphNodeGetDependentNodes(a, &got, &n), cudaSuccess, "dependents");
	check(n == 1 && got == b, "dependents of a", (long)n, 1);
	expect(cudaGraphRemoveDependencies(g, &a, &b, 1), cudaSuccess, "remove");
	expect(cudaGraphGetEdges(g, NULL, NULL, &n), cudaSuccess, "edge count");
	check(n == 0, "edges after removal", (long)n, 0);
	expect(cudaGraphDestroy(g), cudaSuccess, "cudaGraphDestroy");

	expect(cudaStreamCreate(&s), cudaSuccess, "cudaStreamCreate");
	expect(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess, "capture");
	n = 5;
	expect(cudaStreamGetCaptureInfo_v2(s, &status, NULL, &captured, &deps, &n), cudaSuccess,
	       "cudaStreamGetCaptureInfo_v2");
	check(status == cudaStreamCaptureStatusActive && captured && n == 0, "capture info _v2",
	      status, cudaStreamCaptureStatusActive);
	n = 5;
	expect(cudaStreamGetCaptureInfo_v3(s, &status, NULL, NULL, &deps, &edges, &n),
	       cudaSuccess, "cudaStreamGetCaptureInfo_v3");
	check(status == cudaStreamCaptureStatusActive && n == 0, "capture info _v3", (long)n, 0);
	expect(cudaStreamEndCapture(s, &g), cudaSuccess, "end capture");
	expect(cudaGraphDestroy(g), cudaSuccess, "captured graph");
	expect(cudaStreamDestroy(s), cudaSuccess, "cudaStreamDestroy");
}

int main(void)
{
	struct cudaDeviceProp12 p;
	int n = 0, version = 0;

	expect(cudaGetDeviceCount(&n), cudaSuccess, "cudaGetDeviceCount");
	check(n >= 1, "devices", n, 1);
	expect(cudaRuntimeGetVersion(&version), cudaSuccess, "cudaRuntimeGetVersion");
	check(version / 1000 == 12, "runtime version", version, 12000);
	memset(&p, 0xff, sizeof(p));
	expect(cudaGetDeviceProperties_v2(&p, 0), cudaSuccess, "cudaGetDeviceProperties_v2");
	check_props(&p, 0);
	expect(cudaGetDeviceProperties_v2(&p, n), cudaErrorInvalidDevice, "bad ordinal");
	check_memory(0);
	check_graph();
	if (failures) {
		printf("FAIL test_cudart12: %d checks failed\n", failures);
		return 1;
	}
	printf("PASS test_cudart12\n");
	return 0;
}
