# Fatbin reader tests, on what nvcc 13 really produces: each fixture is a
# .nv_fatbin section dumped from a program nvcc built one way (compression
# mode, architectures, PTX or not, -rdc), plus two nvcc objects linked into
# the test itself so that their registration wrappers (v1, and v2 from a
# device link) reach the test as they would reach libcudart.
if(NOT NVCC)
  message(STATUS "nvcc not found: test_fatbin is not built")
  return()
endif()

set(FB_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fatbin)
set(FB_OUT ${CMAKE_CURRENT_BINARY_DIR}/fatbin)
file(MAKE_DIRECTORY ${FB_OUT})
set(FB_FIXTURES)

# fatbin_fixture(NAME nvcc-flags...): FB_OUT/NAME.fatbin is the .nv_fatbin
# section of kernels.cu built with those flags.
function(fatbin_fixture name)
  add_custom_command(OUTPUT ${FB_OUT}/${name}.fatbin
    COMMAND ${NVCC} -cudart shared ${ARGN} -o ${FB_OUT}/${name}.exe ${FB_SRC}/kernels.cu
    COMMAND objcopy --dump-section .nv_fatbin=${FB_OUT}/${name}.fatbin ${FB_OUT}/${name}.exe /dev/null
    DEPENDS ${FB_SRC}/kernels.cu
    COMMENT "nvcc fixture ${name}.fatbin" VERBATIM)
  set(FB_FIXTURES ${FB_FIXTURES} ${FB_OUT}/${name}.fatbin PARENT_SCOPE)
endfunction()

fatbin_fixture(zstd -arch=sm_75)
fatbin_fixture(lz4 -arch=sm_75 --compress-mode=speed)
fatbin_fixture(plain -arch=sm_75 --compress-mode=none)
fatbin_fixture(all_zstd -arch=sm_75 -Xfatbin -compress-all)
fatbin_fixture(all_lz4 -arch=sm_75 --compress-mode=speed -Xfatbin -compress-all)
fatbin_fixture(noptx -gencode arch=compute_75,code=sm_75)
fatbin_fixture(multi -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80
  -gencode arch=compute_75,code=compute_75 -gencode arch=compute_86,code=compute_86)
fatbin_fixture(rdc -rdc=true -arch=sm_75)
add_custom_target(fatbin_fixtures DEPENDS ${FB_FIXTURES})

# The wrappers: whole.cu as one object (v1), rdc.cu compiled relocatable and
# device-linked (v2 from crt/link.stub).
add_custom_command(OUTPUT ${FB_OUT}/whole.o ${FB_OUT}/rdc.o ${FB_OUT}/rdc_dlink.o
  COMMAND ${NVCC} -c -arch=sm_75 -o ${FB_OUT}/whole.o ${FB_SRC}/whole.cu
  COMMAND ${NVCC} -c -rdc=true -arch=sm_75 -o ${FB_OUT}/rdc.o ${FB_SRC}/rdc.cu
  COMMAND ${NVCC} -dlink -arch=sm_75 -o ${FB_OUT}/rdc_dlink.o ${FB_OUT}/rdc.o
  DEPENDS ${FB_SRC}/whole.cu ${FB_SRC}/rdc.cu
  COMMENT "nvcc objects for the wrapper tests" VERBATIM)

ag_unit_test(test_fatbin SOURCES test_fatbin.c
  ${FB_OUT}/whole.o ${FB_OUT}/rdc.o ${FB_OUT}/rdc_dlink.o
  LIBS ag_fatbin stdc++)
target_compile_definitions(test_fatbin PRIVATE FIXTURES="${FB_OUT}")
add_dependencies(test_fatbin fatbin_fixtures)
