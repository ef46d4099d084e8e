/*
 * fault.h - runs a kernel block so that a memory fault in it (SIGSEGV,
 * SIGBUS) ends the block with an error instead of the process.
 */
#ifndef AG_CPU_FAULT_H
#define AG_CPU_FAULT_H

#include "cpu/kernel_abi.h"

struct ag_fault {
	int sig;        /* the signal, 0 when the block ran to its end */
	void *addr;     /* the faulting address */
};

/* Makes sure the process's SIGSEGV/SIGBUS handler is ours (once per
 * launch: others may install theirs at any time). */
void ag_fault_arm(void);

/* Runs fn(b) on the calling thread; fills *f.  The first call on a thread
 * gives it an alternate signal stack (freed when the thread ends), so that
 * a block that overflows its stack is caught too. */
void ag_fault_run(ag_kernel_fn fn, struct ag_block *b, struct ag_fault *f);

#endif
