/*
 * async_copy_sm90: async_copy.cu built for sm_90, where nvcc waits on
 * mbarriers with try_wait loops and passes arrival counts, plus the
 * expect_tx/complete_tx transaction counts of an mbarrier.
 */
// nvcc-flags: -arch=sm_90 -std=c++17
#define ASYNC_COPY_SM90 1
#define ASYNC_COPY_NAME "async_copy_sm90"
#include "async_copy.cu"
