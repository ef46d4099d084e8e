/*
 * backends.c - the registry of backends compiled into this build.
 */
#include "backend.h"

#include <string.h>

static const struct ag_backend_ops *const backends[] = {
	&ag_cpu_backend,
	&ag_remote_backend,
	&ag_cuda_backend,
};

const struct ag_backend_ops *ag_backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
