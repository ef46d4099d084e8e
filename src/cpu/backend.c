/*
 * backend.c - the cpu backend's operations table: the device it reports,
 * its memory, its modules and kernel launches.  Streams and events live in
 * stream.c, the block executor in exec.c, the compile cache in jit.c.
 *
 * Device memory is host memory (mem.c), so an ag_dptr is a host address;
 * every address a caller passes is still checked against the allocations
 * and module variables before it is touched.
 */
#include "cpu/cpu.h"

#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/host.h"
#include "fatbin/fatbin.h"

/* Pageable host-to-device copies up to this size are staged, so an async
 * copy returns at once; larger ones wait for the stream instead. */
#define STAGE_MAX (256u << 10)

#define KIB 1024u

void ag_cpu_set_msg(struct ag_backend *b, const char *fmt, ...)
{
	va_list ap;
	pthread_mutex_lock(&b->lock);
	va_start(ap, fmt);
	vsnprintf(b->msg, sizeof(b->msg), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&b->lock);
}

static int cpu_probe(char *msg, size_t msglen)
{
	return 1;
}

/* A stable identity for this machine's CPU device. */
static void make_uuid(unsigned char uuid[16])
{
	char id[256] = "";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	FILE *f = fopen("/etc/machine-id", "r");

	if (f) {
		if (!fgets(id, sizeof(id), f))
			id[0] = '\0';
		fclose(f);
	}
	if (!id[0])
		gethostname(id, sizeof(id) - 1);
	EVP_Digest(id, strlen(id), md, &mdlen, EVP_sha256(), NULL);
	memcpy(uuid, md, 16);
	uuid[6] = (uuid[6] & 0x0f) | 0x50;	/* RFC 4122 name-based */
	uuid[8] = (uuid[8] & 0x3f) | 0x80;
}

/* Compute capability 8.0: the oldest architecture whose features
 * (cp.async, bf16, redux, 164 KiB shared) nvcc 13's defaults assume, and
 * one every PTX target up to sm_80 runs on. */
#define CPU_CC 80

static void fill_info(struct ag_device_info *d, uint64_t mem_limit)
{
	char model[200], mhz[32];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);

	memset(d, 0, sizeof(*d));
	ag_host_cpuinfo("model name", model, sizeof(model));
	snprintf(d->name, sizeof(d->name), "anygpu CPU (%s)", model[0] ? model : "unknown");
	make_uuid(d->uuid);
	d->total_mem = mem_limit ? mem_limit : ag_host_meminfo("MemTotal");
	d->const_mem = 64 * KIB;
	d->shared_per_block = 48 * KIB;
	d->shared_per_block_optin = 96 * KIB;
	d->shared_per_sm = 96 * KIB;
	d->l2_cache = l2 > 0 ? (uint64_t)l2 : 0;
	d->cc_major = CPU_CC / 10;
	d->cc_minor = CPU_CC % 10;
	d->sm_count = ncpu > 0 ? (int32_t)ncpu : 1;
	d->warp_size = 32;
	d->max_threads_per_block = 1024;
	d->max_threads_per_sm = 2048;
	d->max_blocks_per_sm = 32;
	d->max_block_dim[0] = 1024;
	d->max_block_dim[1] = 1024;
	d->max_block_dim[2] = 64;
	d->max_grid_dim[0] = 0x7fffffff;
	d->max_grid_dim[1] = 65535;
	d->max_grid_dim[2] = 65535;
	d->regs_per_block = 65536;
	d->regs_per_sm = 65536;
	ag_host_cpuinfo("cpu MHz", mhz, sizeof(mhz));
	d->clock_khz = atof(mhz) > 0 ? (int32_t)(atof(mhz) * 1000) : 2000000;
	d->async_engines = 1;
	d->concurrent_kernels = 0;	/* exec.c runs one grid at a time */
	d->integrated = 1;
	d->can_map_host = 1;
	d->managed_memory = 1;
	d->concurrent_managed = 1;
	d->pageable_access = 1;
	d->cooperative_launch = 1;
	d->driver_version = 13000;
}

