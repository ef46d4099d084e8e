/*
 * backend.h - the one interface between the CUDA runtime and an engine.
 *
 * The runtime (libcudart), the server's worker and the tests all drive an
 * engine through this table of operations and nothing else.  One opened
 * backend instance is one device: the runtime keeps an array of them, so a
 * machine with two GPUs, or two remote servers, shows up as two devices.
 *
 * Addresses of device memory are ag_dptr values, never dereferenced by the
 * caller (on the cpu backend they happen to be host addresses; on remote and
 * cuda backends they are not).  Host memory is always a plain pointer.
 *
 * Errors are cudaError_t values.  An operation that CUDA defines as
 * asynchronous (launch, *_async copies, memset, event record, host function,
 * stream wait) returns at once: it reports only errors it can see without
 * running (bad handle, bad configuration); errors that happen while it runs
 * are reported by the next synchronising operation on that stream, event or
 * device (stream_sync, event_sync, synchronize, and the synchronous copies).
 * The backend does not remember which errors are sticky: the runtime does.
 * Details that a code cannot carry (which kernel has no PTX, which PTX line
 * failed to parse) go into the instance's message buffer, read with
 * ops->last_message().
 *
 * Handles (modules, functions, streams, events) are opaque pointers owned by
 * the backend instance; the NULL stream is the legacy default stream, with
 * CUDA's implicit synchronisation against blocking streams.
 */
#ifndef AG_BACKEND_H
#define AG_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <driver_types.h> /* cudaError_t: the one error vocabulary */

typedef uint64_t ag_dptr;

struct ag_backend;
struct ag_module;
struct ag_func;
struct ag_stream;
struct ag_event;

/* What a device is, in the terms cudaDeviceProp and cudaDeviceGetAttribute
 * need.  Fixed-size and plain so that it can travel over the wire. */
struct ag_device_info {
	char name[256];
	unsigned char uuid[16];
	uint64_t total_mem;            /* bytes of global memory (or the quota) */
	uint64_t const_mem;            /* bytes of __constant__ memory */
	uint64_t shared_per_block;     /* default limit */
	uint64_t shared_per_block_optin;
	uint64_t shared_per_sm;
	uint64_t l2_cache;
	int32_t cc_major, cc_minor;    /* compute capability reported */
	int32_t sm_count;
	int32_t warp_size;
	int32_t max_threads_per_block;
	int32_t max_threads_per_sm;
	int32_t max_blocks_per_sm;
	int32_t max_block_dim[3];
	int32_t max_grid_dim[3];
	int32_t regs_per_block, regs_per_sm;
	int32_t clock_khz, mem_clock_khz, mem_bus_width;
	int32_t async_engines;
	int32_t concurrent_kernels;
	int32_t integrated;            /* 1: device memory is host memory */
	int32_t can_map_host;
	int32_t managed_memory;
	int32_t concurrent_managed;    /* CPU and device may touch managed memory at once */
	int32_t pageable_access;       /* device may read pageable host memory */
	int32_t cooperative_launch;
	int32_t pci_domain, pci_bus, pci_device;
	int32_t driver_version;        /* e.g. 13000 */
};

/* Layout of one kernel's parameters, from its PTX .param list. */
struct ag_param {
	uint32_t offset;
	uint32_t size;
	uint32_t align;
};

struct ag_func_info {
	const char *name;              /* mangled .entry name */
	uint32_t nparams;
	const struct ag_param *params; /* nparams entries, owned by the backend */
	uint32_t param_bytes;          /* size of the packed parameter block */
	uint32_t max_threads;          /* per block: .maxntid, or the device limit */
	uint32_t static_shared;        /* bytes */
	uint32_t local_bytes;          /* per thread */
	uint32_t nregs;
	uint32_t ptx_version;          /* the virtual arch the PTX targets (75 for
					 * sm_75), 0 if unknown */
	uint32_t binary_version;       /* sm arch the code was built for */
};

struct ag_launch_cfg {
	uint32_t grid[3];
	uint32_t block[3];
	uint32_t shared;               /* dynamic shared memory, bytes */
	int cooperative;               /* cudaLaunchCooperativeKernel */
};

enum ag_mem_kind {
	AG_MEM_DEVICE = 0,
	AG_MEM_MANAGED = 1,            /* cudaMallocManaged: host can touch it */
};

