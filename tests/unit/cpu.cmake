# cpu backend tests.  test_cpu_printf needs nothing but the formatter;
# test_cpu_stream drives streams, events and memory through backend.h with
# host functions, copies and memsets (no kernels); test_cpu_exec runs
# hand-written kernels on the block executor; test_cpu_kernel loads a
# fatbin that nvcc builds from cpu/kernels.cu and runs it end to end.
ag_unit_test(test_cpu_printf SOURCES test_cpu_printf.c
  ${CMAKE_SOURCE_DIR}/src/cpu/printf.c LIBS ag_util)

ag_unit_test(test_cpu_stream SOURCES test_cpu_stream.c LIBS ag_cpu)

ag_unit_test(test_cpu_exec SOURCES test_cpu_exec.c ${CMAKE_SOURCE_DIR}/src/cpu/exec.c
  ${CMAKE_SOURCE_DIR}/src/cpu/fault.c
  ${CMAKE_SOURCE_DIR}/src/cpu/printf.c LIBS ag_util Threads::Threads)

if(NOT NVCC)
  message(STATUS "nvcc not found: test_cpu_kernel is not built")
  return()
endif()
set(CPU_SRC ${CMAKE_CURRENT_SOURCE_DIR}/cpu)
set(CPU_OUT ${CMAKE_CURRENT_BINARY_DIR}/cpu)
file(MAKE_DIRECTORY ${CPU_OUT})
add_custom_command(OUTPUT ${CPU_OUT}/kernels.fatbin ${CPU_OUT}/noptx.fatbin
  COMMAND ${NVCC} -fatbin -gencode arch=compute_80,code=compute_80
    -o ${CPU_OUT}/kernels.fatbin ${CPU_SRC}/kernels.cu
  COMMAND ${NVCC} -fatbin -gencode arch=compute_80,code=sm_80
    -o ${CPU_OUT}/noptx.fatbin ${CPU_SRC}/kernels.cu
  DEPENDS ${CPU_SRC}/kernels.cu
  COMMENT "nvcc fixtures for test_cpu_kernel" VERBATIM)
add_custom_target(cpu_fixtures DEPENDS ${CPU_OUT}/kernels.fatbin ${CPU_OUT}/noptx.fatbin)
ag_unit_test(test_cpu_kernel SOURCES test_cpu_kernel.c LIBS ag_cpu)
target_compile_definitions(test_cpu_kernel PRIVATE FIXTURES="${CPU_OUT}")
add_dependencies(test_cpu_kernel cpu_fixtures)
