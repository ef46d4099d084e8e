/*
 * context.c - the device table and lazy initialisation.
 *
 * As CUDA does, nothing happens when the library loads: the first call that
 * needs a device chooses the backend (ANYGPU_BACKEND, else remote when
 * ANYGPU_SERVER is set, else cuda when it finds a GPU, else cpu), asks it
 * how many devices it has, and opens a device's backend instance on that
 * device's first use.  The current device is per host thread (default 0).
 */
#include "rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static cudaError_t init_error = cudaSuccess;
static const struct ag_backend_ops *ops;
static int ndevices;
static struct rt_device devices[RT_MAX_DEVICES];
static __thread int current_device;

static const struct ag_backend_ops *probe_backend(const char *name, int *count, char *msg,
						  size_t msglen)
{
	const struct ag_backend_ops *o = ag_backend_find(name);

	*count = 0;
	if (!o) {
		snprintf(msg, msglen, "backend '%s' is not built into this libcudart", name);
		return NULL;
	}
	*count = o->probe(msg, msglen);
	return o;
}

/* ANYGPU_BACKEND wins; then remote when a server is named; then a real GPU;
 * then the CPU, which is always there. */
static const struct ag_backend_ops *choose_backend(int *count, char *msg, size_t msglen)
{
	const char *name = getenv("ANYGPU_BACKEND");
	const struct ag_backend_ops *o;

	if (name && *name)
		return probe_backend(name, count, msg, msglen);
	if (getenv("ANYGPU_SERVER"))
		return probe_backend("remote", count, msg, msglen);
	o = probe_backend("cuda", count, msg, msglen);
	if (o && *count > 0)
		return o;
	return probe_backend("cpu", count, msg, msglen);
}

static void init_devices(void)
{
	char msg[512] = "";
	int count;

	ops = choose_backend(&count, msg, sizeof(msg));
	if (!ops || count <= 0) {
		fprintf(stderr, "anygpu: no CUDA device: %s\n",
			*msg ? msg : "the backend found no device");
		init_error = cudaErrorNoDevice;
		return;
	}
	ndevices = count < RT_MAX_DEVICES ? count : RT_MAX_DEVICES;
	for (int i = 0; i < ndevices; i++) {
		devices[i].ordinal = i;
		pthread_mutex_init(&devices[i].lock, NULL);
	}
}

cudaError_t rt_init(void)
{
	pthread_once(&init_once, init_devices);
	return init_error;
}

const struct ag_backend_ops *rt_ops(void)
{
	return ops;
}

int rt_device_count(void)
{
	return rt_init() == cudaSuccess ? ndevices : 0;
}

struct rt_device *rt_device_at(int ordinal)
{
	return &devices[ordinal];
}

static void default_limits(struct rt_device *d)
{
	d->limits[cudaLimitStackSize] = 1024;
	d->limits[cudaLimitPrintfFifoSize] = 1 << 20;
	d->limits[cudaLimitMallocHeapSize] = 8 << 20;
	d->limits[cudaLimitDevRuntimeSyncDepth] = 2;
	d->limits[cudaLimitDevRuntimePendingLaunchCount] = 2048;
}

/* Opens d's backend instance; a failure is reported once and kept, as a
 * GPU that failed to initialise stays failed for the process. */
static cudaError_t open_device(struct rt_device *d)
{
	char why[512] = "";
	struct ag_open_args args = { .error = why, .error_len = sizeof(why) };
	struct ag_backend *b;
	cudaError_t e;

	e = ops->open(d->ordinal, &args, &b);
	if (e != cudaSuccess) {
		fprintf(stderr, "anygpu: cannot open %s device %d: %s\n", ops->name,
			d->ordinal, why[0] ? why : cudaGetErrorString(e));
		return e;
	}
	e = ops->info(b, &d->info);
	if (e != cudaSuccess) {
		ops->close(b);
		return e;
	}
	default_limits(d);
	__atomic_store_n(&d->b, b, __ATOMIC_RELEASE);
	return cudaSuccess;
}

cudaError_t rt_device_get(int ordinal, struct rt_device **out)
{
	struct rt_device *d;
	cudaError_t e = rt_init();

	*out = NULL;
	if (e != cudaSuccess)
		return e;
	if (ordinal < 0 || ordinal >= ndevices)
		return cudaErrorInvalidDevice;
	d = &devices[ordinal];
	*out = d;
	/* Open already: no lock on the path every call takes.  (Using a
	 * device while another thread resets it is undefined in CUDA too.) */
	if (__atomic_load_n(&d->b, __ATOMIC_ACQUIRE))
		return __atomic_load_n(&d->sticky, __ATOMIC_RELAXED);
	pthread_mutex_lock(&d->lock);
	if (!d->b && !d->open_error)
		d->open_error = open_device(d);
	e = d->open_error ? d->open_error : d->sticky;
	pthread_mutex_unlock(&d->lock);
	return e;
}

cudaError_t rt_current(struct rt_device **out)
{
	return rt_device_get(current_device, out);
}

int rt_current_ordinal(void)
{
	return current_device;
}

void rt_set_current(int ordinal)
{
	current_device = ordinal;
}

/* Closes the backend instance (which frees everything it owns) and forgets
 * every runtime object that pointed into it.  A sticky error stays: CUDA
 * documents those as ending the process's use of the device, and an
 * H200's driver refuses the device after a reset that follows one.  The
 * caller holds d->lock. */
void rt_device_close(struct rt_device *d)
{
	if (!d->b)
		return;
	rt_streams_forget_device(d->ordinal);
	rt_events_forget_device(d->ordinal);
	rt_arrays_forget_device(d->ordinal);
	rt_textures_forget_device(d->ordinal);
	rt_mem_drop_device(d->ordinal);
	ops->close(d->b);
	__atomic_store_n(&d->b, NULL, __ATOMIC_RELEASE);
	d->flags = 0;
	d->generation++;
}

/* At unload, close what is open so that backends finish their work (and
 * their output) in order. */
__attribute__((destructor)) static void close_devices(void)
{
	for (int i = 0; i < ndevices; i++) {
		pthread_mutex_lock(&devices[i].lock);
		if (devices[i].b)
			ops->synchronize(devices[i].b);
		rt_device_close(&devices[i]);
		pthread_mutex_unlock(&devices[i].lock);
	}
}
