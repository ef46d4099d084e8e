/*
 * cuda.c - the "cuda" backend: backend.h on the NVIDIA driver API, loaded
 * at run time with dlopen("libcuda.so.1") so that anygpu builds and runs
 * where there is no driver (probe() then says why there are no devices).
 *
 * One instance is one device's primary context, made current on the
 * calling thread by every operation.  Streams, events and modules are the
 * driver's own handles; the NULL stream is the driver's legacy stream, so
 * CUDA's implicit synchronisation is the driver's.  Modules are loaded from
 * the fatbin image as it is (cuModuleLoadData picks the machine code or
 * JIT-compiles the PTX); a kernel's parameter layout comes from
 * cuFuncGetParamInfo.  Driver error codes are the runtime's numbers for the
 * same conditions (CUDA keeps cudaError_t and CUresult aligned), so they
 * pass through; the driver's own text goes to last_message().
 */
#define _GNU_SOURCE
#include "backend.h"
#include "util/strbuf.h"

#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* Every driver function used, by its cuda.h name; the macros of cuda.h
 * turn each into the versioned symbol (cuMemAlloc -> cuMemAlloc_v2). */
#define CU_FUNCS(X) \
	X(cuInit) X(cuDriverGetVersion) X(cuGetErrorString) X(cuDeviceGetCount) \
	X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceTotalMem) X(cuDeviceGetAttribute) \
	X(cuDeviceGetUuid) X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) \
	X(cuDevicePrimaryCtxReset) \
	X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuCtxSetLimit) X(cuMemGetInfo) X(cuMemAlloc) \
	X(cuMemAllocManaged) X(cuMemFree) X(cuMemHostRegister) X(cuMemHostUnregister) \
	X(cuMemHostGetDevicePointer) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) \
	X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8) \
	X(cuMemsetD8Async) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) \
	X(cuModuleGetGlobal) X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuFuncGetParamInfo) X(cuLaunchKernel) \
	X(cuLaunchCooperativeKernel) X(cuStreamCreateWithPriority) X(cuStreamDestroy) \
	X(cuStreamSynchronize) X(cuStreamQuery) X(cuStreamWaitEvent) X(cuLaunchHostFunc) \
	X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventSynchronize) \
	X(cuEventQuery) X(cuEventElapsedTime) X(cuPointerGetAttribute) \
	X(cuTexObjectCreate) X(cuTexObjectDestroy)

#define DECLARE(f) __typeof__(f) *f;
static struct {
	CU_FUNCS(DECLARE)
} cu;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];

static void load_driver(void)
{
	void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	CUresult r;

	if (!lib) {
		snprintf(load_error, sizeof(load_error), "no NVIDIA driver: %s", dlerror());
		return;
	}
#define LOAD(f)								\
	cu.f = (__typeof__(cu.f))dlsym(lib, STR(f));			\
	if (!cu.f) {							\
		snprintf(load_error, sizeof(load_error),		\
			 "the NVIDIA driver lacks %s (too old?)", STR(f)); \
		return;							\
	}
	CU_FUNCS(LOAD)
#undef LOAD
	r = cu.cuInit(0);
	if (r != CUDA_SUCCESS)
		snprintf(load_error, sizeof(load_error), "cuInit failed: error %d", (int)r);
}

/* 0 when the driver is usable, else -1 with load_error saying why. */
static int driver(void)
{
	pthread_once(&load_once, load_driver);
	return load_error[0] ? -1 : 0;
}

struct kfunc {
	struct kfunc *next;
	CUfunction f;
	struct ag_func_info info;
	struct ag_param *params;
	char *name;
	uint32_t dyn_shared;        /* the driver's dynamic shared memory limit */
};

struct ag_module {
	struct ag_module *next;
	CUmodule m;
	struct kfunc *funcs;        /* owned: freed with the module */
};

struct ag_backend {
	CUdevice dev;
	CUcontext ctx;
	struct ag_module *modules;  /* loaded and not unloaded */
	struct ag_device_info info;
	uint64_t mem_limit;
	char msg[512];
};

