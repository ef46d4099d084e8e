/*
 * exec.h - runs the blocks of a grid on a pool of worker threads.
 *
 * One pool per backend instance: one worker per online CPU, created on the
 * first launch and kept until ag_exec_free(), each with an AG_WORKER_STACK
 * stack and its own shared-memory buffer.  A launch hands blocks out with an
 * atomic counter (the calling thread runs blocks too), stops handing them out
 * once a block reports an error, and returns the first error.  The pool also
 * implements the services (printf, malloc, assert, fault) of kernel_abi.h.
 */
#ifndef AG_CPU_EXEC_H
#define AG_CPU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "cpu/kernel_abi.h"
#include "util/strbuf.h"

struct ag_exec;

/* Where kernel printf text goes: one call of print per printf call. */
typedef void (*ag_print_fn)(void *ctx, const char *text, size_t len);

/* print NULL: stdout. */
struct ag_exec *ag_exec_new(ag_print_fn print, void *print_ctx);
void ag_exec_free(struct ag_exec *x);

/* The most bytes device-side malloc may have live at once; -1 (and no
 * change) once a kernel has called malloc or free, as the heap is then
 * laid out. */
int ag_exec_set_heap_limit(struct ag_exec *x, uint64_t bytes);
/* Whether a kernel has called printf (its buffer size is then fixed). */
int ag_exec_printf_called(struct ag_exec *x);

/* Runs every block of the grid env describes with k->fn.  Launches from
 * several threads are run one after the other.  resident: all blocks at
 * once, each on its own thread (cooperative launches, whose blocks may wait
 * for each other).  Returns 0 or the first cudaError_t a block reported,
 * with msg (msglen bytes) saying what. */
int ag_exec_run(struct ag_exec *x, const struct ag_kernel_desc *k,
		const struct ag_kernel_env *env, int resident, char *msg, size_t msglen);

/* printf.c: formats a device printf call (nvcc's argument buffer, each
 * argument at its natural alignment) into out.  Returns the number of
 * bytes appended. */
int ag_printf_format(struct strbuf *out, const char *fmt, const void *args);

#endif
