/*
 * handles.c - sets of live handles (streams, events).
 *
 * A handle a program passes back may be destroyed, or garbage: looking it
 * up in the set of live ones turns that into cudaErrorInvalidResourceHandle
 * instead of a crash.  cudaDeviceReset frees every handle of the device.
 */
#include "rt.h"

#include <stdlib.h>

void rt_handle_add(struct rt_handles *hs, struct rt_handle *h)
{
	pthread_mutex_lock(&hs->lock);
	rt_ptrmap_put(&hs->map, h, h);
	pthread_mutex_unlock(&hs->lock);
}

void *rt_handle_find(struct rt_handles *hs, const void *p)
{
	void *h;

	pthread_mutex_lock(&hs->lock);
	h = rt_ptrmap_get(&hs->map, p);
	pthread_mutex_unlock(&hs->lock);
	return h;
}

int rt_handle_remove(struct rt_handles *hs, struct rt_handle *h)
{
	int found;

	pthread_mutex_lock(&hs->lock);
	found = rt_ptrmap_get(&hs->map, h) != NULL;
	rt_ptrmap_del(&hs->map, h);
	pthread_mutex_unlock(&hs->lock);
	return found;
}

/* The backend instance is closing and frees what the handles point to. */
void rt_handles_forget_device(struct rt_handles *hs, int dev)
{
	pthread_mutex_lock(&hs->lock);
	for (size_t i = 0; i < hs->map.cap; i++) {
		struct rt_handle *h = (struct rt_handle *)hs->map.keys[i];

		if (h && h->dev == dev) {
			rt_ptrmap_del(&hs->map, h);
			free(h);
			i--;    /* deletion may have shifted another key here */
		}
	}
	pthread_mutex_unlock(&hs->lock);
}
