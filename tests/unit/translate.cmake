# The PTX -> C translator's semantics, on hand-written PTX run through the
# real JIT and block executor (needs the host C compiler at run time).
ag_unit_test(test_translate SOURCES test_translate.c LIBS ag_cpu)
