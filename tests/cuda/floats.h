/*
 * floats.h - arrays of floats for the tests that check kernels element
 * by element: copies to and from the device, and inputs with a pattern.
 */
#ifndef AG_TEST_FLOATS_H
#define AG_TEST_FLOATS_H

#include "check.h"

#include <vector>

static inline float *dev_floats(const std::vector<float> &h)
{
	float *d;

	CK(cudaMalloc(&d, h.size() * sizeof(float)));
	CK(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
	return d;
}

static inline std::vector<float> host_floats(const float *d, size_t n)
{
	std::vector<float> h(n);

	CK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
	return h;
}

/* small integers times scale, less 3: exact in float, and varied */
static inline std::vector<float> pattern(size_t n, float scale)
{
	std::vector<float> v(n);
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = (float)((i * 37 + 11) % 101) * scale - 3.0f;
	return v;
}

#endif
