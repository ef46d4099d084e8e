/*
 * thrust_basics.cu - Thrust as most CUDA programs use it: a device_vector
 * filled by thrust::sequence, thrust::reduce, and thrust::sort of 4 Mi
 * unsigned keys (CUB's onesweep radix sort), each checked, with the time
 * each call takes.  Not part of the suite: a probe that Thrust runs on the
 * cpu backend, and of the first run's compile, which is long (Thrust's
 * module is some 20000 lines of PTX; docs/PERFORMANCE.md, "2026-12-05
 * 20:25 UTC").
 *
 *   nvcc -cudart shared -arch=sm_75 -O3 -o thrust_basics bench/probes/thrust_basics.cu
 *   time build/bin/anygpu run --backend cpu -- ./thrust_basics
 */
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <chrono>
#include <cstdio>

static double ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
		.count();
}

int main()
{
	const long long n = 1 << 22;
	thrust::device_vector<int> v(n);
	thrust::device_vector<unsigned> keys(n);

	thrust::sequence(v.begin(), v.end());
	auto t0 = std::chrono::steady_clock::now();
	long long sum = thrust::reduce(v.begin(), v.end(), 0LL);
	double reduce_ms = ms_since(t0);

	/* a permutation of 0 .. n-1 (2654435761 is odd) */
	thrust::sequence(keys.begin(), keys.end(), 12345u, 2654435761u);
	t0 = std::chrono::steady_clock::now();
	thrust::sort(keys.begin(), keys.end());
	double sort_ms = ms_since(t0);
	bool sorted = thrust::is_sorted(keys.begin(), keys.end());

	printf("thrust::reduce of %lld ints: %lld (want %lld), %.2f ms\n", n, sum, n * (n - 1) / 2,
	       reduce_ms);
	printf("thrust::sort of %lld keys: %s, %.1f ms\n", n, sorted ? "sorted" : "NOT SORTED",
	       sort_ms);
	return sum == n * (n - 1) / 2 && sorted ? 0 : 1;
}
