/*
 * launch.c - kernel launches: <<<>>>'s call configuration, the stubs'
 * __cudaGetKernel/__cudaLaunchKernel, and cudaLaunchKernel.
 *
 * <<<grid, block, shmem, stream>>> pushes a configuration on a per-thread
 * stack; the host stub pops it and passes an array of pointers to its
 * arguments, without sizes.  The sizes and offsets come from the kernel's
 * PTX .param list (struct ag_func_info), which the backend gives when the
 * kernel is first resolved on a device: the arguments are packed into one
 * block and handed to the backend, which queues the launch and returns;
 * on a capturing stream the packed launch becomes a graph node instead.
 */
#include "graph.h"

#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

#define CONFIG_DEPTH 32

struct call_config {
	dim3 grid, block;
	size_t shared;
	cudaStream_t stream;
};

static __thread struct call_config configs[CONFIG_DEPTH];
static __thread int nconfigs;

RT_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
					    struct CUstream_st *stream)
{
	if (nconfigs == CONFIG_DEPTH)
		return 1;
	configs[nconfigs].grid = gridDim;
	configs[nconfigs].block = blockDim;
	configs[nconfigs].shared = sharedMem;
	configs[nconfigs].stream = stream;
	nconfigs++;
	return 0;
}

RT_API cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
					      void *stream)
{
	if (nconfigs == 0)
		return rt_error(cudaErrorMissingConfiguration);
	nconfigs--;
	*gridDim = configs[nconfigs].grid;
	*blockDim = configs[nconfigs].block;
	*sharedMem = configs[nconfigs].shared;
	*(cudaStream_t *)stream = configs[nconfigs].stream;
	return cudaSuccess;
}

RT_API cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
	struct rt_kernel *k = rt_kernel_find(hostFun);

	if (!kernel)
		return rt_error(cudaErrorInvalidValue);
	*kernel = (cudaKernel_t)k;
	return k ? cudaSuccess : rt_error(cudaErrorInvalidDeviceFunction);
}

RT_API cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
	return __cudaGetKernel(kernelPtr, entryFuncAddr);
}

static int dims_fit(dim3 v, const int32_t *max)
{
	return v.x >= 1 && v.y >= 1 && v.z >= 1 && v.x <= (uint32_t)max[0] &&
	       v.y <= (uint32_t)max[1] && v.z <= (uint32_t)max[2];
}

static cudaError_t check_config(const struct rt_device *d, struct rt_kernel *k,
				const struct ag_func_info *info, dim3 grid, dim3 block,
				size_t shared, int cooperative)
{
	uint64_t threads = (uint64_t)block.x * block.y * block.z;
	uint64_t blocks = (uint64_t)grid.x * grid.y * grid.z;

	if (!dims_fit(grid, d->info.max_grid_dim) || !dims_fit(block, d->info.max_block_dim))
		return cudaErrorInvalidConfiguration;
	if (threads > (uint64_t)d->info.max_threads_per_block)
		return cudaErrorInvalidConfiguration;
	/* Within the device's limit but not the kernel's (.maxntid, or its
	 * registers): what driver_types.h calls too many threads for the
	 * kernel's resources. */
	if (info->max_threads && threads > info->max_threads)
		return cudaErrorLaunchOutOfResources;
	/* Above the kernel's limit: 48 KiB less its static shared memory
	 * unless cudaFuncSetAttribute raised it. */
	if (shared > rt_kernel_attrs(k, d)->max_dyn_shared)
		return cudaErrorInvalidValue;
	/* All blocks of a cooperative grid must be resident at once. */
	if (cooperative && blocks > (uint64_t)d->info.sm_count * d->info.max_blocks_per_sm)
		return cudaErrorCooperativeLaunchTooLarge;
	return cudaSuccess;
}

/* Copies each argument to its offset in the .param block. */
static void pack_params(const struct ag_func_info *info, void **args, unsigned char *buf)
{
	memset(buf, 0, info->param_bytes);
	for (uint32_t i = 0; i < info->nparams; i++)
		memcpy(buf + info->params[i].offset, args[i], info->params[i].size);
}

