/*
 * register.c - the code a program registers, and its lazy loading.
 *
 * nvcc's static constructors hand over each translation unit's fatbin
 * wrapper, then its kernels (host stub address -> mangled name) and its
 * variables (host shadow address -> name).  Nothing is loaded then: as with
 * CUDA's lazy loading, a fatbin's images are loaded on a device the first
 * time one of its kernels or variables is used there, and loaded again after
 * cudaDeviceReset (the device's generation number tells stale from fresh).
 */
#include "rt.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin/fatbin.h"
#include "util/strbuf.h"

#define RT_MAX_IMAGES 64

struct rt_loaded {
	int loaded;                    /* valid when generation matches */
	unsigned generation;
	cudaError_t error;
	struct ag_module *mods[RT_MAX_IMAGES];
};

struct rt_fatbin {
	int nimages;
	const void *images[RT_MAX_IMAGES];
	uint64_t sizes[RT_MAX_IMAGES];
	char error[256];               /* why the wrapper could not be read */
	struct rt_loaded dev[RT_MAX_DEVICES];
	struct rt_kernel *kernels;
	struct rt_var *vars;
	pthread_mutex_t lock;
};

struct rt_kernel {
	struct rt_fatbin *fb;
	const void *host_fun;
	char *name;
	int warned;
	struct {
		unsigned ready;        /* device generation + 1 when f is valid */
		struct ag_func *f;
		const struct ag_func_info *info;
		struct rt_func_attrs attrs;
	} dev[RT_MAX_DEVICES];
	struct rt_kernel *next;
};

struct rt_var {
	struct rt_fatbin *fb;
	const void *host_var;
	void **managed;                /* __managed__: where the host pointer goes */
	char *name;
	uint64_t size;
	struct {
		unsigned generation;
		ag_dptr addr;
		uint64_t size;
	} dev[RT_MAX_DEVICES];
	struct rt_var *next;
};

/* host stub -> kernel, and kernel -> itself (so a cudaKernel_t can be
 * checked); host shadow -> variable. */
static pthread_rwlock_t maps_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct rt_ptrmap kernels, vars;

RT_API void **__cudaRegisterFatBinary(void *fatCubin)
{
	struct rt_fatbin *fb = xcalloc(1, sizeof(*fb));

	pthread_mutex_init(&fb->lock, NULL);
	fb->nimages = fatbin_wrapper_images(fatCubin, fb->images, fb->sizes, RT_MAX_IMAGES,
					    fb->error, sizeof(fb->error));
	return (void **)fb;
}

RT_API void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
}

RT_API void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
				   char *deviceFun, const char *deviceName, int thread_limit,
				   uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
	struct rt_fatbin *fb = (struct rt_fatbin *)fatCubinHandle;
	struct rt_kernel *k = xcalloc(1, sizeof(*k));

	k->fb = fb;
	k->host_fun = hostFun;
	k->name = xstrdup(deviceName);
	k->next = fb->kernels;
	fb->kernels = k;
	pthread_rwlock_wrlock(&maps_lock);
	rt_ptrmap_put(&kernels, hostFun, k);
	rt_ptrmap_put(&kernels, k, k);
	pthread_rwlock_unlock(&maps_lock);
}

static void register_var(struct rt_fatbin *fb, const void *host_var, void **managed,
			 const char *name, size_t size)
{
	struct rt_var *v = xcalloc(1, sizeof(*v));

	v->fb = fb;
	v->host_var = host_var;
	v->managed = managed;
	v->name = xstrdup(name);
	v->size = size;
	v->next = fb->vars;
	fb->vars = v;
	pthread_rwlock_wrlock(&maps_lock);
	rt_ptrmap_put(&vars, host_var, v);
	pthread_rwlock_unlock(&maps_lock);
}

RT_API void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
			      const char *deviceName, int ext, size_t size, int constant,
			      int global)
{
	register_var((struct rt_fatbin *)fatCubinHandle, hostVar, NULL, deviceName, size);
}

RT_API void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
				     char *deviceAddress, const char *deviceName, int ext,
				     size_t size, int constant, int global)
{
	register_var((struct rt_fatbin *)fatCubinHandle, hostVarPtrAddress,
		     hostVarPtrAddress, deviceName, size);
}

