# libcudart.so.12, the twin for programs built against CUDA 12.
# test_cudart12 is linked to it as such a program is (plain C, no nvcc):
# cudart12.symbols checks with objdump -T that its CUDA references carry
# the version libcudart.so.12 (and none libcudart.so.13), cudart12.run
# runs it on the cpu backend, which shows the loader accepts the twin and
# that the calls answer in CUDA 12's ABI.
if(NOT TARGET cudart12)
  return()
endif()
find_program(OBJDUMP objdump)

add_executable(test_cudart12 test_cudart12.c)
target_include_directories(test_cudart12 PRIVATE ${CMAKE_SOURCE_DIR}/src/runtime
  ${CUDA_INCLUDE_DIR})
target_link_libraries(test_cudart12 PRIVATE cudart12)

if(OBJDUMP)
  add_test(NAME unit.cudart12.symbols COMMAND sh -ec [=[
    syms=$("$1" -T "$2" | grep ' cuda')
    echo "$syms" | grep -q '(libcudart.so.12) cudaGetDeviceProperties_v2$'
    echo "$syms" | grep -q '(libcudart.so.12) cudaMemPrefetchAsync$'
    ! echo "$syms" | grep -v '(libcudart.so.12) ' | grep .
    ]=] sh ${OBJDUMP} $<TARGET_FILE:test_cudart12>)
  set_tests_properties(unit.cudart12.symbols PROPERTIES LABELS unit)
endif()
add_test(NAME unit.cudart12.run COMMAND test_cudart12)
set_tests_properties(unit.cudart12.run PROPERTIES LABELS unit
  PASS_REGULAR_EXPRESSION "^PASS test_cudart12" ENVIRONMENT "ANYGPU_BACKEND=cpu")
