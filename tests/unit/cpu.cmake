# cpu backend tests.  test_cpu_printf needs nothing but the formatter;
# test_cpu_stream drives streams, events and memory through backend.h with
# host functions, copies and memsets (no kernels); test_cpu_kernel loads a
# fatbin that nvcc builds from cpu/kernels.cu and runs it end to end.
ag_unit_test(test_cpu_printf SOURCES test_cpu_printf.c
  ${CMAKE_SOURCE_DIR}/src/cpu/printf.c LIBS ag_util)

ag_unit_test(test_cpu_stream SOURCES test_cpu_stream.c LIBS ag_cpu)
