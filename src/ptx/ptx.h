/*
 * ptx.h - a PTX module as a tree: what the parser builds and the
 * translators read.
 *
 * The parser knows PTX's grammar (directives, declarations, statements,
 * operands) but not the meaning of each instruction: an instruction is its
 * opcode, its modifiers as written (".rn", ".f32", ".v4", ".global" ...) and
 * its operands.  The translator gives them meaning, so an instruction it does
 * not know is reported by name there, never silently mis-parsed here.
 *
 * All memory of a module lives in one arena freed by ptx_free().  Names
 * (opcodes, modifiers, registers, symbols) are interned: within a module,
 * equal names are the same pointer.
 */
#ifndef AG_PTX_H
#define AG_PTX_H

#include <stddef.h>
#include <stdint.h>

enum ptx_space {
	PTX_SPACE_NONE = 0,
	PTX_SPACE_REG,
	PTX_SPACE_SREG,
	PTX_SPACE_CONST,
	PTX_SPACE_GLOBAL,
	PTX_SPACE_LOCAL,
	PTX_SPACE_PARAM,
	PTX_SPACE_SHARED,
	PTX_SPACE_TEX,
};

enum ptx_type {
	PTX_T_NONE = 0,
	PTX_T_PRED,
	PTX_T_B8, PTX_T_B16, PTX_T_B32, PTX_T_B64, PTX_T_B128,
	PTX_T_U8, PTX_T_U16, PTX_T_U32, PTX_T_U64,
	PTX_T_S8, PTX_T_S16, PTX_T_S32, PTX_T_S64,
	PTX_T_F16, PTX_T_F16X2, PTX_T_BF16, PTX_T_BF16X2,
	PTX_T_F32, PTX_T_F64, PTX_T_TF32,
	PTX_T_TEXREF, PTX_T_SAMPLERREF, PTX_T_SURFREF,
};

/* Address inside an initializer: the value at 'offset' (size 'size' bytes)
 * is the address of 'symbol' plus 'addend' (from "{gv, generic(gv)+8}"). */
struct ptx_reloc {
	uint64_t offset;
	uint32_t size;
	int generic;
	const char *symbol;
	int64_t addend;
};

/* A declaration: .reg, .param, .shared, .global, .const, .local, .tex. */
struct ptx_var {
	enum ptx_space space;
	enum ptx_type type;
	const char *name;
	uint32_t align;         /* from .align, 0 when not given */
	uint32_t vec;           /* 1, 2 or 4 (.v2/.v4 declarations) */
	uint64_t count;         /* product of array dimensions; 1 when scalar */
	int is_array;           /* declared with [] */
	int unsized;            /* "name[]": extern shared or param arrays */
	uint32_t range;         /* %r<10> declares %r0..%r9: 10; else 0 */
	int is_extern, is_visible, is_weak, is_common;
	uint8_t ptr_space;      /* .param .ptr .global .align N: enum ptx_space */
	uint32_t ptr_align;
	const uint8_t *init;    /* initializer bytes, little-endian; NULL if none */
	uint64_t init_size;     /* bytes given; the rest of the variable is zero */
	const struct ptx_reloc *relocs;
	uint32_t nrelocs;
	int line;
	int is_managed;         /* .attribute(.managed): a __managed__ variable */
};

enum ptx_operand_kind {
	PTX_OP_REG,         /* %r1, %SP, a .reg name; also %tid.x (sreg) */
	PTX_OP_IMM,         /* integer literal: value in .i */
	PTX_OP_FIMM,        /* 0fXXXXXXXX (f32) or 0dXXXXXXXXXXXXXXXX (f64), or a decimal float */
	PTX_OP_SYM,         /* a variable, function or label name: address or target */
	PTX_OP_ADDR,        /* [base+offset]: base is a reg, a symbol, or none (absolute) */
	PTX_OP_VEC,         /* {a, b, c, d}: elements in .elems */
	PTX_OP_LIST,        /* (a, b, ...) in call: elements in .elems */
	PTX_OP_SINK,        /* _ */
};

struct ptx_operand {
	enum ptx_operand_kind kind;
	const char *name;           /* REG, SYM; ADDR base name (NULL = absolute) */
	int base_is_reg;            /* ADDR: base is a register */
	int neg;                    /* "!%p" predicate operand (a '-' before a
				     * number is folded into .i / .fbits) */
	const char *component;      /* "%r1.x" style suffix (x,y,z,w) or NULL;
				     * %tid.x arrives as name "%tid" component "x" */
	int64_t i;                  /* IMM value; ADDR offset; SYM offset
				     * ("mov.u64 %rd1, $str+4") */
	uint64_t fbits;             /* FIMM raw bits */
	int fsize;                  /* FIMM: 4 (0f) or 8 (0d / decimal) */
	const struct ptx_operand *elems;    /* VEC, LIST; for ADDR the operands
					     * after the base in the texture
					     * form "[tex, {%f1, %f2}]" */
	uint32_t nelems;
	/* "%r19|%p4": a second destination (shfl.sync, setp with two preds);
	 * NULL when absent. */
	const struct ptx_operand *pair;
};

