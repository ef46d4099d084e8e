# The anygpu command, driven as a user would: its help, `anygpu nvcc`
# building real programs whose fatbins must then carry PTX (read back with
# `anygpu inspect`), and `anygpu run` refusing what it cannot run.
if(NOT NVCC OR NOT TARGET anygpu)
  message(STATUS "nvcc or the anygpu target missing: cli tests are not run")
  return()
endif()

set(CLI_OUT ${CMAKE_CURRENT_BINARY_DIR}/cli)
file(MAKE_DIRECTORY ${CLI_OUT})
set(CLI_CU ${CMAKE_CURRENT_SOURCE_DIR}/fatbin/kernels.cu)
get_filename_component(CLI_CUDA_HOME ${NVCC} DIRECTORY)
get_filename_component(CLI_CUDA_HOME ${CLI_CUDA_HOME} DIRECTORY)

# cli_test(NAME script): runs the sh script with $AG = the anygpu command,
# $OUT = a scratch directory, $CU = a CUDA source, $NVCC = plain nvcc.
function(cli_test name script)
  add_test(NAME cli.${name} COMMAND sh -ec "${script}")
  set_tests_properties(cli.${name} PROPERTIES LABELS unit TIMEOUT 120
    ENVIRONMENT "AG=${CMAKE_BINARY_DIR}/bin/anygpu;OUT=${CLI_OUT};CU=${CLI_CU};NVCC=${NVCC};CUDA_HOME=${CLI_CUDA_HOME}")
endfunction()

# Every command listed in `anygpu --help` answers --help and `help CMD`.
cli_test(help [=[
  $AG --version | grep -q '^anygpu [0-9]'
  cmds=$($AG --help | sed -n '/^Commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
  test -n "$cmds"
  for c in $cmds; do
    $AG $c --help | grep -q "usage: anygpu $c"
    $AG help $c | grep -q "usage: anygpu $c"
  done
  $AG --help | grep -q ANYGPU_CACHE_DIR
  if $AG nosuchcommand 2>/dev/null; then exit 1; fi
]=])

# No architecture given: the program gets -cudart shared and sm_75 PTX.
cli_test(nvcc_default [=[
  $AG nvcc -o $OUT/default $CU
  readelf -d $OUT/default | grep -q 'NEEDED.*libcudart\.so\.13'
  $AG inspect $OUT/default | grep -q 'PTX compute_75'
  $AG inspect --ptx $OUT/default | grep -q '\.entry fixture_add_one'
]=])

# Machine code only: PTX is added for the highest architecture named.
cli_test(nvcc_sass_only [=[
  $AG nvcc --verbose -gencode arch=compute_75,code=sm_75 -gencode=arch=compute_80,code=sm_80 \
    -o $OUT/sass $CU 2>$OUT/sass.err
  grep -q '^anygpu nvcc: .*arch=compute_80,code=compute_80' $OUT/sass.err
  $AG inspect $OUT/sass | grep -q 'PTX compute_80'
  if $AG inspect $OUT/sass | grep -q 'PTX compute_75'; then exit 1; fi
  $AG nvcc -arch=compute_75 -code=sm_75 -o $OUT/code $CU
  $AG inspect $OUT/code | grep -q 'PTX compute_75'
]=])

# What the user decided is kept: -cudart static stays (with a warning), and
# -arch=sm_80 gets no extra architecture.
cli_test(nvcc_respects_options [=[
  $AG nvcc -arch=sm_80 -cudart static -o $OUT/kept $CU 2>$OUT/kept.err
  grep -q 'warning: -cudart static' $OUT/kept.err
  if readelf -d $OUT/kept | grep -q libcudart; then exit 1; fi
  $AG inspect $OUT/kept | grep -q 'PTX compute_80'
  if $AG inspect $OUT/kept | grep -q 'sm_75'; then exit 1; fi
]=])

# nvcc's default links the CUDA runtime statically: run says how to rebuild.
cli_test(run_static [=[
  $NVCC -o $OUT/static $CU
  status=0
  $AG run -- $OUT/static 2>$OUT/static.err || status=$?
  test $status -eq 1
  grep -q 'static CUDA runtime' $OUT/static.err
  grep -q -- '-cudart shared' $OUT/static.err
]=])

cli_test(run_errors [=[
  status=0; $AG run -- no-such-program-anywhere 2>/dev/null || status=$?; test $status -eq 127
  status=0; $AG run -- $CU 2>$OUT/err || status=$?; test $status -eq 1
  grep -q 'not an ELF' $OUT/err
  status=0; $AG run --backend gpu true 2>/dev/null || status=$?; test $status -eq 2
  status=0; $AG run --server nohost true 2>/dev/null || status=$?; test $status -eq 2
  status=0; $AG run --token 2>/dev/null || status=$?; test $status -eq 2
  status=0; $AG run 2>/dev/null || status=$?; test $status -eq 2
]=])

# The environment the program gets, with anygpu's libcudart.so.13 built.
if(TARGET cudart)
  cli_test(run_environment [=[
    LD_LIBRARY_PATH=/elsewhere $AG run --backend cpu --server h:1,k:2 --token t -- env >$OUT/env
    lib=$(cd $(dirname $AG)/../lib && pwd -P)
    grep -qx "LD_LIBRARY_PATH=$lib:/elsewhere" $OUT/env
    grep -qx ANYGPU_BACKEND=cpu $OUT/env
    grep -qx ANYGPU_SERVER=h:1,k:2 $OUT/env
    grep -qx ANYGPU_TOKEN=t $OUT/env
    $AG run --server unix:/run/a.sock,tls:h:7070 -- env >$OUT/env
    grep -qx ANYGPU_SERVER=unix:/run/a.sock,tls:h:7070 $OUT/env
    status=0; $AG run --server unix: true 2>/dev/null || status=$?; test $status -eq 2
  ]=])
endif()
