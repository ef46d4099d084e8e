/*
 * translate.h - PTX module to C source, for the cpu backend.
 *
 * The C that comes out includes kernel_abi.h's text and exports the tables it
 * describes; compiled with the host C compiler into a shared object, it runs
 * each kernel's blocks with the warp-lockstep model of docs/cpu-engine.md.
 */
#ifndef AG_CPU_TRANSLATE_H
#define AG_CPU_TRANSLATE_H

#include "ptx/ptx.h"
#include "util/strbuf.h"

/* Bumped whenever generated code changes meaning: part of the cache key. */
#define AG_TRANSLATOR_VERSION "34"

/* Which kernels run sixteen threads of a row at a time (src/cpu/group.c):
 * those the engine picks for it, every one whose control flow allows it
 * (which tests the group translation on all kernels), or none. */
enum ag_groups { AG_GROUPS_AUTO, AG_GROUPS_ALL, AG_GROUPS_OFF };

/* Appends the C translation of m to out.  0 on success; -1 with err set
 * (line of the offending PTX statement and a message that names the
 * instruction or construct, e.g. "unsupported instruction 'tex.2d'"). */
int ag_translate(const struct ptx_module *m, enum ag_groups groups, struct strbuf *out,
		 struct ptx_error *err);

#endif
