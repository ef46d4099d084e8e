/*
 * kernel_abi.h - the contract between C code the translator generates and
 * the executor that runs it.
 *
 * The translator writes this file's text at the top of every generated
 * module (it must compile with no other header), so it holds only plain
 * declarations.  A generated module exports two tables:
 *
 *   const struct ag_kernel_desc ag_module_kernels[];   name == NULL ends it
 *   const struct ag_var_desc    ag_module_vars[];      name == NULL ends it
 *   const unsigned              ag_module_abi = AG_KERNEL_ABI;
 *
 * A kernel function runs one whole thread block: every warp of it, to the
 * end, with barriers handled inside (an AG_KF_ROWS kernel may be given
 * b->nb blocks of one row of the grid instead).  The executor calls it for
 * each block of the grid, from several threads at once (each with its own
 * struct ag_block).
 * Worker threads have AG_WORKER_STACK bytes of stack, so the generated code
 * may keep a block's registers in local arrays.
 */
#ifndef AG_KERNEL_ABI_H
#define AG_KERNEL_ABI_H

#define AG_KERNEL_ABI 5u
#define AG_WORKER_STACK (64u << 20)
/* Shared-memory offsets below this, added to a register with a base, share
 * one range test (affine.c, ag_zx_room): more than any block's shared
 * memory. */
#define AG_SH_ROOM (1 << 20)

struct ag_block;

/* Services the executor offers to kernels; every field is set. */
struct ag_services {
	/* printf: fmt is the format string, args the argument buffer laid
	 * out as nvcc does (natural alignment of each argument). */
	int (*vprintf)(struct ag_block *b, const char *fmt, const void *args);
	void *(*malloc)(struct ag_block *b, unsigned long long size);
	void (*free)(struct ag_block *b, void *p);
	/* __assertfail: records cudaErrorAssert with the message; the kernel
	 * then stops the block (returns). */
	void (*assertfail)(struct ag_block *b, const char *msg, const char *file,
			   unsigned line, const char *func);
	/* A fault the kernel detected (trap, barrier deadlock, bad call):
	 * err is a cudaError_t value; what is a short reason. */
	void (*fault)(struct ag_block *b, int err, const char *what);
	/* Memory for the block's own bookkeeping (warps, frames, slots): at
	 * least size bytes, 64-byte aligned, not cleared, valid until the
	 * block returns; NULL when out of memory.  It is the worker's, and
	 * the same from block to block (grown when a block needs more), so
	 * that its pages stay mapped: freed and allocated anew, a block's
	 * 100-odd KiB went back to the system and were faulted in and cleared
	 * again for every block.  A block asks once. */
	void *(*scratch)(struct ag_block *b, unsigned long long size);
	/* A second such memory, which the first's growing leaves in place:
	 * what a grid-stride loop's sweep leaves for the lockstep run of the
	 * same call (stride.c). */
	void *(*carry)(struct ag_block *b, unsigned long long size);
};

/* One launch; read-only while blocks run. */
struct ag_kernel_env {
	unsigned nctaid[3];
	unsigned ntid[3];
	const unsigned char *params;   /* packed .param block of the entry */
	unsigned dyn_shared;           /* bytes of extern .shared */
	const struct ag_services *svc;
	void *svc_ctx;                 /* the executor's, for the services */
	unsigned long long grid_ws;    /* a cooperative launch's zeroed grid
					* barrier word pair (what %envreg1:2
					* point to for grid.sync); 0 otherwise */
};

/* One block in flight. */
struct ag_block {
	const struct ag_kernel_env *env;
	unsigned ctaid[3];
	unsigned char *shared;  /* static shared (at the translator's offsets),
				 * then dynamic shared at the aligned end;
				 * 16-byte aligned, not cleared */
	volatile int error;     /* set by services: a cudaError_t, 0 if none;
				 * the kernel returns soon after it is set */
	unsigned worker;        /* index of the executing worker thread */
	unsigned tid[3];        /* the thread calling a service: the kernel
				 * sets it before assertfail/fault so that
				 * messages can name the thread */
	void *worker_ctx;       /* the executor's: whose scratch memory */
	unsigned nb;            /* blocks the call runs: ctaid[0] and the
				 * nb - 1 after it in the same row of the
				 * grid; more than 1 only for AG_KF_ROWS
				 * kernels, which move ctaid[0] along */
	const unsigned char *carry;     /* the registers each thread of the
					 * call's blocks from carry_c0 on
					 * had after its grid-stride loop,
					 * which the lockstep run takes up
					 * there (stride.c); NULL: none */
	unsigned carry_c0;
};

typedef void (*ag_kernel_fn)(struct ag_block *b);

struct ag_kernel_desc {
	const char *name;        /* the .entry name, mangled */
	ag_kernel_fn fn;
	unsigned static_shared;  /* bytes the translator laid out */
	unsigned local_bytes;    /* per thread */
	unsigned max_threads;    /* from .maxntid/.reqntid, else 0 */
	unsigned flags;          /* AG_KF_* */
};

#define AG_KF_BARRIER   1u   /* uses bar.sync and friends */
#define AG_KF_WARP      2u   /* uses warp-wide operations */
#define AG_KF_ROWS      4u   /* runs b->nb blocks a call, when the launch
			      * has no shared memory (threads that neither
			      * wait for nor see each other: any order) */
#define AG_KF_SWEEP     8u   /* with AG_KF_ROWS: even with shared memory
			      * (a grid-stride loop swept across the call's
			      * blocks first, each block then run alone) */

/* A module-scope .global or .const variable: its storage lives in the
 * generated .so (initialised as the PTX says); addr is that storage. */
struct ag_var_desc {
	const char *name;
	void *addr;
	unsigned long long size;
	unsigned space;          /* enum ptx_space value */
};

#endif