static cudaError_t cpu_open(int ordinal, const struct ag_open_args *args,
			    struct ag_backend **out)
{
	if (ordinal != 0)
		return cudaErrorInvalidDevice;
	struct ag_backend *b = xcalloc(1, sizeof(*b));
	if (args)
		b->args = *args;
	fill_info(&b->info, b->args.mem_limit);
	/* Never more than the device says it has, quota or not. */
	b->mem.limit = b->info.total_mem;
	b->exec = ag_exec_new(b->args.print, b->args.print_ctx);
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->cv, NULL);
	ag_cpu_streams_init(b);
	*out = b;
	return cudaSuccess;
}

static void free_module(struct ag_module *m)
{
	for (unsigned i = 0; i < m->nfuncs; i++)
		free(m->funcs[i].params);
	free(m->funcs);
	ag_jit_unload(&m->jm);
	free(m);
}

static void cpu_close(struct ag_backend *b)
{
	if (!b)
		return;
	ag_cpu_streams_close(b);
	ag_exec_free(b->exec);
	while (b->modules) {
		struct ag_module *m = b->modules;
		b->modules = m->next;
		free_module(m);
	}
	ag_cpu_tex_release(b);
	ag_mem_release(&b->mem);
	pthread_cond_destroy(&b->cv);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

static const char *cpu_last_message(struct ag_backend *b)
{
	return b->msg;
}

static cudaError_t cpu_info(struct ag_backend *b, struct ag_device_info *out)
{
	*out = b->info;
	return cudaSuccess;
}

static cudaError_t cpu_mem_info(struct ag_backend *b, uint64_t *free_bytes, uint64_t *total)
{
	uint64_t avail = ag_host_meminfo("MemAvailable");

	pthread_mutex_lock(&b->lock);
	if (b->mem.limit && b->mem.limit - b->mem.used < avail)
		avail = b->mem.limit - b->mem.used;
	pthread_mutex_unlock(&b->lock);
	*free_bytes = avail;
	*total = b->info.total_mem;
	return cudaSuccess;
}

static cudaError_t cpu_mem_alloc(struct ag_backend *b, uint64_t size, enum ag_mem_kind kind,
				 ag_dptr *out)
{
	pthread_mutex_lock(&b->lock);
	cudaError_t err = ag_mem_alloc(&b->mem, size, out);
	if (err)
		snprintf(b->msg, sizeof(b->msg),
			 "cannot allocate %llu bytes of device memory (%llu in use, limit %llu)",
			 (unsigned long long)size, (unsigned long long)b->mem.used,
			 (unsigned long long)b->mem.limit);
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* cudaFree waits for the device, so no queued work uses freed memory. */
static cudaError_t cpu_mem_free(struct ag_backend *b, ag_dptr p)
{
	pthread_mutex_lock(&b->lock);
	ag_cpu_wait_idle(b);
	cudaError_t err = ag_mem_free(&b->mem, p);
	if (err)
		snprintf(b->msg, sizeof(b->msg), "free of 0x%llx: not an allocation",
			 (unsigned long long)p);
	pthread_mutex_unlock(&b->lock);
	return err;
}

/* The host address of n bytes of device memory at p, with b->lock held, or
 * NULL when they are not all inside one allocation or module variable. */
static void *device_range(struct ag_backend *b, ag_dptr p, uint64_t n)
{
	if (ag_mem_contains(&b->mem, p, n))
		return (void *)(uintptr_t)p;
	for (struct ag_module *m = b->modules; m; m = m->next)
		for (const struct ag_var_desc *v = m->jm.vars; v->name; v++) {
			uint64_t a = (uint64_t)(uintptr_t)v->addr;
			if (p >= a && p - a <= v->size && n <= v->size - (p - a))
				return (void *)(uintptr_t)p;
		}
	return NULL;
}

static void *cpu_host_ptr(struct ag_backend *b, ag_dptr p)
{
	pthread_mutex_lock(&b->lock);
	void *h = device_range(b, p, 0);
	pthread_mutex_unlock(&b->lock);
	return h;
}

/* Checks a device range for a copy; sets the message when it is bad. */
static void *checked_range(struct ag_backend *b, ag_dptr p, uint64_t n, const char *what)
{
	pthread_mutex_lock(&b->lock);
	void *h = device_range(b, p, n);
	if (!h)
		snprintf(b->msg, sizeof(b->msg),
			 "%s: 0x%llx..+%llu is not device memory of this device", what,
			 (unsigned long long)p, (unsigned long long)n);
	pthread_mutex_unlock(&b->lock);
	return h;
}

static struct ag_cmd *copy_cmd(void *dst, const void *src, uint64_t n)
{
	struct ag_cmd *c = xcalloc(1, sizeof(*c));
	c->kind = AG_CMD_COPY;
	c->u.copy.dst = dst;
	c->u.copy.src = src;
	c->u.copy.n = n;
	return c;
}

/* How a copy returns: sync ones report the stream's error; async ones
 * with pageable host memory still wait for the copy (see backend.h). */
static enum ag_submit copy_mode(int async, int pageable_wait)
{
	if (!async)
		return AG_SUBMIT_SYNC;
	return pageable_wait ? AG_SUBMIT_DONE : AG_SUBMIT_ASYNC;
}

static cudaError_t cpu_copy_htod(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				 const void *src, uint64_t n, enum ag_host_kind hk, int async)
{
	if (n == 0)
		return cudaSuccess;
	void *d = checked_range(b, dst, n, "copy to device");
	if (!d || !src)
		return cudaErrorInvalidValue;
	struct ag_cmd *c = copy_cmd(d, src, n);
	int stage = async && hk == AG_HOST_PAGEABLE && n <= STAGE_MAX;
	if (stage) {
		c->owned = xmalloc(n);
		memcpy(c->owned, src, n);
		c->u.copy.src = c->owned;
	}
	return ag_cpu_submit(b, s, c, copy_mode(async, hk == AG_HOST_PAGEABLE && !stage));
}

static cudaError_t cpu_copy_dtoh(struct ag_backend *b, struct ag_stream *s, void *dst,
				 ag_dptr src, uint64_t n, enum ag_host_kind hk, int async)
{
	if (n == 0)
		return cudaSuccess;
	void *h = checked_range(b, src, n, "copy from device");
	if (!h || !dst)
		return cudaErrorInvalidValue;
	return ag_cpu_submit(b, s, copy_cmd(dst, h, n), copy_mode(async, hk == AG_HOST_PAGEABLE));
}

static cudaError_t cpu_copy_dtod(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
				 ag_dptr src, uint64_t n, int async)
{
	if (n == 0)
		return cudaSuccess;
	void *d = checked_range(b, dst, n, "copy to device");
	void *h = d ? checked_range(b, src, n, "copy from device") : NULL;
	if (!h)
		return cudaErrorInvalidValue;
	return ag_cpu_submit(b, s, copy_cmd(d, h, n), copy_mode(async, 0));
}

static cudaError_t cpu_memset(struct ag_backend *b, struct ag_stream *s, ag_dptr dst,
			      int value, uint64_t n, int async)
{
	if (n == 0)
		return cudaSuccess;
	void *d = checked_range(b, dst, n, "memset");
	if (!d)
		return cudaErrorInvalidValue;
	struct ag_cmd *c = xcalloc(1, sizeof(*c));
	c->kind = AG_CMD_MEMSET;
	c->u.set.dst = d;
	c->u.set.value = value;
	c->u.set.n = n;
	return ag_cpu_submit(b, s, c, copy_mode(async, 0));
}

/* The launch facts of one kernel, from the PTX and the compiled module. */
static void fill_func(struct ag_func *f, struct ag_module *m, const struct ag_kernel_desc *k,
		      const struct ptx_module *pm, uint32_t arch)
{
	const struct ptx_func *pf = ptx_find_func(pm, k->name);
	uint32_t n = pf ? pf->nparams : 0;
	/* One allocation for the three arrays ptx_param_layout() fills. */
	uint32_t *off = xcalloc(n + 1, sizeof(*off) * 3);
	uint32_t *size = off + n + 1, *align = size + n + 1;

	f->m = m;
	f->k = k;
	f->params = xcalloc(n + 1, sizeof(*f->params));
	f->info.param_bytes = pf ? ptx_param_layout(pf, off, size, align, n) : 0;
	for (uint32_t i = 0; i < n; i++)
		f->params[i] = (struct ag_param){ off[i], size[i], align[i] };
	free(off);
	f->info.name = k->name;
	f->info.nparams = n;
	f->info.params = f->params;
	f->info.max_threads = k->max_threads ? k->max_threads : 1024;
	f->info.static_shared = k->static_shared;
	f->info.local_bytes = k->local_bytes;
	f->info.nregs = pf ? pf->maxnreg : 0;	/* a CPU has no register budget */
	/* as a GPU's driver reports them: the virtual architecture the PTX
	 * targets (CUB picks its tuning from it, and a kernel it cannot find
	 * for the version is cudaErrorInvalidDeviceFunction), and the device's
	 * own, which the PTX was compiled for */
	f->info.ptx_version = arch;
	f->info.binary_version = CPU_CC;
}

static struct ag_module *new_module(const struct ag_jit_module *jm,
				    const struct ptx_module *pm, uint32_t arch)
{
	struct ag_module *m = xcalloc(1, sizeof(*m));
	m->jm = *jm;
	while (jm->kernels[m->nfuncs].name)
		m->nfuncs++;
	m->funcs = xcalloc(m->nfuncs + 1, sizeof(*m->funcs));
	for (unsigned i = 0; i < m->nfuncs; i++)
		fill_func(&m->funcs[i], m, &jm->kernels[i], pm, arch);
	return m;
}

/* PTX text to a loaded module: parse, translate, compile (or hit the cache). */
static cudaError_t load_ptx(struct ag_backend *b, const char *ptx, uint64_t len,
			    uint32_t arch, struct ag_module **out)
{
	struct ptx_module *pm = NULL;
	struct ptx_error perr = { 0 };
	struct strbuf err = STRBUF_INIT;
	struct ag_jit_module jm;

	if (ptx_parse(ptx, len, &pm, &perr) != 0) {
		ag_cpu_set_msg(b, "PTX (sm_%u) line %d:%d: %s", arch, perr.line, perr.col, perr.msg);
		return cudaErrorInvalidPtx;
	}
	if (ag_jit_load(ptx, len, pm, &jm, &err) != 0) {
		ag_cpu_set_msg(b, "%s", err.buf ? err.buf : "compile failed");
		sb_free(&err);
		ptx_free(pm);
		return cudaErrorInvalidPtx;
	}
	if (jm.compile_ms > 0 && getenv("ANYGPU_VERBOSE"))
		fprintf(stderr, "anygpu: cpu: compiled module %.16s (sm_%u PTX, %llu bytes) in %.0f ms\n",
			jm.key, arch, (unsigned long long)len, jm.compile_ms);
	*out = new_module(&jm, pm, arch);
	ptx_free(pm);
	return cudaSuccess;
}

static cudaError_t cpu_module_load(struct ag_backend *b, const void *image, uint64_t size,
				   struct ag_module **out)
{
	char err[1024] = "";
	char *ptx = NULL;
	uint64_t len = 0;
	uint32_t arch = 0;
	struct ag_module *m;

	int rc = fatbin_best_ptx(image, size, 0, &ptx, &len, &arch, err, sizeof(err));
	if (rc != 0) {
		ag_cpu_set_msg(b, "%s", err);
		return rc > 0 ? cudaErrorNoKernelImageForDevice : cudaErrorInvalidKernelImage;
	}
	cudaError_t e = load_ptx(b, ptx, len, arch, &m);
	free(ptx);
	if (e)
		return e;
	pthread_mutex_lock(&b->lock);
	m->next = b->modules;
	b->modules = m;
	pthread_mutex_unlock(&b->lock);
	*out = m;
	return cudaSuccess;
}

/* Unlinks m from b->modules if it is there; with b->lock held. */
static int unlink_module(struct ag_backend *b, struct ag_module *m)
{
	for (struct ag_module **p = &b->modules; *p; p = &(*p)->next)
		if (*p == m) {
			*p = m->next;
			return 1;
		}
	return 0;
}

static int known_module(struct ag_backend *b, struct ag_module *m)
{
	for (struct ag_module *t = b->modules; t; t = t->next)
		if (t == m)
			return 1;
	return 0;
}

static cudaError_t cpu_module_unload(struct ag_backend *b, struct ag_module *m)
{
	pthread_mutex_lock(&b->lock);
	ag_cpu_wait_idle(b);	/* no queued launch may outlive its code */
	int found = unlink_module(b, m);
	pthread_mutex_unlock(&b->lock);
	if (!found)
		return cudaErrorInvalidResourceHandle;
	free_module(m);
	return cudaSuccess;
}

static cudaError_t cpu_module_func(struct ag_backend *b, struct ag_module *m, const char *name,
				   struct ag_func **out, const struct ag_func_info **info)
{
	pthread_mutex_lock(&b->lock);
	int found = known_module(b, m);
	pthread_mutex_unlock(&b->lock);
	if (!found)
		return cudaErrorInvalidResourceHandle;
	for (unsigned i = 0; i < m->nfuncs; i++)
		if (strcmp(m->funcs[i].info.name, name) == 0) {
			*out = &m->funcs[i];
			if (info)
				*info = &m->funcs[i].info;
			return cudaSuccess;
		}
	ag_cpu_set_msg(b, "no kernel named %s in the module", name);
	return cudaErrorSymbolNotFound;
}

static cudaError_t cpu_module_var(struct ag_backend *b, struct ag_module *m, const char *name,
				  ag_dptr *addr, uint64_t *size)
{
	pthread_mutex_lock(&b->lock);
	int found = known_module(b, m);
	pthread_mutex_unlock(&b->lock);
	if (!found)
		return cudaErrorInvalidResourceHandle;
	for (const struct ag_var_desc *v = m->jm.vars; v->name; v++)
		if (strcmp(v->name, name) == 0) {
			*addr = (ag_dptr)(uintptr_t)v->addr;
			if (size)
				*size = v->size;
			return cudaSuccess;
		}
	ag_cpu_set_msg(b, "no variable named %s in the module", name);
	return cudaErrorSymbolNotFound;
}

static int known_func(struct ag_backend *b, const struct ag_func *f)
{
	for (struct ag_module *m = b->modules; m; m = m->next)
		if (f >= m->funcs && f < m->funcs + m->nfuncs)
			return 1;
	return 0;
}

/* What CUDA refuses before a launch is queued. */
static cudaError_t check_launch(struct ag_backend *b, const struct ag_func *f,
				const struct ag_launch_cfg *cfg, uint64_t param_bytes)
{
	const struct ag_device_info *d = &b->info;
	uint64_t threads = (uint64_t)cfg->block[0] * cfg->block[1] * cfg->block[2];
	uint64_t shared = (uint64_t)f->info.static_shared + cfg->shared;

	for (int i = 0; i < 3; i++)
		if (!cfg->grid[i] || !cfg->block[i] || cfg->grid[i] > (uint32_t)d->max_grid_dim[i] ||
		    cfg->block[i] > (uint32_t)d->max_block_dim[i]) {
			ag_cpu_set_msg(b, "%s: grid (%u,%u,%u) block (%u,%u,%u) is not a valid configuration",
				       f->info.name, cfg->grid[0], cfg->grid[1], cfg->grid[2],
				       cfg->block[0], cfg->block[1], cfg->block[2]);
			return cudaErrorInvalidConfiguration;
		}
	if (threads > (uint64_t)d->max_threads_per_block) {
		ag_cpu_set_msg(b, "%s: %llu threads per block, at most %d", f->info.name,
			       (unsigned long long)threads, d->max_threads_per_block);
		return cudaErrorInvalidConfiguration;
	}
	if (threads > f->info.max_threads) {
		ag_cpu_set_msg(b, "%s: %llu threads per block, the kernel allows %u", f->info.name,
			       (unsigned long long)threads, f->info.max_threads);
		return cudaErrorLaunchOutOfResources;
	}
	if (shared > d->shared_per_block_optin) {
		ag_cpu_set_msg(b, "%s: %llu bytes of shared memory, at most %llu", f->info.name,
			       (unsigned long long)shared,
			       (unsigned long long)d->shared_per_block_optin);
		return cudaErrorInvalidValue;
	}
	if (param_bytes != f->info.param_bytes) {
		ag_cpu_set_msg(b, "%s: %llu bytes of parameters, the kernel takes %u", f->info.name,
			       (unsigned long long)param_bytes, f->info.param_bytes);
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

static cudaError_t cpu_launch(struct ag_backend *b, struct ag_stream *s, struct ag_func *f,
			      const struct ag_launch_cfg *cfg, const void *params,
			      uint64_t param_bytes)
{
	pthread_mutex_lock(&b->lock);
	int found = known_func(b, f);
	pthread_mutex_unlock(&b->lock);
	if (!found)
		return cudaErrorInvalidResourceHandle;
	cudaError_t err = check_launch(b, f, cfg, param_bytes);
	if (err)
		return err;
	struct ag_cmd *c = xcalloc(1, sizeof(*c));
	c->kind = AG_CMD_LAUNCH;
	c->u.launch.f = f;
	c->u.launch.cfg = *cfg;
	c->owned = xmalloc(param_bytes);
	if (param_bytes)
		memcpy(c->owned, params, param_bytes);
	c->u.launch.params = c->owned;
	return ag_cpu_submit(b, s, c, AG_SUBMIT_ASYNC);
}

/* Device-side malloc is the one limit a CPU can hold a kernel to; the
 * stack and the printf buffer grow as needed.  As on a GPU, the heap and
 * the printf buffer cannot change once a kernel has used them. */
static cudaError_t cpu_set_limit(struct ag_backend *b, enum cudaLimit limit, uint64_t value)
{
	if (limit == cudaLimitMallocHeapSize && ag_exec_set_heap_limit(b->exec, value)) {
		ag_cpu_set_msg(b, "the malloc heap size cannot change after a kernel used malloc");
		return cudaErrorInvalidValue;
	}
	if (limit == cudaLimitPrintfFifoSize && ag_exec_printf_called(b->exec)) {
		ag_cpu_set_msg(b, "the printf buffer size cannot change after a kernel used printf");
		return cudaErrorInvalidValue;
	}
	return cudaSuccess;
}

const struct ag_backend_ops ag_cpu_backend = {
	.name = "cpu",
	.probe = cpu_probe,
	.open = cpu_open,
	.close = cpu_close,
	.last_message = cpu_last_message,
	.info = cpu_info,
	.mem_info = cpu_mem_info,
	.synchronize = ag_cpu_synchronize,
	.mem_alloc = cpu_mem_alloc,
	.mem_free = cpu_mem_free,
	.host_ptr = cpu_host_ptr,
	.copy_htod = cpu_copy_htod,
	.copy_dtoh = cpu_copy_dtoh,
	.copy_dtod = cpu_copy_dtod,
	.memset = cpu_memset,
	.module_load = cpu_module_load,
	.module_unload = cpu_module_unload,
	.module_func = cpu_module_func,
	.module_var = cpu_module_var,
	.launch = cpu_launch,
	.stream_create = ag_cpu_stream_create,
	.stream_destroy = ag_cpu_stream_destroy,
	.stream_sync = ag_cpu_stream_sync,
	.stream_query = ag_cpu_stream_query,
	.stream_wait_event = ag_cpu_stream_wait_event,
	.host_func = ag_cpu_host_func,
	.event_create = ag_cpu_event_create,
	.event_destroy = ag_cpu_event_destroy,
	.event_record = ag_cpu_event_record,
	.event_sync = ag_cpu_event_sync,
	.event_query = ag_cpu_event_query,
	.event_elapsed = ag_cpu_event_elapsed,
	.set_limit = cpu_set_limit,
	.tex_create = ag_cpu_tex_create,
	.tex_destroy = ag_cpu_tex_destroy,
};