/* Where a copy's host side lives: pinned memory may be read after the call
 * returns; pageable memory must be consumed before an async copy returns
 * (host to device) or waited for (device to host), as CUDA does. */
enum ag_host_kind {
	AG_HOST_PAGEABLE = 0,
	AG_HOST_PINNED = 1,
};

/* How a backend talks back to its host process. */
struct ag_open_args {
	/* Kernel printf output; NULL means write to stdout.  Called from
	 * backend threads, in the order the device produced the text. */
	void (*print)(void *ctx, const char *text, size_t len);
	void *print_ctx;
	uint64_t mem_limit;            /* 0: no quota; else total_mem reported */
	/* Where open() says why it failed, NUL-terminated (NULL: nowhere);
	 * the caller reports it, the backend prints nothing. */
	char *error;
	size_t error_len;
};

/* A texture or surface object as the backend creates it: the runtime has
 * checked the combination, the backend checks the memory.  Fixed-size and
 * plain so that it can travel over the wire. */
enum ag_tex_kind {
	AG_TEX_TEXTURE = 0,
	AG_TEX_SURFACE = 1,
};

enum ag_tex_res {
	AG_RES_ARRAY = 0,              /* a CUDA array: rows, then slices, no padding */
	AG_RES_LINEAR = 1,             /* cudaResourceTypeLinear: integer coordinates */
	AG_RES_PITCH2D = 2,            /* cudaResourceTypePitch2D */
};

struct ag_tex_desc {
	uint32_t kind;                 /* enum ag_tex_kind */
	uint32_t res;                  /* enum ag_tex_res */
	ag_dptr base;                  /* the first element */
	uint64_t width, height, depth; /* in elements; 0 where the dimension is absent */
	uint64_t pitch;                /* bytes per row */
	uint32_t dims;                 /* 1, 2 or 3 */
	uint32_t channels;             /* 1, 2 or 4 */
	uint32_t bits;                 /* per channel: 8, 16 or 32 */
	uint32_t format;               /* cudaChannelFormatKindSigned, Unsigned or Float */
	uint32_t address[3];           /* cudaTextureAddressMode per dimension */
	uint32_t filter;               /* cudaTextureFilterMode */
	uint32_t read_mode;            /* cudaTextureReadMode */
	uint32_t normalized;           /* 1: coordinates in [0, 1) */
	uint32_t layers;               /* a layered array's layer count (= depth); 0: not layered */
	float border[4];               /* cudaAddressModeBorder's colour */
};

struct ag_backend_ops {
	const char *name;

	/* Lifetime.  probe() says how many devices this backend can open on
	 * this machine (0 with a message when none, e.g. no driver). */
	int (*probe)(char *msg, size_t msglen);
	cudaError_t (*open)(int ordinal, const struct ag_open_args *args,
			    struct ag_backend **out);
	void (*close)(struct ag_backend *b);   /* frees everything it owns */
	const char *(*last_message)(struct ag_backend *b);

	/* Device. */
	cudaError_t (*info)(struct ag_backend *b, struct ag_device_info *out);
	cudaError_t (*mem_info)(struct ag_backend *b, uint64_t *free, uint64_t *total);
	cudaError_t (*synchronize)(struct ag_backend *b);

	/* Memory. */
	cudaError_t (*mem_alloc)(struct ag_backend *b, uint64_t size,
				 enum ag_mem_kind kind, ag_dptr *out);
	cudaError_t (*mem_free)(struct ag_backend *b, ag_dptr p);
	/* Host-visible address of device memory, or NULL where there is none
	 * (only the cpu backend, and managed memory, have one). */
	void *(*host_ptr)(struct ag_backend *b, ag_dptr p);

	/* Optional (NULL: pinned memory is the runtime's own page-aligned
	 * memory, which the backend reaches as it reaches any host memory).
	 * host_register pins [p, p + size) with the device (page-locked for
	 * DMA, portable to every device of the backend) and says at *dev the
	 * address kernels reach it by; host_unregister undoes it.  Closing
	 * the instance drops its registrations. */
	cudaError_t (*host_register)(struct ag_backend *b, void *p, uint64_t size, ag_dptr *dev);
	cudaError_t (*host_unregister)(struct ag_backend *b, void *p);

