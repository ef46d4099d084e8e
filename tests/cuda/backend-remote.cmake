# The remote backend: every CUDA test program runs a second time through
# `anygpu serve` (cpu backend) on a loopback TCP port with TLS and a token,
# as across a network, which the CTest fixture remote_serve starts before
# the first and stops after the last (tests/server/serve_fixture.sh); its
# env file tells each program the address, token and certificate.
if(NOT TARGET anygpu)
  return()
endif()
list(APPEND AG_CUDA_BACKENDS remote)
set(AG_REMOTE_DIR ${CMAKE_BINARY_DIR}/remote-serve)
set(AG_CUDA_ENVFILE_remote ${AG_REMOTE_DIR}/env)
set(AG_CUDA_FIXTURE_remote remote_serve)

add_test(NAME cuda.remote.serve_start
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/server/serve_fixture.sh start
    ${AG_REMOTE_DIR} $<TARGET_FILE:anygpu> tls)
add_test(NAME cuda.remote.serve_stop
  COMMAND sh ${CMAKE_SOURCE_DIR}/tests/server/serve_fixture.sh stop ${AG_REMOTE_DIR})
set_tests_properties(cuda.remote.serve_start PROPERTIES
  FIXTURES_SETUP remote_serve LABELS "cuda;cuda.remote"
  ENVIRONMENT "ANYGPU_CACHE_DIR=${CMAKE_BINARY_DIR}/kcache")
set_tests_properties(cuda.remote.serve_stop PROPERTIES
  FIXTURES_CLEANUP remote_serve LABELS "cuda;cuda.remote")