cudaError_t rt_kernel_pack(struct rt_kernel *k, struct rt_device *d, void **args,
			   void **buf, uint32_t *bytes)
{
	const struct ag_func_info *info;
	struct ag_func *f;
	cudaError_t e = rt_kernel_func(k, d, &f, &info);

	if (e == cudaSuccess && info->nparams && !args)
		e = cudaErrorInvalidValue;
	if (e != cudaSuccess)
		return e;
	*buf = xmalloc(info->param_bytes ? info->param_bytes : 1);
	*bytes = info->param_bytes;
	pack_params(info, args, *buf);
	return cudaSuccess;
}

/* What a launch needs before its arguments: the stream, the kernel on the
 * stream's device, and a configuration that fits both. */
struct prepared {
	struct rt_device *d;
	struct ag_stream *s;
	struct ag_func *f;
	const struct ag_func_info *info;
};

static cudaError_t prepare(struct rt_kernel *k, dim3 grid, dim3 block, size_t shared,
			   cudaStream_t stream, int per_thread_default, int cooperative,
			   struct prepared *pr)
{
	cudaError_t e;

	pr->d = NULL;
	if (!k)
		return cudaErrorInvalidDeviceFunction;
	e = rt_stream_get(stream, per_thread_default, &pr->d, &pr->s);
	if (e == cudaSuccess)
		e = rt_kernel_func(k, pr->d, &pr->f, &pr->info);
	if (e == cudaSuccess)
		e = check_config(pr->d, k, pr->info, grid, block, shared, cooperative);
	return e;
}

/* Queues the launch, or records it as a node when the stream captures. */
static cudaError_t submit(const struct prepared *pr, struct rt_kernel *k, dim3 grid,
			  dim3 block, size_t shared, int cooperative, const void *params)
{
	struct rt_node_params p = { .type = cudaGraphNodeTypeKernel };
	struct ag_launch_cfg cfg = { 0 };
	int captured;
	cudaError_t e;

	p.u.kernel.k = k;
	p.u.kernel.func = k;
	p.u.kernel.grid = grid;
	p.u.kernel.block = block;
	p.u.kernel.cooperative = cooperative;
	p.u.kernel.shared = (unsigned)shared;
	p.u.kernel.params = params;
	p.u.kernel.bytes = pr->info->param_bytes;
	e = rt_capture_op(pr->d, pr->s, &p, &captured);
	if (e != cudaSuccess || captured)
		return e;
	cfg.grid[0] = grid.x, cfg.grid[1] = grid.y, cfg.grid[2] = grid.z;
	cfg.block[0] = block.x, cfg.block[1] = block.y, cfg.block[2] = block.z;
	cfg.shared = (uint32_t)shared;
	cfg.cooperative = cooperative;
	return rt_ops()->launch(pr->d->b, pr->s, pr->f, &cfg, params, pr->info->param_bytes);
}

static cudaError_t launch(struct rt_kernel *k, dim3 grid, dim3 block, void **args,
			  size_t shared, cudaStream_t stream, int per_thread_default,
			  int cooperative)
{
	unsigned char small[4096], *buf = small;
	struct prepared pr;
	cudaError_t e;

	e = prepare(k, grid, block, shared, stream, per_thread_default, cooperative, &pr);
	if (e == cudaSuccess && pr.info->nparams && !args)
		e = cudaErrorInvalidValue;
	if (e != cudaSuccess)
		return rt_result(pr.d, e);
	if (pr.info->param_bytes > sizeof(small))
		buf = xmalloc(pr.info->param_bytes);
	pack_params(pr.info, args, buf);
	e = submit(&pr, k, grid, block, shared, cooperative, buf);
	if (buf != small)
		free(buf);
	return rt_result(pr.d, e);
}

