# run_test.cmake - runs one CUDA test program and judges it: exit status 0,
# a line starting with PASS on stdout, and every expected regex matched.
# Both streams are echoed so that ctest --output-on-failure shows them.
#   cmake -DCOMMAND=prog;args -DEXPECT_STDOUT=re;... -DEXPECT_STDERR=re;...
#         [-DENV_FILE=path] -P run_test.cmake
# ENV_FILE: VAR=value lines set in the environment first (how a fixture
# that starts a server tells the program where it is and how to log in).

if(ENV_FILE)
  file(STRINGS ${ENV_FILE} settings)
  foreach(kv ${settings})
    string(REGEX MATCH "^([A-Za-z_][A-Za-z0-9_]*)=(.*)$" ok "${kv}")
    if(ok)
      set(ENV{${CMAKE_MATCH_1}} "${CMAKE_MATCH_2}")
    endif()
  endforeach()
endif()

execute_process(COMMAND ${COMMAND}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("---- stdout\n${out}---- stderr\n${err}----")

set(failed)
if(NOT rc STREQUAL "0")
  list(APPEND failed "exit status ${rc}, want 0")
endif()
if(NOT out MATCHES "(^|\n)PASS")
  list(APPEND failed "no PASS line on stdout")
endif()
foreach(re ${EXPECT_STDOUT})
  if(NOT out MATCHES "${re}")
    list(APPEND failed "stdout does not match: ${re}")
  endif()
endforeach()
foreach(re ${EXPECT_STDERR})
  if(NOT err MATCHES "${re}")
    list(APPEND failed "stderr does not match: ${re}")
  endif()
endforeach()
if(failed)
  string(REPLACE ";" "\n  " failed "${failed}")
  message(FATAL_ERROR "FAILED:\n  ${failed}")
endif()