	/* Copies and fills: async != 0 queues them on stream s; async == 0
	 * also waits for them (and for the legacy stream's prior work). */
	cudaError_t (*copy_htod)(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				 const void *src, uint64_t n, enum ag_host_kind hk, int async);
	cudaError_t (*copy_dtoh)(struct ag_backend *b, struct ag_stream *s, void *dst,
				 ag_dptr src, uint64_t n, enum ag_host_kind hk, int async);
	cudaError_t (*copy_dtod)(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				 ag_dptr src, uint64_t n, int async);
	cudaError_t (*memset)(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
			      int value, uint64_t n, int async);

	/* Code.  image is a fatbin (the data a wrapper points to, v1 or one
	 * element of a v2 list); the backend picks what it can run. */
	cudaError_t (*module_load)(struct ag_backend *b, const void *image, uint64_t size,
				   struct ag_module **out);
	cudaError_t (*module_unload)(struct ag_backend *b, struct ag_module *m);
	cudaError_t (*module_func)(struct ag_backend *b, struct ag_module *m, const char *name,
				   struct ag_func **out, const struct ag_func_info **info);
	cudaError_t (*module_var)(struct ag_backend *b, struct ag_module *m, const char *name,
				  ag_dptr *addr, uint64_t *size);
	/* params: packed as info->params says, param_bytes long. */
	cudaError_t (*launch)(struct ag_backend *b, struct ag_stream *s, struct ag_func *f,
			      const struct ag_launch_cfg *cfg, const void *params, uint64_t param_bytes);

	/* Streams.  flags: cudaStreamDefault or cudaStreamNonBlocking. */
	cudaError_t (*stream_create)(struct ag_backend *b, unsigned flags, int priority,
				     struct ag_stream **out);
	cudaError_t (*stream_destroy)(struct ag_backend *b, struct ag_stream *s);
	cudaError_t (*stream_sync)(struct ag_backend *b, struct ag_stream *s);
	/* cudaSuccess when idle, cudaErrorNotReady when work is pending. */
	cudaError_t (*stream_query)(struct ag_backend *b, struct ag_stream *s);
	cudaError_t (*stream_wait_event)(struct ag_backend *b, struct ag_stream *s,
					 struct ag_event *e);
	/* Runs fn(data) on a backend thread when the stream reaches it. */
	cudaError_t (*host_func)(struct ag_backend *b, struct ag_stream *s,
				 void (*fn)(void *), void *data);

	/* Events.  flags: cudaEventDefault, cudaEventBlockingSync,
	 * cudaEventDisableTiming. */
	cudaError_t (*event_create)(struct ag_backend *b, unsigned flags, struct ag_event **out);
	cudaError_t (*event_destroy)(struct ag_backend *b, struct ag_event *e);
	cudaError_t (*event_record)(struct ag_backend *b, struct ag_event *e, struct ag_stream *s);
	cudaError_t (*event_sync)(struct ag_backend *b, struct ag_event *e);
	cudaError_t (*event_query)(struct ag_backend *b, struct ag_event *e);
	cudaError_t (*event_elapsed)(struct ag_backend *b, struct ag_event *start,
				     struct ag_event *end, float *ms);

	/* Optional (NULL: limits are only reported): a cudaDeviceSetLimit
	 * value the backend enforces, e.g. cudaLimitMallocHeapSize. */
	cudaError_t (*set_limit)(struct ag_backend *b, enum cudaLimit limit, uint64_t value);

	/* Optional (NULL: cudaErrorNotSupported): texture and surface
	 * objects over device memory the runtime already owns.  The handle
	 * is what kernels receive as a cudaTextureObject_t or
	 * cudaSurfaceObject_t; the backend owns what it names until
	 * tex_destroy (which waits for work that may use it) or close.
	 * An unknown handle is cudaErrorInvalidValue. */
	cudaError_t (*tex_create)(struct ag_backend *b, const struct ag_tex_desc *d,
				  uint64_t *handle);
	cudaError_t (*tex_destroy)(struct ag_backend *b, uint64_t handle);
};

/* The backends compiled into this build, by name ("cpu", "cuda", "remote").
 * NULL when there is no such backend. */
const struct ag_backend_ops *ag_backend_find(const char *name);

extern const struct ag_backend_ops ag_cpu_backend;
extern const struct ag_backend_ops ag_remote_backend;
extern const struct ag_backend_ops ag_cuda_backend;

#endif