cudaError_t rt_launch_packed(struct rt_kernel *k, dim3 grid, dim3 block, size_t shared,
			     int cooperative, const void *params, uint32_t bytes,
			     cudaStream_t stream)
{
	struct prepared pr;
	cudaError_t e = prepare(k, grid, block, shared, stream, 0, cooperative, &pr);

	if (e == cudaSuccess && bytes != pr.info->param_bytes)
		e = cudaErrorInvalidValue;
	if (e == cudaSuccess)
		e = submit(&pr, k, grid, block, shared, cooperative, params);
	return rt_result(pr.d, e);
}

RT_API cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
				      void **args, size_t sharedMem, cudaStream_t stream)
{
	return launch(rt_kernel_find(kernel), gridDim, blockDim, args, sharedMem, stream, 0, 0);
}

RT_API cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
					   void **args, size_t sharedMem, cudaStream_t stream)
{
	return launch(rt_kernel_find(kernel), gridDim, blockDim, args, sharedMem, stream, 1, 0);
}

/* func is a host stub address or a cudaKernel_t: both are in the map. */
RT_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
				    size_t sharedMem, cudaStream_t stream)
{
	return launch(rt_kernel_find(func), gridDim, blockDim, args, sharedMem, stream, 0, 0);
}

RT_API cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
					 void **args, size_t sharedMem, cudaStream_t stream)
{
	return launch(rt_kernel_find(func), gridDim, blockDim, args, sharedMem, stream, 1, 0);
}

RT_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
					       void **args, size_t sharedMem,
					       cudaStream_t stream)
{
	return launch(rt_kernel_find(func), gridDim, blockDim, args, sharedMem, stream, 0, 1);
}

RT_API cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
						    dim3 blockDim, void **args,
						    size_t sharedMem, cudaStream_t stream)
{
	return launch(rt_kernel_find(func), gridDim, blockDim, args, sharedMem, stream, 1, 1);
}

/* The attributes of cudaLaunchKernelEx that change what runs; hints
 * (priority, carveout, scheduling preferences) are accepted and ignored. */
static cudaError_t launch_attrs(const cudaLaunchConfig_t *config, int *cooperative)
{
	static int said_cluster, said_event;

	*cooperative = 0;
	for (unsigned i = 0; i < config->numAttrs; i++) {
		const cudaLaunchAttribute *a = &config->attrs[i];

		switch (a->id) {
		case cudaLaunchAttributeCooperative:
			*cooperative = a->val.cooperative != 0;
			break;
		case cudaLaunchAttributeClusterDimension:
			if (a->val.clusterDim.x * a->val.clusterDim.y * a->val.clusterDim.z > 1) {
				rt_warn_once(&said_cluster, "thread block clusters of more than one "
					     "block (cudaLaunchAttributeClusterDimension) are not "
					     "supported: every block runs as a cluster of its own");
				return cudaErrorNotSupported;
			}
			break;
		case cudaLaunchAttributeProgrammaticEvent:
		case cudaLaunchAttributeLaunchCompletionEvent:
			rt_warn_once(&said_event, "launch completion events are not supported yet");
			return cudaErrorNotSupported;
		default:
			break;
		}
	}
	return cudaSuccess;
}

static cudaError_t launch_ex(const cudaLaunchConfig_t *config, const void *func, void **args,
			     int per_thread_default)
{
	int cooperative;
	cudaError_t e;

	if (!config || (config->numAttrs && !config->attrs))
		return rt_error(cudaErrorInvalidValue);
	e = launch_attrs(config, &cooperative);
	if (e != cudaSuccess)
		return rt_error(e);
	return launch(rt_kernel_find(func), config->gridDim, config->blockDim, args,
		      config->dynamicSmemBytes, config->stream, per_thread_default, cooperative);
}

RT_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
				       void **args)
{
	return launch_ex(config, func, args, 0);
}

RT_API cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config, const void *func,
					    void **args)
{
	return launch_ex(config, func, args, 1);
}
