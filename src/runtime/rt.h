/*
 * rt.h - what the files of libcudart share: the device table, per-thread
 * state, the allocation table, the registered code and the stream and
 * event handles.
 *
 * Every public entry point follows one pattern: find the device it acts on
 * (rt_device_get / rt_current, which initialise lazily and return a sticky
 * error if the device has one), call the backend through backend.h, then
 * pass the result through rt_result(), which records it as the thread's
 * last error and turns asynchronous faults into sticky device errors.
 */
#ifndef AG_RT_H
#define AG_RT_H

#include <pthread.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "backend.h"

#define RT_MAX_DEVICES 16
#define RT_API __attribute__((visibility("default")))

/* One device: one opened backend instance. */
struct rt_device {
	int ordinal;
	struct ag_backend *b;          /* NULL until first use and after reset */
	struct ag_device_info info;    /* valid while b is open */
	unsigned flags;                /* cudaSetDeviceFlags */
	unsigned generation;           /* bumped by cudaDeviceReset */
	size_t limits[5];              /* cudaLimit values */
	cudaError_t sticky;            /* a fault that poisons the device */
	cudaError_t open_error;        /* why the backend did not open: final */
	pthread_mutex_t lock;
};

/* context.c */
const struct ag_backend_ops *rt_ops(void);
cudaError_t rt_init(void);
int rt_device_count(void);
cudaError_t rt_device_get(int ordinal, struct rt_device **out);
cudaError_t rt_current(struct rt_device **out);
int rt_current_ordinal(void);
void rt_set_current(int ordinal);
struct rt_device *rt_device_at(int ordinal);   /* no init, no checks */
void rt_device_close(struct rt_device *d);

/* device.c */
cudaError_t rt_device_props(struct cudaDeviceProp *prop, int device);

/* abi12.c or abi13.c: what cudaRuntimeGetVersion says this library is */
extern const int rt_runtime_version;

/* error.c: the thread's last error and sticky faults */
cudaError_t rt_result(struct rt_device *d, cudaError_t e);
cudaError_t rt_error(cudaError_t e);
void rt_warn_once(int *said, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ptrmap.c: a map from pointers to pointers */
struct rt_ptrmap {
	const void **keys;
	void **vals;
	size_t cap, len;
};
void *rt_ptrmap_get(const struct rt_ptrmap *m, const void *key);
void rt_ptrmap_put(struct rt_ptrmap *m, const void *key, void *val);
void rt_ptrmap_del(struct rt_ptrmap *m, const void *key);
void rt_ptrmap_free(struct rt_ptrmap *m);

/* handles.c: sets of live handles; each handle struct starts with this */
struct rt_handle {
	int dev;
	unsigned generation;
};

struct rt_handles {
	pthread_mutex_t lock;
	struct rt_ptrmap map;
};

#define RT_HANDLES_INIT { PTHREAD_MUTEX_INITIALIZER, { 0 } }

void rt_handle_add(struct rt_handles *hs, struct rt_handle *h);
void *rt_handle_find(struct rt_handles *hs, const void *p);
int rt_handle_remove(struct rt_handles *hs, struct rt_handle *h);
void rt_handles_forget_device(struct rt_handles *hs, int dev);

/* memtable.c: every allocation range the runtime knows */
enum rt_mem {
	RT_MEM_DEVICE,       /* cudaMalloc, cudaMallocPitch */
	RT_MEM_MANAGED,      /* cudaMallocManaged, __managed__ */
	RT_MEM_SYMBOL,       /* a module's __device__ / __constant__ variable */
	RT_MEM_HOST,         /* cudaMallocHost / cudaHostAlloc: ours */
	RT_MEM_REGISTERED,   /* cudaHostRegister: the caller's */
	RT_MEM_ARRAY,        /* the storage of a CUDA array (array.c) */
};

/* What cudaMemAdvise and cudaMemPrefetchAsync said about a managed range;
 * kept for the whole allocation (um.c). */
struct rt_advice {
	int read_mostly;
	struct cudaMemLocation preferred;   /* type cudaMemLocationTypeInvalid: none */
	struct cudaMemLocation prefetched;  /* the last prefetch's target */
	uint32_t accessed_by;               /* bit per device */
	int accessed_by_host;
};

struct rt_range {
	uintptr_t base;
	uint64_t size;
	enum rt_mem kind;
	int dev;
	unsigned flags;      /* cudaHostAlloc / cudaHostRegister flags */
	ag_dptr mapped;      /* host memory the backend pinned: kernels' address */
	struct rt_advice advice;   /* managed memory only */
};

void rt_mem_add(const struct rt_range *r);
int rt_mem_find(const void *p, struct rt_range *out);
int rt_mem_remove(const void *base, struct rt_range *out);
void rt_mem_drop_device(int dev);
int rt_mem_set_advice(uintptr_t base, const struct rt_advice *a);
int rt_mem_is_device(enum rt_mem kind);

/* register.c: fatbins, kernels and variables */
struct rt_kernel;
struct rt_var;
struct rt_kernel *rt_kernel_find(const void *host_fun_or_handle);
cudaError_t rt_kernel_func(struct rt_kernel *k, struct rt_device *d, struct ag_func **f,
			   const struct ag_func_info **info);
const char *rt_kernel_name(const struct rt_kernel *k);
/* What cudaFuncSetAttribute changes on a kernel, per device. */
struct rt_func_attrs {
	uint32_t max_dyn_shared;       /* cudaFuncAttributeMaxDynamicSharedMemorySize */
	int carveout;                  /* cudaFuncAttributePreferredSharedMemoryCarveout */
};
struct rt_func_attrs *rt_kernel_attrs(struct rt_kernel *k, const struct rt_device *d);
struct rt_var *rt_var_find(const void *host_var);
cudaError_t rt_var_addr(struct rt_var *v, struct rt_device *d, ag_dptr *addr, uint64_t *size);

/* stream.c */
cudaError_t rt_stream_get(cudaStream_t h, int per_thread, struct rt_device **d,
			  struct ag_stream **s);
void rt_streams_forget_device(int dev);

/* event.c */
cudaError_t rt_event_get(cudaEvent_t h, struct rt_device **d, struct ag_event **e);
void rt_events_forget_device(int dev);

/* memory.c: the one copy path every copy API goes through */
cudaError_t rt_copy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind,
		    cudaStream_t st, int async, int per_thread);
cudaError_t rt_copy_3d(const struct cudaMemcpy3DParms *p, cudaStream_t stream, int async,
		       int per_thread_default);

/* array.c */
cudaError_t rt_array_flatten(const struct cudaMemcpy3DParms *p, struct cudaMemcpy3DParms *out);
void rt_arrays_forget_device(int dev);
/* What texture.c needs of a live array: 0, or -1 when a is not one. */
struct rt_array_info {
	struct cudaChannelFormatDesc desc;
	struct cudaExtent extent;      /* in elements (0: dimension absent) */
	unsigned flags;
	size_t pitch;                  /* bytes per row; slices follow rows */
	ag_dptr base;
	int dev;
};
int rt_array_info(cudaArray_const_t a, struct rt_array_info *out);
/* texture.c */
void rt_textures_forget_device(int dev);

/* um.c: unified memory hints, shared by the CUDA 12 and 13 entry points */
cudaError_t rt_mem_prefetch(const void *p, size_t count, struct cudaMemLocation loc,
			    unsigned flags, cudaStream_t stream, int per_thread_default);
cudaError_t rt_mem_advise(const void *p, size_t count, enum cudaMemoryAdvise advice,
			  struct cudaMemLocation loc);

#endif