static cudaError_t check(struct ag_backend *b, CUresult r, const char *what)
{
	const char *s = NULL;

	if (r == CUDA_SUCCESS)
		return cudaSuccess;
	cu.cuGetErrorString(r, &s);
	snprintf(b->msg, sizeof(b->msg), "%s: %s", what, s ? s : "unknown driver error");
	return (cudaError_t)r;
}

/* Every operation runs in the instance's context, whatever thread calls. */
#define CTX(b) do { CUresult r_ = cu.cuCtxSetCurrent((b)->ctx); \
	if (r_ != CUDA_SUCCESS) return check((b), r_, "cuCtxSetCurrent"); } while (0)

static int cuda_probe(char *msg, size_t msglen)
{
	int n = 0;

	if (driver()) {
		snprintf(msg, msglen, "%s", load_error);
		return 0;
	}
	if (cu.cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0)
		snprintf(msg, msglen, "the NVIDIA driver sees no GPU");
	return n;
}

static int attr(struct ag_backend *b, CUdevice_attribute a)
{
	int v = 0;

	cu.cuDeviceGetAttribute(&v, a, b->dev);
	return v;
}

static void fill_info(struct ag_backend *b)
{
	struct ag_device_info *d = &b->info;
	CUuuid uuid;
	size_t total = 0;
	int drv = 0;

	memset(d, 0, sizeof(*d));
	cu.cuDeviceGetName(d->name, sizeof(d->name), b->dev);
	if (cu.cuDeviceGetUuid(&uuid, b->dev) == CUDA_SUCCESS)
		memcpy(d->uuid, uuid.bytes, sizeof(d->uuid));
	cu.cuDeviceTotalMem(&total, b->dev);
	d->total_mem = b->mem_limit && b->mem_limit < total ? b->mem_limit : total;
	d->const_mem = attr(b, CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
	d->shared_per_block = attr(b, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
	d->shared_per_block_optin = attr(b, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	d->shared_per_sm = attr(b, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
	d->l2_cache = attr(b, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
	d->cc_major = attr(b, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	d->cc_minor = attr(b, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	d->sm_count = attr(b, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	d->warp_size = attr(b, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
	d->max_threads_per_block = attr(b, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	d->max_threads_per_sm = attr(b, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	d->max_blocks_per_sm = attr(b, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
	d->max_block_dim[0] = attr(b, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
	d->max_block_dim[1] = attr(b, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
	d->max_block_dim[2] = attr(b, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
	d->max_grid_dim[0] = attr(b, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
	d->max_grid_dim[1] = attr(b, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
	d->max_grid_dim[2] = attr(b, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
	d->regs_per_block = attr(b, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
	d->regs_per_sm = attr(b, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
	d->clock_khz = attr(b, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
	d->mem_clock_khz = attr(b, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
	d->mem_bus_width = attr(b, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
	d->async_engines = attr(b, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
	d->concurrent_kernels = attr(b, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
	d->integrated = attr(b, CU_DEVICE_ATTRIBUTE_INTEGRATED);
	d->can_map_host = attr(b, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY);
	d->managed_memory = attr(b, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY);
	d->concurrent_managed = attr(b, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS);
	d->pageable_access = attr(b, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS);
	d->cooperative_launch = attr(b, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH);
	d->pci_domain = attr(b, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID);
	d->pci_bus = attr(b, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID);
	d->pci_device = attr(b, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID);
	cu.cuDriverGetVersion(&drv);
	d->driver_version = drv;
}

static void free_module(struct ag_module *m);

/* Tells the opener why the device cannot be used. */
static void open_failed(const struct ag_open_args *args, const char *why)
{
	if (args && args->error && args->error_len && why[0])
		snprintf(args->error, args->error_len, "%s", why);
}

static cudaError_t cuda_open(int ordinal, const struct ag_open_args *args,
			     struct ag_backend **out)
{
	struct ag_backend *b;
	char msg[256];
	cudaError_t e;

	*out = NULL;
	if (ordinal < 0 || ordinal >= cuda_probe(msg, sizeof(msg))) {
		open_failed(args, msg);
		return driver() ? cudaErrorNoDevice : cudaErrorInvalidDevice;
	}
	b = xcalloc(1, sizeof(*b));
	b->mem_limit = args ? args->mem_limit : 0;
	e = check(b, cu.cuDeviceGet(&b->dev, ordinal), "cuDeviceGet");
	if (e == cudaSuccess)
		e = check(b, cu.cuDevicePrimaryCtxRetain(&b->ctx, b->dev),
			  "cuDevicePrimaryCtxRetain");
	if (e != cudaSuccess) {
		open_failed(args, b->msg);
		free(b);
		return e;
	}
	fill_info(b);
	*out = b;
	return cudaSuccess;
}

/* Resetting the primary context frees what this instance allocated,
 * loaded, created and pinned in it: closing is how the runtime's
 * cudaDeviceReset reaches the driver.  It does not clear a sticky error:
 * after a device-side assert the driver refuses the next retain (seen on
 * an H200), as CUDA documents. */
static void cuda_close(struct ag_backend *b)
{
	cu.cuDevicePrimaryCtxRelease(b->dev);
	cu.cuDevicePrimaryCtxReset(b->dev);
	while (b->modules) {
		struct ag_module *m = b->modules;

		b->modules = m->next;
		free_module(m);
	}
	free(b);
}

static const char *cuda_last_message(struct ag_backend *b)
{
	return b->msg;
}

static cudaError_t cuda_info(struct ag_backend *b, struct ag_device_info *out)
{
	*out = b->info;
	return cudaSuccess;
}

static cudaError_t cuda_mem_info(struct ag_backend *b, uint64_t *free_b, uint64_t *total)
{
	size_t f = 0, t = 0;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuMemGetInfo(&f, &t), "cuMemGetInfo");
	*total = b->info.total_mem;
	*free_b = f < *total ? f : *total;
	return e;
}

static cudaError_t cuda_synchronize(struct ag_backend *b)
{
	CTX(b);
	return check(b, cu.cuCtxSynchronize(), "cuCtxSynchronize");
}

/* cudaLimit and CUlimit number the limits alike. */
static cudaError_t cuda_set_limit(struct ag_backend *b, enum cudaLimit limit, uint64_t value)
{
	CTX(b);
	return check(b, cu.cuCtxSetLimit((CUlimit)limit, value), "cuCtxSetLimit");
}

static cudaError_t cuda_mem_alloc(struct ag_backend *b, uint64_t size, enum ag_mem_kind kind,
				  ag_dptr *out)
{
	CUdeviceptr p = 0;
	cudaError_t e;

	*out = 0;
	if (!size)
		return cudaSuccess;
	CTX(b);
	if (kind == AG_MEM_MANAGED)
		e = check(b, cu.cuMemAllocManaged(&p, size, CU_MEM_ATTACH_GLOBAL),
			  "cuMemAllocManaged");
	else
		e = check(b, cu.cuMemAlloc(&p, size), "cuMemAlloc");
	*out = p;
	return e;
}

static cudaError_t cuda_mem_free(struct ag_backend *b, ag_dptr p)
{
	CTX(b);
	return check(b, cu.cuMemFree((CUdeviceptr)p), "cuMemFree");
}

/* Unified addressing: managed memory is reachable at its device address.
 * Device memory has no host address. */
static void *cuda_host_ptr(struct ag_backend *b, ag_dptr p)
{
	unsigned int managed = 0;

	if (cu.cuCtxSetCurrent(b->ctx) != CUDA_SUCCESS ||
	    cu.cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
				     (CUdeviceptr)p) != CUDA_SUCCESS)
		return NULL;
	return managed ? (void *)(uintptr_t)p : NULL;
}

static cudaError_t cuda_host_register(struct ag_backend *b, void *p, uint64_t size, ag_dptr *dev)
{
	CUdeviceptr d = 0;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuMemHostRegister(p, size, CU_MEMHOSTREGISTER_PORTABLE |
					  CU_MEMHOSTREGISTER_DEVICEMAP), "cuMemHostRegister");
	if (e == cudaSuccess)
		e = check(b, cu.cuMemHostGetDevicePointer(&d, p, 0), "cuMemHostGetDevicePointer");
	*dev = d;
	return e;
}

static cudaError_t cuda_host_unregister(struct ag_backend *b, void *p)
{
	CTX(b);
	return check(b, cu.cuMemHostUnregister(p), "cuMemHostUnregister");
}

static CUstream cs(struct ag_stream *s)
{
	return (CUstream)s;
}

static cudaError_t cuda_copy_htod(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				  const void *src, uint64_t n, enum ag_host_kind hk, int async)
{
	CTX(b);
	/* Pageable memory must be consumed before an async copy returns:
	 * the driver's async copy from pageable memory stages it first. */
	if (async)
		return check(b, cu.cuMemcpyHtoDAsync((CUdeviceptr)dst, src, n, cs(s)),
			     "cuMemcpyHtoDAsync");
	return check(b, cu.cuMemcpyHtoD((CUdeviceptr)dst, src, n), "cuMemcpyHtoD");
}

static cudaError_t cuda_copy_dtoh(struct ag_backend *b, struct ag_stream *s, void *dst,
				  ag_dptr src, uint64_t n, enum ag_host_kind hk, int async)
{
	cudaError_t e;

	CTX(b);
	if (!async)
		return check(b, cu.cuMemcpyDtoH(dst, (CUdeviceptr)src, n), "cuMemcpyDtoH");
	e = check(b, cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)src, n, cs(s)), "cuMemcpyDtoHAsync");
	/* Pageable destination: the data must be there when the call's
	 * stream says so, which backend.h asks us to wait for. */
	if (e == cudaSuccess && hk == AG_HOST_PAGEABLE)
		e = check(b, cu.cuStreamSynchronize(cs(s)), "cuStreamSynchronize");
	return e;
}

static cudaError_t cuda_copy_dtod(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				  ag_dptr src, uint64_t n, int async)
{
	CTX(b);
	if (!async)
		return check(b, cu.cuMemcpyDtoD((CUdeviceptr)dst, (CUdeviceptr)src, n),
			     "cuMemcpyDtoD");
	return check(b, cu.cuMemcpyDtoDAsync((CUdeviceptr)dst, (CUdeviceptr)src, n, cs(s)),
		     "cuMemcpyDtoDAsync");
}

static cudaError_t cuda_memset(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
			       int value, uint64_t n, int async)
{
	CTX(b);
	if (async)
		return check(b, cu.cuMemsetD8Async((CUdeviceptr)dst, (unsigned char)value, n,
						   cs(s)), "cuMemsetD8Async");
	return check(b, cu.cuMemsetD8((CUdeviceptr)dst, (unsigned char)value, n), "cuMemsetD8");
}

static cudaError_t cuda_module_load(struct ag_backend *b, const void *image, uint64_t size,
				    struct ag_module **out)
{
	struct ag_module *m;
	CUmodule cm;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuModuleLoadData(&cm, image), "cuModuleLoadData");
	if (e != cudaSuccess)
		return e;
	m = xcalloc(1, sizeof(*m));
	m->m = cm;
	m->next = b->modules;
	b->modules = m;
	*out = m;
	return cudaSuccess;
}

static void free_module(struct ag_module *m)
{
	while (m->funcs) {
		struct kfunc *f = m->funcs;

		m->funcs = f->next;
		free(f->params);
		free(f->name);
		free(f);
	}
	free(m);
}

static cudaError_t cuda_module_unload(struct ag_backend *b, struct ag_module *m)
{
	struct ag_module **pp;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuModuleUnload(m->m), "cuModuleUnload");
	for (pp = &b->modules; *pp; pp = &(*pp)->next) {
		if (*pp == m) {
			*pp = m->next;
			break;
		}
	}
	free_module(m);
	return e;
}

static int func_attr(CUfunction f, CUfunction_attribute a)
{
	int v = 0;

	cu.cuFuncGetAttribute(&v, a, f);
	return v;
}

/* The parameter layout, one cuFuncGetParamInfo call per parameter until
 * the driver says there is no such index.  Alignment is not reported: the
 * largest power of two (up to 16) that divides the offset is what the
 * layout allows. */
static void read_params(struct kfunc *k)
{
	size_t off, size;
	uint32_t n = 0, cap = 0, end = 0;

	while (cu.cuFuncGetParamInfo(k->f, n, &off, &size) == CUDA_SUCCESS) {
		uint32_t align = 16;

		while (align > 1 && off % align)
			align /= 2;
		if (n == cap) {
			cap = cap * 2 + 8;
			k->params = xrealloc(k->params, cap * sizeof(*k->params));
		}
		k->params[n++] = (struct ag_param){ (uint32_t)off, (uint32_t)size, align };
		if (off + size > end)
			end = (uint32_t)(off + size);
	}
	k->info.nparams = n;
	k->info.params = k->params;
	k->info.param_bytes = end;
}

static cudaError_t cuda_module_func(struct ag_backend *b, struct ag_module *m, const char *name,
				    struct ag_func **out, const struct ag_func_info **info)
{
	struct kfunc *k;
	CUfunction f;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuModuleGetFunction(&f, m->m, name), name);
	if (e != cudaSuccess)
		return e;
	for (k = m->funcs; k; k = k->next)
		if (k->f == f)
			break;
	if (!k) {
		k = xcalloc(1, sizeof(*k));
		k->f = f;
		k->name = xstrdup(name);
		k->info.name = k->name;
		read_params(k);
		k->info.max_threads = func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
		k->info.static_shared = func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES);
		k->info.local_bytes = func_attr(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES);
		k->info.nregs = func_attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS);
		k->info.ptx_version = func_attr(f, CU_FUNC_ATTRIBUTE_PTX_VERSION);
		k->info.binary_version = func_attr(f, CU_FUNC_ATTRIBUTE_BINARY_VERSION);
		k->dyn_shared = func_attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES);
		k->next = m->funcs;
		m->funcs = k;
	}
	*out = (struct ag_func *)k;
	*info = &k->info;
	return cudaSuccess;
}

static cudaError_t cuda_module_var(struct ag_backend *b, struct ag_module *m, const char *name,
				   ag_dptr *addr, uint64_t *size)
{
	CUdeviceptr p = 0;
	size_t n = 0;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuModuleGetGlobal(&p, &n, m->m, name), name);
	*addr = p;
	*size = n;
	return e;
}

static cudaError_t cuda_launch(struct ag_backend *b, struct ag_stream *s, struct ag_func *fn,
			       const struct ag_launch_cfg *cfg, const void *params,
			       uint64_t param_bytes)
{
	struct kfunc *k = (struct kfunc *)fn;
	size_t size = param_bytes;
	void *extra[] = {
		CU_LAUNCH_PARAM_BUFFER_POINTER, (void *)params,
		CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
		CU_LAUNCH_PARAM_END,
	};
	void **kp;
	cudaError_t e;

	CTX(b);
	/* The runtime has checked the size against the kernel's limit
	 * (cudaFuncSetAttribute's); the driver keeps its own, raised here. */
	if (cfg->shared > k->dyn_shared) {
		e = check(b, cu.cuFuncSetAttribute(k->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
						   (int)cfg->shared), k->name);
		if (e != cudaSuccess)
			return e;
		k->dyn_shared = cfg->shared;
	}
	if (!cfg->cooperative)
		return check(b, cu.cuLaunchKernel(k->f, cfg->grid[0], cfg->grid[1], cfg->grid[2],
						  cfg->block[0], cfg->block[1], cfg->block[2],
						  cfg->shared, cs(s), NULL, extra), k->name);
	/* Cooperative launches take parameters only as an array of pointers. */
	kp = xcalloc(k->info.nparams + 1, sizeof(void *));
	for (uint32_t i = 0; i < k->info.nparams; i++)
		kp[i] = (char *)params + k->params[i].offset;
	e = check(b, cu.cuLaunchCooperativeKernel(k->f, cfg->grid[0], cfg->grid[1], cfg->grid[2],
						  cfg->block[0], cfg->block[1], cfg->block[2],
						  cfg->shared, cs(s), kp), k->name);
	free(kp);
	return e;
}

static cudaError_t cuda_stream_create(struct ag_backend *b, unsigned flags, int priority,
				      struct ag_stream **out)
{
	CUstream s = NULL;
	cudaError_t e;

	CTX(b);
	e = check(b, cu.cuStreamCreateWithPriority(&s, flags & cudaStreamNonBlocking ?
						   CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT,
						   priority), "cuStreamCreateWithPriority");
	*out = (struct ag_stream *)s;
	return e;
}

static cudaError_t cuda_stream_destroy(struct ag_backend *b, struct ag_stream *s)
{
	CTX(b);
	return check(b, cu.cuStreamDestroy(cs(s)), "cuStreamDestroy");
}

static cudaError_t cuda_stream_sync(struct ag_backend *b, struct ag_stream *s)
{
	CTX(b);
	return check(b, cu.cuStreamSynchronize(cs(s)), "cuStreamSynchronize");
}

static cudaError_t cuda_stream_query(struct ag_backend *b, struct ag_stream *s)
{
	CTX(b);
	return check(b, cu.cuStreamQuery(cs(s)), "cuStreamQuery");
}

static cudaError_t cuda_stream_wait_event(struct ag_backend *b, struct ag_stream *s,
					  struct ag_event *e)
{
	CTX(b);
	return check(b, cu.cuStreamWaitEvent(cs(s), (CUevent)e, 0), "cuStreamWaitEvent");
}

static cudaError_t cuda_host_func(struct ag_backend *b, struct ag_stream *s,
				  void (*fn)(void *), void *data)
{
	CTX(b);
	return check(b, cu.cuLaunchHostFunc(cs(s), fn, data), "cuLaunchHostFunc");
}

static cudaError_t cuda_event_create(struct ag_backend *b, unsigned flags, struct ag_event **out)
{
	unsigned cf = CU_EVENT_DEFAULT;
	CUevent ev = NULL;
	cudaError_t e;

	CTX(b);
	if (flags & cudaEventBlockingSync)
		cf |= CU_EVENT_BLOCKING_SYNC;
	if (flags & cudaEventDisableTiming)
		cf |= CU_EVENT_DISABLE_TIMING;
	e = check(b, cu.cuEventCreate(&ev, cf), "cuEventCreate");
	*out = (struct ag_event *)ev;
	return e;
}

static cudaError_t cuda_event_destroy(struct ag_backend *b, struct ag_event *e)
{
	CTX(b);
	return check(b, cu.cuEventDestroy((CUevent)e), "cuEventDestroy");
}

static cudaError_t cuda_event_record(struct ag_backend *b, struct ag_event *e,
				     struct ag_stream *s)
{
	CTX(b);
	return check(b, cu.cuEventRecord((CUevent)e, cs(s)), "cuEventRecord");
}

static cudaError_t cuda_event_sync(struct ag_backend *b, struct ag_event *e)
{
	CTX(b);
	return check(b, cu.cuEventSynchronize((CUevent)e), "cuEventSynchronize");
}

static cudaError_t cuda_event_query(struct ag_backend *b, struct ag_event *e)
{
	CTX(b);
	return check(b, cu.cuEventQuery((CUevent)e), "cuEventQuery");
}

static cudaError_t cuda_event_elapsed(struct ag_backend *b, struct ag_event *start,
				      struct ag_event *end, float *ms)
{
	CTX(b);
	return check(b, cu.cuEventElapsedTime(ms, (CUevent)start, (CUevent)end),
		     "cuEventElapsedTime");
}

/* The driver's array format for a descriptor's channel kind and size. */
static CUarray_format tex_format(const struct ag_tex_desc *d)
{
	static const CUarray_format by_kind[3][3] = {
		{ CU_AD_FORMAT_SIGNED_INT8, CU_AD_FORMAT_SIGNED_INT16, CU_AD_FORMAT_SIGNED_INT32 },
		{ CU_AD_FORMAT_UNSIGNED_INT8, CU_AD_FORMAT_UNSIGNED_INT16,
		  CU_AD_FORMAT_UNSIGNED_INT32 },
		{ CU_AD_FORMAT_FLOAT, CU_AD_FORMAT_HALF, CU_AD_FORMAT_FLOAT },
	};
	unsigned k = d->format < 3 ? d->format : 0;

	return by_kind[k][d->bits == 8 ? 0 : d->bits == 16 ? 1 : 2];
}

/* Texture objects over linear and pitched memory, and over 2D arrays
 * (which this backend keeps as linear memory, so they are pitched
 * textures).  1D, 3D and layered arrays and surfaces need real CUDA
 * arrays, which this backend does not make: refused, naming them. */
static cudaError_t cuda_tex_create(struct ag_backend *b, const struct ag_tex_desc *d,
				   uint64_t *handle)
{
	CUDA_RESOURCE_DESC rd = { 0 };
	CUDA_TEXTURE_DESC td = { 0 };
	CUtexObject t = 0;
	cudaError_t e;

	if (d->kind == AG_TEX_SURFACE || d->layers || (d->res == AG_RES_ARRAY && d->dims != 2)) {
		snprintf(b->msg, sizeof(b->msg), "the cuda backend has no %s yet",
			 d->kind == AG_TEX_SURFACE ? "surface objects" :
			 d->layers ? "layered textures" : "textures over 1D or 3D CUDA arrays");
		return cudaErrorNotSupported;
	}
	if (d->res == AG_RES_LINEAR) {
		rd.resType = CU_RESOURCE_TYPE_LINEAR;
		rd.res.linear.devPtr = (CUdeviceptr)d->base;
		rd.res.linear.format = tex_format(d);
		rd.res.linear.numChannels = d->channels;
		rd.res.linear.sizeInBytes = d->width * d->channels * d->bits / 8;
	} else {
		rd.resType = CU_RESOURCE_TYPE_PITCH2D;
		rd.res.pitch2D.devPtr = (CUdeviceptr)d->base;
		rd.res.pitch2D.format = tex_format(d);
		rd.res.pitch2D.numChannels = d->channels;
		rd.res.pitch2D.width = d->width;
		rd.res.pitch2D.height = d->height;
		rd.res.pitch2D.pitchInBytes = d->pitch;
	}
	for (int i = 0; i < 3; i++)
		td.addressMode[i] = (CUaddress_mode)d->address[i];
	td.filterMode = d->filter ? CU_TR_FILTER_MODE_LINEAR : CU_TR_FILTER_MODE_POINT;
	td.flags = (d->format != cudaChannelFormatKindFloat && !d->read_mode ?
		    CU_TRSF_READ_AS_INTEGER : 0) |
		   (d->normalized ? CU_TRSF_NORMALIZED_COORDINATES : 0);
	memcpy(td.borderColor, d->border, sizeof(td.borderColor));
	CTX(b);
	e = check(b, cu.cuTexObjectCreate(&t, &rd, &td, NULL), "cuTexObjectCreate");
	*handle = t;
	return e;
}

/* Work that may still sample the object finishes first. */
static cudaError_t cuda_tex_destroy(struct ag_backend *b, uint64_t handle)
{
	CTX(b);
	cudaError_t e = check(b, cu.cuCtxSynchronize(), "cuCtxSynchronize");

	if (e == cudaSuccess)
		e = check(b, cu.cuTexObjectDestroy((CUtexObject)handle), "cuTexObjectDestroy");
	return e;
}

const struct ag_backend_ops ag_cuda_backend = {
	.name = "cuda",
	.probe = cuda_probe,
	.open = cuda_open,
	.close = cuda_close,
	.last_message = cuda_last_message,
	.info = cuda_info,
	.mem_info = cuda_mem_info,
	.synchronize = cuda_synchronize,
	.mem_alloc = cuda_mem_alloc,
	.mem_free = cuda_mem_free,
	.host_ptr = cuda_host_ptr,
	.host_register = cuda_host_register,
	.host_unregister = cuda_host_unregister,
	.copy_htod = cuda_copy_htod,
	.copy_dtoh = cuda_copy_dtoh,
	.copy_dtod = cuda_copy_dtod,
	.memset = cuda_memset,
	.module_load = cuda_module_load,
	.module_unload = cuda_module_unload,
	.module_func = cuda_module_func,
	.module_var = cuda_module_var,
	.launch = cuda_launch,
	.stream_create = cuda_stream_create,
	.stream_destroy = cuda_stream_destroy,
	.stream_sync = cuda_stream_sync,
	.stream_query = cuda_stream_query,
	.stream_wait_event = cuda_stream_wait_event,
	.host_func = cuda_host_func,
	.event_create = cuda_event_create,
	.event_destroy = cuda_event_destroy,
	.event_record = cuda_event_record,
	.event_sync = cuda_event_sync,
	.event_query = cuda_event_query,
	.event_elapsed = cuda_event_elapsed,
	.set_limit = cuda_set_limit,
	.tex_create = cuda_tex_create,
	.tex_destroy = cuda_tex_destroy,
};
