/*
 * jit.h - PTX module to loaded machine code, through a compile cache.
 *
 * The PTX is translated to C (translate.h), compiled by the host C compiler
 * into a shared object named by a SHA-256 of that C and of everything else
 * that decides the machine code, and dlopen'ed; an index from the PTX text
 * to that name lets later loads skip the translation.  The cache lives in
 * $ANYGPU_CACHE_DIR, else $XDG_CACHE_HOME/anygpu, else ~/.cache/anygpu;
 * entries are published with rename(2), so processes may share it and
 * compile the same module at once.
 */
#ifndef AG_CPU_JIT_H
#define AG_CPU_JIT_H

#include <stddef.h>

#include "cpu/kernel_abi.h"
#include "ptx/ptx.h"
#include "util/strbuf.h"

struct ag_jit_module {
	void *dl;                               /* dlopen handle */
	const struct ag_kernel_desc *kernels;   /* name == NULL ends it */
	const struct ag_var_desc *vars;         /* name == NULL ends it */
	char key[65];                           /* hex SHA-256: the cache name */
	double compile_ms;                      /* 0 on a cache hit */
	int indexed;                            /* found through the cache's index:
						 * not translated */
};

/* Loads the machine code of m, parsed from the len bytes of PTX text ptx:
 * through the cache's index when it knows the text, else translated and
 * compiled on a cache miss.  0 on success; -1 with a message in err (the
 * PTX line the translator refused; or the compiler's first lines of output
 * and the path of the C file kept for inspection). */
int ag_jit_load(const char *ptx, size_t len, const struct ptx_module *m,
		struct ag_jit_module *out, struct strbuf *err);
void ag_jit_unload(struct ag_jit_module *jm);

/* The directory of the cache, created (0700) if missing.  0 or -1 with err. */
int ag_jit_cache_dir(struct strbuf *dir, struct strbuf *err);

#endif