struct ptx_insn {
	const char *guard;          /* "@%p1" -> "%p1"; NULL when unguarded */
	int guard_neg;              /* "@!%p1" */
	const char *opcode;         /* "add", "ld", "shfl", "call" ... */
	const char *const *mods;    /* ".sync", ".down", ".b32" as written, with the dot */
	uint32_t nmods;
	const struct ptx_operand *ops;
	uint32_t nops;
	int line;
};

/* .callprototype, declared as a label inside a function body:
 *   prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);  */
struct ptx_proto {
	const char *name;
	const struct ptx_var *rets;
	uint32_t nrets;
	const struct ptx_var *params;
	uint32_t nparams;
};

enum ptx_stmt_kind {
	PTX_STMT_INSN,
	PTX_STMT_LABEL,
	PTX_STMT_DECL,          /* a declaration inside a body */
	PTX_STMT_OPEN,          /* "{": a nested scope begins */
	PTX_STMT_CLOSE,         /* "}": it ends */
	PTX_STMT_PROTO,
	PTX_STMT_PRAGMA,        /* .pragma "nounroll"; text in .text */
	PTX_STMT_BRANCHTARGETS, /* label: .branchtargets a, b;  (for brx.idx) */
};

struct ptx_stmt {
	enum ptx_stmt_kind kind;
	int line;
	union {
		struct ptx_insn insn;
		const char *label;
		struct ptx_var decl;
		struct ptx_proto proto;
		const char *text;
		struct {
			const char *name;
			const char *const *labels;
			uint32_t nlabels;
		} targets;
	} u;
};

struct ptx_func {
	const char *name;
	int is_entry;               /* .entry (kernel) vs .func */
	int is_decl;                /* prototype only: no body (extern) */
	int is_extern, is_visible, is_weak;
	const struct ptx_var *params;
	uint32_t nparams;
	const struct ptx_var *rets; /* .func (.param .b32 r) f(...) */
	uint32_t nrets;
	uint32_t maxntid[3], reqntid[3];   /* 0 when not given */
	uint32_t reqnctapercluster[3];     /* 0 when not given */
	uint32_t minnctapersm, maxnreg, maxclusterrank;
	int noreturn;
	const struct ptx_stmt *body;
	uint32_t nbody;
	int line;
};

struct ptx_module {
	uint32_t version_major, version_minor;   /* .version 9.0 */
	const char *target;                      /* "sm_75" */
	const char *const *target_opts;          /* "texmode_independent", "debug" */
	uint32_t ntarget_opts;
	uint32_t address_size;                   /* 64 */
	const struct ptx_var *vars;              /* module-scope declarations */
	uint32_t nvars;
	const struct ptx_func *funcs;            /* in order of appearance */
	uint32_t nfuncs;
	struct ptx_arena *arena;
};

struct ptx_error {
	int line, col;              /* 1-based; 0 when not tied to a place */
	char msg[256];              /* "expected ';' after instruction, got 'foo'" */
};

/* Parses len bytes of PTX text (need not be NUL-terminated).  0 on success
 * with *out set; -1 with *err filled and *out NULL. */
int ptx_parse(const char *text, size_t len, struct ptx_module **out, struct ptx_error *err);
void ptx_free(struct ptx_module *m);

/* Sizes and helpers shared by the translators. */
uint32_t ptx_type_size(enum ptx_type t);        /* bytes; PRED is 1; 0 for NONE */
const char *ptx_type_name(enum ptx_type t);     /* "f32" */
enum ptx_type ptx_type_from_mod(const char *mod);  /* ".f32" -> PTX_T_F32, else NONE */
const struct ptx_func *ptx_find_func(const struct ptx_module *m, const char *name);

/* Layout of an .entry's parameter block as CUDA packs it: each parameter at
 * its alignment (.align if given, else its element size), in order.  Fills
 * up to max entries of offset/size/align; returns the total size. */
uint32_t ptx_param_layout(const struct ptx_func *f, uint32_t *offset,
			  uint32_t *size, uint32_t *align, uint32_t max);

#endif
