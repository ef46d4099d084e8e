# Runtime tests.  test_runtime_tables checks the runtime's two lookup
# structures (pointer map, allocation table) against simple references;
# the runtime's behaviour as a whole is tested by tests/cuda/runtime_*.cu.
ag_unit_test(test_runtime_tables SOURCES test_runtime_tables.c
  ${CMAKE_SOURCE_DIR}/src/runtime/ptrmap.c ${CMAKE_SOURCE_DIR}/src/runtime/memtable.c
  LIBS ag_util Threads::Threads)
target_include_directories(test_runtime_tables PRIVATE ${CMAKE_SOURCE_DIR}/src/runtime)