RT_API void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
	struct rt_fatbin *fb = (struct rt_fatbin *)fatCubinHandle;

	pthread_rwlock_wrlock(&maps_lock);
	for (struct rt_kernel *k = fb->kernels; k; k = k->next) {
		rt_ptrmap_del(&kernels, k->host_fun);
		rt_ptrmap_del(&kernels, k);
	}
	for (struct rt_var *v = fb->vars; v; v = v->next)
		rt_ptrmap_del(&vars, v->host_var);
	pthread_rwlock_unlock(&maps_lock);
	/* Loaded modules belong to the backend instances, which free them
	 * when the device is reset or closed. */
	while (fb->kernels) {
		struct rt_kernel *k = fb->kernels;

		fb->kernels = k->next;
		free(k->name);
		free(k);
	}
	while (fb->vars) {
		struct rt_var *v = fb->vars;

		fb->vars = v->next;
		free(v->name);
		free(v);
	}
	pthread_mutex_destroy(&fb->lock);
	free(fb);
}

/* A variable's address on device d, from whichever image defines it. */
static cudaError_t resolve_var(struct rt_var *v, struct rt_device *d, struct rt_loaded *l)
{
	const struct ag_backend_ops *ops = rt_ops();
	struct rt_range r = { 0 };
	cudaError_t e = cudaErrorInvalidSymbol;
	ag_dptr addr = 0;
	uint64_t size = 0;

	for (int i = 0; i < v->fb->nimages && e != cudaSuccess; i++)
		if (l->mods[i])
			e = ops->module_var(d->b, l->mods[i], v->name, &addr, &size);
	if (e != cudaSuccess)
		return e;
	v->dev[d->ordinal].addr = addr;
	v->dev[d->ordinal].size = size;
	v->dev[d->ordinal].generation = d->generation;
	r.base = addr;
	r.size = size;
	r.kind = v->managed ? RT_MEM_MANAGED : RT_MEM_SYMBOL;
	r.dev = d->ordinal;
	if (size)
		rt_mem_add(&r);
	if (v->managed) {
		*v->managed = ops->host_ptr(d->b, addr);
		if (!*v->managed)
			fprintf(stderr, "anygpu: __managed__ variable %s has no host address on "
				"the %s backend\n", v->name, ops->name);
	}
	return cudaSuccess;
}

static cudaError_t load_images(struct rt_fatbin *fb, struct rt_device *d, struct rt_loaded *l)
{
	const struct ag_backend_ops *ops = rt_ops();
	cudaError_t e, first = cudaErrorNoKernelImageForDevice;
	int any = 0;

	memset(l->mods, 0, sizeof(l->mods));
	if (fb->nimages < 0) {
		fprintf(stderr, "anygpu: cannot read the program's device code: %s\n", fb->error);
		return cudaErrorInvalidKernelImage;
	}
	for (int i = 0; i < fb->nimages; i++) {
		e = ops->module_load(d->b, fb->images[i], fb->sizes[i], &l->mods[i]);
		if (e == cudaSuccess)
			any = 1;
		else if (e != cudaErrorNoKernelImageForDevice)
			/* The one place that can say why (a translator message). */
			fprintf(stderr, "anygpu: cannot load device code on %s device %d: %s: %s\n",
				ops->name, d->ordinal, cudaGetErrorName(e), ops->last_message(d->b));
		if (e != cudaSuccess && first == cudaErrorNoKernelImageForDevice)
			first = e;
	}
	if (!any)
		return first;
	for (struct rt_var *v = fb->vars; v; v = v->next)
		resolve_var(v, d, l);
	return cudaSuccess;
}

/* Loads fb on d once per device generation; returns the outcome.  The
 * caller holds fb->lock. */
static cudaError_t ensure_loaded_locked(struct rt_fatbin *fb, struct rt_device *d)
{
	struct rt_loaded *l = &fb->dev[d->ordinal];

	if (!l->loaded || l->generation != d->generation) {
		l->error = load_images(fb, d, l);
		l->generation = d->generation;
		l->loaded = 1;
	}
	return l->error;
}

static cudaError_t ensure_loaded(struct rt_fatbin *fb, struct rt_device *d)
{
	cudaError_t e;

	pthread_mutex_lock(&fb->lock);
	e = ensure_loaded_locked(fb, d);
	pthread_mutex_unlock(&fb->lock);
	return e;
}

struct rt_kernel *rt_kernel_find(const void *host_fun_or_handle)
{
	struct rt_kernel *k;

	pthread_rwlock_rdlock(&maps_lock);
	k = rt_ptrmap_get(&kernels, host_fun_or_handle);
	pthread_rwlock_unlock(&maps_lock);
	return k;
}

/* The demangled name when the C++ runtime is there to demangle it. */
static char *readable_name(const char *mangled)
{
	char *(*demangle)(const char *, char *, size_t *, int *);
	char *s = NULL;
	int status = -1;

	*(void **)&demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
	if (demangle)
		s = demangle(mangled, NULL, NULL, &status);
	return status == 0 && s ? s : xstrdup(mangled);
}

