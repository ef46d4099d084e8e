# PTX parser tests.  Hand-written snippets check the tree; real modules
# check that whatever nvcc writes parses.  The committed ptx/*.ptx run
# everywhere; where nvcc is found, ptx/*.cu are also compiled at build time
# (several architectures, -G, -lineinfo) so the corpus follows the toolkit.
set(PTX_SRC ${CMAKE_CURRENT_SOURCE_DIR}/ptx)
set(PTX_OUT ${CMAKE_CURRENT_BINARY_DIR}/ptx)
file(MAKE_DIRECTORY ${PTX_OUT})
set(PTX_FIXTURES)

# ptx_fixture(NAME SOURCE nvcc-flags...): PTX_OUT/NAME.ptx from SOURCE.cu.
function(ptx_fixture name src)
  add_custom_command(OUTPUT ${PTX_OUT}/${name}.ptx
    COMMAND ${NVCC} -ptx ${ARGN} -o ${PTX_OUT}/${name}.ptx ${PTX_SRC}/${src}.cu
    DEPENDS ${PTX_SRC}/${src}.cu
    COMMENT "nvcc fixture ${name}.ptx" VERBATIM)
  set(PTX_FIXTURES ${PTX_FIXTURES} ${PTX_OUT}/${name}.ptx PARENT_SCOPE)
endfunction()

if(NVCC)
  foreach(src matmul reduce funcs)
    ptx_fixture(${src}.sm75 ${src} -arch=sm_75)
    ptx_fixture(${src}.sm90 ${src} -arch=sm_90)
  endforeach()
  ptx_fixture(half.sm80 half -arch=sm_80)
  ptx_fixture(extra.sm80 extra -arch=sm_80)
  ptx_fixture(extra.sm90 extra -arch=sm_90)
  ptx_fixture(cluster.sm90 cluster -arch=sm_90)
  ptx_fixture(funcs.debug funcs -arch=sm_75 -G)
  ptx_fixture(reduce.lineinfo reduce -arch=sm_80 -lineinfo)
else()
  message(STATUS "nvcc not found: test_ptx uses the committed fixtures only")
endif()
add_custom_target(ptx_fixtures DEPENDS ${PTX_FIXTURES})

ag_unit_test(test_ptx SOURCES test_ptx.c LIBS ag_ptx)
target_compile_definitions(test_ptx PRIVATE PTX_FIXTURES="${PTX_SRC}"
  PTX_GENERATED="${PTX_OUT}")
add_dependencies(test_ptx ptx_fixtures)
