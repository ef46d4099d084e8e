# The cpu backend with every kernel whose control flow allows it run
# sixteen threads of a row at a time (src/cpu/group.c), not only the ones
# the engine picks for it: each CUDA test program runs once more so
# (ANYGPU_CPU_GROUPS=all), which tests the group translation on kernels
# of every kind.
if(NOT TARGET anygpu)
  return()
endif()
list(APPEND AG_CUDA_BACKENDS groups)
set(AG_CUDA_ENGINE_groups cpu)
set(AG_CUDA_ENV_groups ANYGPU_CPU_GROUPS=all)