static void explain_no_image(struct rt_kernel *k, struct rt_device *d)
{
	char *name;

	if (__atomic_exchange_n(&k->warned, 1, __ATOMIC_RELAXED))
		return;
	name = readable_name(k->name);
	fprintf(stderr,
		"anygpu: kernel %s cannot run on %s device %d: the program carries no PTX for it (%s).\n"
		"anygpu: rebuild with `anygpu nvcc`, or add -arch=sm_XX to nvcc to embed PTX.\n",
		name, rt_ops()->name, d->ordinal,
		d->b ? rt_ops()->last_message(d->b) : "no device");
	free(name);
}

/* As on a GPU, a kernel may use dynamic shared memory up to the default
 * per-block limit until cudaFuncSetAttribute raises its own limit; its
 * carveout preference starts unset (-1). */
static void default_attrs(const struct rt_device *d, const struct ag_func_info *info,
			  struct rt_func_attrs *a)
{
	uint64_t limit = d->info.shared_per_block;

	a->max_dyn_shared = limit > info->static_shared ? (uint32_t)(limit - info->static_shared)
				: 0;
	a->carveout = -1;
}

/* The kernel's function on d: resolved once per device generation under
 * the fatbin's lock, then read without it. */
cudaError_t rt_kernel_func(struct rt_kernel *k, struct rt_device *d, struct ag_func **f,
			   const struct ag_func_info **info)
{
	const struct ag_backend_ops *ops = rt_ops();
	struct rt_fatbin *fb = k->fb;
	struct rt_loaded *l = &fb->dev[d->ordinal];
	int i = d->ordinal;
	cudaError_t e = cudaSuccess;

	if (__atomic_load_n(&k->dev[i].ready, __ATOMIC_ACQUIRE) != d->generation + 1) {
		pthread_mutex_lock(&fb->lock);
		if (k->dev[i].ready != d->generation + 1) {
			e = ensure_loaded_locked(fb, d);
			if (e == cudaSuccess)
				e = cudaErrorInvalidDeviceFunction;
			for (int m = 0; m < fb->nimages && e != cudaSuccess; m++)
				if (l->mods[m])
					e = ops->module_func(d->b, l->mods[m], k->name,
							     &k->dev[i].f, &k->dev[i].info);
			if (e == cudaSuccess) {
				default_attrs(d, k->dev[i].info, &k->dev[i].attrs);
				__atomic_store_n(&k->dev[i].ready, d->generation + 1,
						 __ATOMIC_RELEASE);
			}
		}
		pthread_mutex_unlock(&fb->lock);
	}
	if (e == cudaErrorSymbolNotFound)
		e = cudaErrorInvalidDeviceFunction;
	if (e == cudaErrorNoKernelImageForDevice)
		explain_no_image(k, d);
	if (e != cudaSuccess)
		return e;
	*f = k->dev[i].f;
	*info = k->dev[i].info;
	return cudaSuccess;
}

/* The kernel's attributes on d (after rt_kernel_func), which
 * cudaFuncSetAttribute changes and a device reset restores. */
struct rt_func_attrs *rt_kernel_attrs(struct rt_kernel *k, const struct rt_device *d)
{
	return &k->dev[d->ordinal].attrs;
}

const char *rt_kernel_name(const struct rt_kernel *k)
{
	return k->name;
}

struct rt_var *rt_var_find(const void *host_var)
{
	struct rt_var *v;

	pthread_rwlock_rdlock(&maps_lock);
	v = rt_ptrmap_get(&vars, host_var);
	pthread_rwlock_unlock(&maps_lock);
	return v;
}

cudaError_t rt_var_addr(struct rt_var *v, struct rt_device *d, ag_dptr *addr, uint64_t *size)
{
	cudaError_t e = ensure_loaded(v->fb, d);

	if (e != cudaSuccess)
		return e;
	if (v->dev[d->ordinal].generation != d->generation || !v->dev[d->ordinal].addr)
		return cudaErrorInvalidSymbol;
	*addr = v->dev[d->ordinal].addr;
	*size = v->dev[d->ordinal].size;
	return cudaSuccess;
}

/* Loads every module of a fatbin on the current device, which sets the host
 * pointers of its __managed__ variables.  Returns 1 when done. */
RT_API char __cudaInitModule(void **fatCubinHandle)
{
	struct rt_device *d;

	if (rt_current(&d) != cudaSuccess)
		return 0;
	return ensure_loaded((struct rt_fatbin *)fatCubinHandle, d) == cudaSuccess;
}
