/*
 * translate_int.h - what the translator's files share: the state of one
 * translation (module symbols, the function being translated, its scopes),
 * operands turned into C expressions, and the instruction emitters.
 *
 * Generated code conventions (see docs/cpu-engine.md): inside a lane loop
 * the lane is 'l', the warp 'w' (struct ag_warp *), the block 'b', the
 * frame of the function being run 'W', the active mask 'm[32]'.
 */
#ifndef AG_CPU_TRANSLATE_INT_H
#define AG_CPU_TRANSLATE_INT_H

#include <stdint.h>
#include <string.h>

#include "cpu/translate.h"

/*
 * What goes before every loop over the lanes of a half warp or group:
 * GCC unrolls a loop of sixteen turns whole before it would make vector
 * code of it, and then makes none.  A warp call's masks, made so with
 * thirty-two compares and byte stores, took a fifth of the time of a call
 * that shuffles and stores (46 -> 37 ns a warp kept a loop; the scan's
 * blocks 5 per cent, one thread).
 */
#define NO_UNROLL "#pragma GCC unroll 1\n"

enum tr_kind {
	TK_REG,         /* per-lane register: W->r<id>[l] */
	TK_PARAM,       /* callseq .param: per-lane bytes W->q<id>[l] */
	TK_FARG,        /* .func parameter or return: a[idx] + l * row */
	TK_EPARAM,      /* .entry parameter: prm + off */
	TK_LOCAL,       /* .local array: per-lane bytes W->d<id>[l] */
	TK_SHARED,      /* static .shared: sh + off */
	TK_DYNSHARED,   /* extern .shared: sh + w->dyn */
	TK_GVAR,        /* module .global/.const: ag_v<id> */
	TK_FUNC,        /* a function: ag_f<id> */
};

struct tr_sym {
	const char *name;       /* PTX name; the prefix for %r<N> ranges */
	uint32_t range;         /* N of %r<N>; 0 for one name */
	enum tr_kind kind;
	enum ptx_type type;     /* storage type of registers */
	uint32_t id;            /* C name number */
	uint64_t off, size;     /* shared/param offset; bytes */
	const struct ptx_var *var;
	int local;              /* a register held in C locals (fast path) */
};

/* Per function, what kernels need to know about everything they reach. */
struct tr_fninfo {
	uint32_t shared_end;    /* end of the static .shared it uses */
	uint32_t *callees;
	uint32_t ncallees;
	int indirect;           /* calls through a pointer */
	unsigned flags;         /* AG_KF_* of its own body */
	int barrier_line;       /* a block barrier in its body (0: none) */
	uint32_t local_bytes;   /* .local bytes per thread */
	uint32_t shared_base;   /* where its own .shared declarations start
				 * (a kernel's: past what it reaches of the
				 * module's, translate.c) */
	struct tr_shared_at {   /* a device function's: the offsets of the */
		const struct ptx_var *v;        /* .shared declarations in */
		uint32_t off;                   /* its body (translate.c, */
	} *shared_at;                           /* layout_shared) */
	uint32_t nshared_at;
	int spins;              /* waits on mbarriers (a stack per warp) */
	struct tr_stride *stride;       /* a kernel's grid-stride loop that is
					 * swept (stride.c), or NULL */
};

struct tr {
	const struct ptx_module *m;
	struct ptx_error *err;

	struct tr_sym *msyms;   /* module variables and functions */
	uint32_t nmsyms;
	uint32_t shared_size;   /* the end of the static .shared laid out */
	struct tr_fninfo *fi;   /* per m->funcs[] */

	/* the function being translated */
	uint32_t fidx;
	const struct ptx_func *fn;
	struct strbuf frame;    /* fields of its frame struct */
	struct strbuf kept;     /* and after them, the forms that last a loop
				 * of one block (steady.c) */
	struct strbuf code;     /* its run function's body */
	struct tr_sym *syms;    /* params and declarations in scope */
	uint32_t nsyms, capsyms;
	uint32_t *scopes;       /* nsyms at each open '{' */
	uint32_t nscopes;
	uint32_t ndecl;         /* C names handed out */
	const char **labels;
	uint32_t *label_bb;
	uint32_t nlabels;
	uint32_t bb, nbb;       /* basic block being emitted; count */
	uint32_t nextra;        /* blocks after nbb: bar.red resumptions */
	struct strbuf tail;     /* their code, emitted after the others */
	uint32_t tmp;           /* unique temporaries */
	int fused;              /* a lane loop spanning instructions is open */
	size_t fused_at;        /* where its body starts in code */
	struct tr_seg *segs;    /* its instructions (vector.c) */
	uint32_t nsegs, capsegs;
	unsigned nsites;        /* loads and stores that may prefetch */
	struct tr_live *live;   /* the function's liveness (tr_liveness) */
	int lived;              /* live was looked for */
	struct tr_forms *forms; /* its guessed access forms, or NULL */
	struct tr_consts *consts;       /* its constant registers, or NULL */
	struct tr_uniform *uniform;     /* the lockstep kernel's uniform
					 * registers, or NULL */
	struct tr_steady *steady;       /* the block being emitted, when it is a
					 * loop of one block (steady.c), or NULL */
	const struct ptx_insn *counter; /* the block's setp that counts the
					 * lanes of its branch's predicate
					 * (ag_cnt), or NULL */
	struct strbuf vars;     /* the run function's own variables */
	int has_cnt, has_keep;  /* vars declares ag_cnt; ag_keep and ag_steady */

	/* the fast path (translate_fast.c): one thread at a time */
	int scalar;             /* translating the scalar version */
	int records;            /* its global loads and stores tell ag_rec
				 * their addresses (ag_prefetch_block) */
	unsigned nrec[2];       /* how many of each have */
	struct strbuf locals;   /* its register declarations */
	uint8_t *scalar_done;   /* per m->funcs[]: scalar version emitted */
	struct tr_sym *regs;    /* its registers, which barriers keep in the */
	uint32_t nregs, capregs;        /* thread's slot S */
	uint32_t nresume;       /* barriers: points where a thread resumes */
	struct tr_aff *aff;     /* the kernel's registers with a base, or NULL */
	struct tr_stride *stride;       /* the kernel's grid-stride loop, when
					 * it is swept (stride.c), or NULL */
	int past_loop;          /* the scalar translation of such a kernel
				 * is past END, which it leaves out */
	struct tr_remat *remat; /* those barriers recompute, or NULL */

	/* the group translation (group.c): sixteen threads of a row at once */
	enum ag_groups groups;  /* which kernels get it */
	struct tr_shape *shape; /* its registers' shapes; NULL: not translating it */
	struct tr_group *grp;   /* its loop over the lanes */
};

/* translate.c */
int tr_fail(struct tr *t, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int tr_unsupported(struct tr *t, const struct ptx_insn *in, const char *why);
const struct tr_sym *tr_msym(const struct tr *t, const char *name);
uint32_t tr_func_index(const struct tr *t, const char *name);

extern const char ag_translate_prelude[];

/* translate_func.c: appends the frame struct, run function and entry
 * point (block function or callable) of m->funcs[fidx] to out. */
int tr_function(struct tr *t, uint32_t fidx, struct strbuf *out);
/* The code of one instruction of the function being translated (or of
 * one made up for it: stride.c). */
int tr_emit_insn(struct tr *t, const struct ptx_insn *in);
/* The liveness of the function being translated (live.c), found on first
 * use and kept until it is done; NULL when it cannot be told. */
const struct tr_live *tr_liveness(struct tr *t);
const struct tr_sym *tr_lookup(const struct tr *t, const char *name);
uint32_t tr_label_bb(const struct tr *t, const char *label);
int tr_branch_target(struct tr *t, const struct ptx_insn *in, uint32_t *to);
int tr_call_arg(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
		const struct ptx_var *want, struct strbuf *sb);

/* translate_operand.c: types and operands as C */
const char *tr_ctype(enum ptx_type ty);
enum ptx_type tr_storage(enum ptx_type declared);
enum ptx_type tr_uint(uint32_t bytes);
enum ptx_type tr_sint(uint32_t bytes);
int tr_is_float(enum ptx_type ty);
int tr_is_signed(enum ptx_type ty);
uint32_t tr_size(enum ptx_type ty);
void tr_conv(struct strbuf *sb, enum ptx_type from, enum ptx_type to, const char *e);
int tr_src(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	   enum ptx_type ty, struct strbuf *sb);
int tr_dst(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	   enum ptx_type ty, const char *expr);
int tr_addr(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	    enum ptx_space space, struct strbuf *sb);
int tr_addr_shared_by_lanes(const struct tr *t, const struct ptx_operand *o);
int tr_row(uint64_t size);
int tr_reg_lvalue(struct tr *t, const char *name, struct strbuf *sb);
uint32_t tr_reg_index(const struct tr_sym *s, const char *name);
void tr_ptx_name(const struct tr_sym *s, uint32_t i, struct strbuf *sb);
void tr_local_name(const struct tr_sym *s, uint32_t i, struct strbuf *sb);
void tr_wrap(struct strbuf *e, const char *fn);     /* e = fn(e) */
void tr_lanes_begin(struct tr *t, const struct ptx_insn *in);
void tr_lanes_end(struct tr *t);

/* localize.c: a lockstep block's own registers move to the stack */
void tr_localize(struct tr *t, const struct ptx_insn *const *ins, uint32_t n, size_t at);
void tr_move_row(struct tr *t, const char *reg, struct strbuf *code, struct strbuf *decl,
		 int lanes);

/* Whether s is one of the n strings of list. */
static inline int tr_in_list(const char *const *list, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

/* Statement i of fn's body if it is an instruction (and there is one). */
static inline const struct ptx_insn *tr_insn_at(const struct ptx_func *fn, uint32_t i)
{
	return i < fn->nbody && fn->body[i].kind == PTX_STMT_INSN ? &fn->body[i].u.insn : NULL;
}

/* The index in fn's body of the statement that is instruction in. */
static inline uint32_t tr_stmt_of(const struct ptx_func *fn, const struct ptx_insn *in)
{
	return (uint32_t)(((const char *)in - (const char *)&fn->body[0].u.insn) /
			  sizeof(fn->body[0]));
}

/* Whether in loads from memory (ld, ldu). */
static inline int tr_is_load(const struct ptx_insn *in)
{
	return !strcmp(in->opcode, "ld") || !strcmp(in->opcode, "ldu");
}

/* Whether in writes memory (st, atom, red). */
static inline int tr_writes_memory(const struct ptx_insn *in)
{
	return !strcmp(in->opcode, "st") || !strcmp(in->opcode, "atom") ||
		!strcmp(in->opcode, "red");
}

/* Whether in ends its thread (ret, exit, trap). */
static inline int tr_is_stop(const struct ptx_insn *in)
{
	return !strcmp(in->opcode, "ret") || !strcmp(in->opcode, "exit") ||
		!strcmp(in->opcode, "trap");
}

/* Whether in is a block barrier of any spelling (bar, barrier). */
static inline int tr_is_barrier(const struct ptx_insn *in)
{
	return !strcmp(in->opcode, "bar") || !strcmp(in->opcode, "barrier");
}

/* ifconv.c: a copy of m whose short branches over lane-local
 * instructions are guards on them instead, or NULL when it has none */
const struct ptx_module *tr_ifconv(const struct ptx_module *m);
void tr_ifconv_free(const struct ptx_module *orig, const struct ptx_module *conv);

/* forms.c: the form a lockstep access through register reg, of size
 * bytes per lane, is likely to take (vector.c tests it at run time), and
 * for TR_FORM_STEP its step (*step, unless step is NULL; else 0) */
enum tr_form { TR_FORM_UNKNOWN, TR_FORM_DENSE, TR_FORM_SAME, TR_FORM_STEP };
struct tr_forms;
struct tr_forms *tr_forms_scan(const struct ptx_func *fn);
enum tr_form tr_forms_guess(const struct tr_forms *f, const char *reg, uint32_t size,
			    uint32_t *step);
void tr_forms_free(struct tr_forms *f);

/* flow.c: a function's instructions and their successors (UINT32_MAX:
 * none; n: the end of the body); -1 when a branch cannot be followed */
struct tr_flow {
	const struct ptx_insn **ins;
	uint32_t n;
	uint32_t *next, *jump;  /* the next instruction; a branch's target */
	uint8_t *ends;          /* may end the thread: ret, exit, trap */
};
int tr_flow_build(const struct ptx_func *fn, struct tr_flow *f);
void tr_flow_free(struct tr_flow *f);
uint32_t tr_label_stmt(const struct ptx_func *fn, const char *label);  /* its statement,
									 * or UINT32_MAX */

/* consts.c: registers whose one write is an unguarded mov of an
 * immediate; tr_const_def gives that mov and its type, or NULL;
 * tr_one_def the one instruction that writes reg, or NULL (none, more).
 * tr_consts_scan_to counts only the writes in statements [0, end): what
 * code that never runs past end sees (stride.c). */
struct tr_consts;
struct tr_consts *tr_consts_scan(const struct ptx_func *fn);
struct tr_consts *tr_consts_scan_to(const struct ptx_func *fn, uint32_t end);
const struct ptx_insn *tr_one_def(const struct tr_consts *c, const char *reg);
const struct ptx_insn *tr_const_def(const struct tr_consts *c, const char *reg,
				    enum ptx_type *ty);
void tr_consts_free(struct tr_consts *c);
/* The integer every write of reg that reaches instruction i of f sets: 1,
 * or 0 when they differ, one is no mov of an integer, or none may. */
int tr_const_at(const struct tr_flow *f, uint32_t i, const char *reg, int64_t *k);

/* uniform.c: registers of a kernel that hold one value in all the lanes
 * that read them (NULL: none known); and those a thread writes once at
 * most, by an instruction on no loop */
struct tr_uniform;
struct tr_uniform *tr_uniform_scan(const struct ptx_module *m, const struct ptx_func *fn);
int tr_uniform_reg(const struct tr_uniform *u, const char *reg);
int tr_uniform_once(const struct tr_uniform *u, const char *reg);
void tr_uniform_free(struct tr_uniform *u);

/* steady.c: whether the fused form of an access through register reg at
 * instruction at, in a loop of one block, lasts from turn to turn (then
 * the tests it relies on once are added to tests, those of every turn to
 * turn) */
struct tr_steady;
struct tr_steady *tr_steady_scan(struct tr *t, const struct ptx_insn *const *ins, uint32_t n);
int tr_steady_reg(const struct tr_steady *s, const struct ptx_insn *at, const char *reg,
		  struct strbuf *tests, struct strbuf *turn);
void tr_steady_free(struct tr_steady *s);

/* vector.c: runs of lane-local instructions, and their full-warp form;
 * whether instruction in (NULL: none) writes register reg, and the
 * registers it writes (how many; the first max of them in v); whether
 * a function reads a register; whether in mentions reg as its guard or
 * in an operand from the from'th on */
void tr_fuse(struct tr *t, int open);
int tr_writes(const struct ptx_insn *in, const char *reg);
#define TR_MAX_DESTS 8
uint32_t tr_dests(const struct ptx_insn *in, const char **v, uint32_t max);
int tr_written(const struct ptx_func *fn, const char ***names, uint32_t *count);
int tr_read(const struct ptx_func *fn, const struct ptx_insn *self, const char *reg);
int tr_mentions(const struct ptx_insn *in, const char *reg, uint32_t from);
struct tr_access {
	uint32_t size;          /* bytes per lane */
	int store;
	int prefetch;           /* worth asking for its next lines */
	const char *reg;        /* the address register, if adding the
				 * offset keeps lanes' differences */
	int64_t off;            /* and that offset */
};
void tr_seg(struct tr *t, const struct ptx_insn *in, int own);
void tr_seg_access(struct tr *t, const char *addr, const struct tr_access *ac);
void tr_seg_one_address(struct tr *t);
void tr_seg_guard(struct tr *t, size_t at);
void tr_segs_free(struct tr *t);
int tr_guard(struct tr *t, const struct ptx_insn *in, struct strbuf *sb);

/* Modifiers: every one must be a type or listed in allowed (words
 * separated by spaces); types are returned in order.  -1 with an error
 * naming the instruction otherwise. */
int tr_mods(struct tr *t, const struct ptx_insn *in, const char *allowed,
	    enum ptx_type *types, uint32_t ntypes_max, uint32_t *ntypes);
int tr_has(const struct ptx_insn *in, const char *mod);
int tr_nops(struct tr *t, const struct ptx_insn *in, uint32_t lo, uint32_t hi);

/* Instruction emitters: 0, or -1 with t->err set. */
typedef int (*tr_emit_fn)(struct tr *t, const struct ptx_insn *in);
tr_emit_fn tr_arith_emitter(const char *opcode);
tr_emit_fn tr_cvt_emitter(const char *opcode);
tr_emit_fn tr_mem_emitter(const char *opcode);
tr_emit_fn tr_warp_emitter(const char *opcode);
tr_emit_fn tr_tex_emitter(const char *opcode);
/* emit_arith.c: the comparison of a setp as lane l reads it, and whether
 * it orders 32-bit integers (1 signed, 2 unsigned; 0 other; -1 failure) */
int tr_setp_order(struct tr *t, const struct ptx_insn *in, struct strbuf *e);

/* emit_async.c: cp (cp.async and its group, wait and mbarrier forms,
 * the 1D cp.async.bulk copies), mbarrier, st.async, mapa and getctarank,
 * registered by the mem and warp emitter tables. */
int tr_emit_cp(struct tr *t, const struct ptx_insn *in);
int tr_emit_mbarrier(struct tr *t, const struct ptx_insn *in);
int tr_emit_st_async(struct tr *t, const struct ptx_insn *in);
int tr_emit_cluster_addr(struct tr *t, const struct ptx_insn *in);     /* mapa, getctarank */
int tr_sreg(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *o,
	    struct strbuf *sb, enum ptx_type *ty);

/* translate_fast.c: the scalar translation of kernels that cannot observe
 * lockstep.  tr_fast_kernel emits it for entry (with seen[] the functions
 * it reaches) and returns 1, TR_FAST_ROWS when its block function runs a
 * row of blocks in one call (AG_KF_ROWS), TR_FAST_SWEEP when it does so
 * even with shared memory (AG_KF_SWEEP: a swept grid-stride loop, each
 * block then in lockstep alone), or 0 when the kernel needs lockstep;
 * tr_lockstep_rows: whether a lockstep kernel's call may run a row of
 * blocks together (a grid-stride loop sharing nothing between blocks);
 * tr_lockstep_wide: whether a kernel's lockstep run function asks for the
 * widest vectors. */
#define TR_FAST_ROWS 2
#define TR_FAST_SWEEP 3
int tr_fast_kernel(struct tr *t, uint32_t entry, const uint8_t *seen, uint32_t dyn,
		   struct strbuf *out);
int tr_lockstep_rows(const struct tr *t, uint32_t entry, const uint8_t *seen);
int tr_lane_sreg(const char *name);     /* %laneid and the like */
/* The call that runs the call's blocks in lockstep (ag_block_run) */
void tr_emit_block_run(struct strbuf *out, const char *indent, uint32_t entry, uint32_t dyn,
		       int co, uint32_t psize);
/* A block function nameN that runs its block so */
void tr_emit_lockstep_block(struct strbuf *out, const char *name, uint32_t entry, uint32_t dyn,
			    int co, uint32_t psize);
int tr_warp_op(const char *opcode);     /* shfl, vote and the like */
int tr_plain_barrier(const struct ptx_insn *in); /* bar.sync 0 and its spellings */
enum ptx_space tr_space_of(const struct ptx_insn *in);  /* emit_mem.c: from its modifiers */
int tr_fast_straight(const struct ptx_func *fn);
int tr_lockstep_wide(const struct tr *t, uint32_t entry);
void tr_fast_locals(struct tr *t, struct tr_sym *s);

/* live.c: the registers live after each instruction of a function;
 * tr_live_scan gives NULL when it cannot tell (then all are).
 * tr_live_after: after its k'th barrier, in body order from 1;
 * tr_live_out: after instruction in.
 * tr_live_run: those that live only inside a run of instructions. */
struct tr_live;
struct tr_live *tr_live_scan(const struct ptx_func *fn);
int tr_live_after(const struct tr_live *lv, uint32_t k, const char *reg);
int tr_live_out(const struct tr_live *lv, const struct ptx_insn *in, const char *reg);
uint32_t tr_live_run(const struct tr_live *lv, const struct ptx_insn *const *run, uint32_t n,
		     const char ***regs);
void tr_live_free(struct tr_live *lv);
int tr_redeclared(const struct ptx_func *fn);   /* a register name declared twice */
/* A list of register names, repeats allowed; tr_insn_regs adds every one
 * an instruction mentions, its guard included; tr_insn_reads those it
 * reads: its guard, a store's or atomic's address (the first operand, no
 * destination then) and every later operand (special registers too). */
struct tr_names {
	const char **v;
	uint32_t n, cap;
};
void tr_names_add(struct tr_names *s, const char *name);
void tr_names_clear(struct tr_names *s);
void tr_names_free(struct tr_names *s);
static inline int tr_names_has(const struct tr_names *s, const char *name)
{
	return tr_in_list(s->v, s->n, name);
}
void tr_insn_regs(const struct ptx_insn *in, struct tr_names *s);
void tr_insn_reads(const struct ptx_insn *in, struct tr_names *s);

/* stride.c: a kernel's grid-stride loop swept turn by turn over virtual
 * blocks.  tr_stride_scan: 1 when fn's only loop is one that may, or a
 * loop after a barrier that each block may sweep for its own threads (s
 * then says where), else 0.  With t->stride set, the emitters ask:
 * tr_stride_scalar, in the scalar translation, whether an instruction is
 * left out or replaced (1), to be emitted (0), or failed (-1);
 * tr_stride_block, there too, at the start of the basic block that begins
 * at statement i (the loop's head, END); tr_stride_guard, in the lockstep
 * translation, before the guard's branch (0, or -1 on error). */
#define TR_STRIDE_CARRIED 8
#define TR_STRIDE_SLICE 32
struct tr_stride {
	const struct ptx_insn *guard;   /* @(i >= n) bra END, before the loop */
	const struct ptx_insn *back, *test, *step;      /* the loop's bottom */
	uint32_t head, end;     /* the statements of its label and END's */
	uint32_t bound;         /* the offset of n, the bound, in the parameters */
	int unsigned_bound;     /* n and the comparisons are unsigned */
	int wide;               /* i, S and n have 64 bits */
	int index32;            /* i starts as the 32-bit index widened */
	const char *carried[TR_STRIDE_CARRIED]; /* registers a turn takes from
						 * the turn before */
	uint32_t ncarried;
	uint32_t at[TR_STRIDE_CARRIED];         /* their offsets in a thread's */
	uint32_t slot;                          /* slot of this many bytes */
	int split;              /* the kernel goes on after the loop (in
				 * lockstep) */
	int exit_run;           /* instructions that only the loop's exit
				 * runs come before END, a block of their own */
	int in_block;           /* the loop follows a barrier: the first warp
				 * of a block in lockstep that reaches the
				 * guard sweeps the block's threads' turns */
	uint32_t guard_at;      /* the guard's statement */
	uint32_t slice[TR_STRIDE_SLICE];        /* in_block: the statements
						 * before it that the sweep runs */
	uint32_t nslice;
};
int tr_stride_scan(const struct ptx_func *fn, struct tr_stride *s);
/* The special register through which a group call after a sweep reads
 * what the sweep carried (stride.c, emit_warp.c's tr_sreg). */
#define TR_CARRIED "%ag_carried"

/* stride.c: whether kernel fn reads %tid.x and %ctaid.x only to make the
 * grid-wide index %ctaid.x * %ntid.x + %tid.x (in 32 bits, or in 64 from
 * the product's mul.wide.u32 and %tid.x widened), nothing of a lane's
 * place in its warp, and calls nothing: the threads of a row of its blocks
 * are then those of one block as wide as the row. */
int tr_index_only(const struct ptx_func *fn);
int tr_stride_scalar(struct tr *t, const struct ptx_insn *in);
int tr_stride_block(struct tr *t, uint32_t i);
int tr_stride_guard(struct tr *t, const struct ptx_insn *in);

/* affine.c: registers of a kernel's scalar translation that are a base
 * plus a constant multiple of %tid.x, whose widenings to 64 bits become
 * affine in the thread loop.  tr_aff_scan: NULL when it cannot tell;
 * tr_aff_insn, before an instruction is emitted: 1 when it emitted the
 * instruction itself, 0 when the usual emitter is to, -1 on error;
 * tr_aff_base: 1 and the C name of register name's base in sb when it has
 * one (a barrier saves it with the register), else 0; tr_aff_shared: 1
 * when it wrote a shared address through such a register; tr_aff_stride:
 * its multiple of %tid.x, 0 when it has no base.  The scan counts the
 * writes of statements [0, end) but skip: a swept loop's step, and what
 * comes after the loop, which the sweep's thread never runs (stride.c). */
struct tr_aff;
struct tr_aff *tr_aff_scan(const struct ptx_func *fn, const struct ptx_insn *skip, uint32_t end);
int tr_aff_insn(struct tr *t, const struct ptx_insn *in);
int tr_aff_base(struct tr *t, const char *name, struct strbuf *sb);
int tr_aff_shared(struct tr *t, const char *name, int64_t off, struct strbuf *sb);
int64_t tr_aff_stride(const struct tr *t, const char *name);
void tr_aff_free(struct tr_aff *a);

/* remat.c: registers of a kernel's scalar translation whose one write
 * computes the same value every time from the thread's and the launch's
 * indices and the parameters: a barrier recomputes them (the code of those
 * writes, in order) instead of keeping them.  tr_remat_scan: NULL when
 * there are none; tr_remat_has: reg is one; tr_remat_note: in was just
 * emitted, its code from t->code's offset at on; tr_remat_code: the code
 * of them all. */
struct tr_remat;
struct tr_remat *tr_remat_scan(const struct ptx_func *fn, const struct tr_consts *c);
int tr_remat_has(const struct tr_remat *r, const char *reg);
void tr_remat_note(struct tr *t, const struct ptx_insn *in, size_t at);
const char *tr_remat_code(const struct tr_remat *r);
void tr_remat_free(struct tr_remat *r);
void tr_fast_function(struct tr *t, uint32_t fidx, struct strbuf *out);

/* shape.c: the shape of each register of a kernel across a row group:
 * uniform, linear (lane l holds lane 0's value plus c * l) or varying.
 * tr_shape_scan: NULL when the kernel has no group translation;
 * tr_shape_widen: in widens a linear 32-bit operand (its index *op, its
 * step *c) whose lanes must not cross the wrap; tr_shape_parts: how many
 * row groups a call runs together, tr_shape_looped: whether in a loop over
 * them (else written out); tr_shape_same: whether reg holds the same in
 * every part of a call whose parts' lanes have the same %tid.x.  With
 * warp, a call runs one warp, two row groups of a row whose width is a
 * multiple of 32, and may shuffle.
 * With past, the kernel as the group calls after the sweep of its
 * grid-stride loop run it: the guard sends every lane to END with what
 * its thread carried (varying), and the loop is gone. */
enum { TR_SHAPE_NONE, TR_SHAPE_U, TR_SHAPE_L, TR_SHAPE_V };
struct tr_shape;
struct tr_shape *tr_shape_scan(const struct ptx_func *fn, const struct tr_consts *c, int warp,
			       const struct tr_stride *past);
int tr_shape_reg(const struct tr_shape *s, const char *reg, int64_t *c);
int tr_shape_same(const struct tr_shape *s, const char *reg);
int tr_shape_widen(const struct tr_shape *s, const struct ptx_insn *in, uint32_t *op, int64_t *c,
		   int *is_signed);
uint32_t tr_shape_parts(const struct tr_shape *s);
int tr_shape_looped(const struct tr_shape *s);
int tr_shape_warp(const struct tr_shape *s);
void tr_shape_free(struct tr_shape *s);

/* group.c: the group translation's registers, instructions and function */
void tr_group_begin(struct tr *t, const struct ptx_insn *in);
void tr_group_end(struct tr *t, const struct ptx_insn *in, size_t from);
void tr_group_parts(struct tr *t, size_t from, uint32_t parts);
void tr_group_row(const struct tr *t, const char *reg, uint32_t h, struct strbuf *sb);
void tr_group_close(struct tr *t);
void tr_group_lanes_begin(struct tr *t, const struct ptx_insn *in);
void tr_group_lanes_end(struct tr *t);
int tr_group_flow(struct tr *t, const struct ptx_insn *in);
void tr_group_local(struct tr *t, const struct tr_sym *s, uint32_t i);
void tr_group_part(const struct tr *t, const char *name, const char *reg, int write,
		   struct strbuf *sb);
void tr_group_reg(const struct tr *t, const struct tr_sym *s, const char *name,
		  const char *cname, int write, struct strbuf *sb);
int tr_group_shared(const struct tr *t, const struct tr_sym *s, const char *name, int64_t off,
		    struct strbuf *sb);
void tr_group_address(const struct tr *t, const struct ptx_insn *in, const char *addr,
		      struct strbuf *sb);
void tr_group_function(struct tr *t, uint32_t fidx, struct strbuf *out);
void tr_group_free(struct tr *t);
/* ahead.c: the paths of pure arithmetic from a barrier of a group call
 * to the next that the call runs at the barrier, arriving at the next one
 * ahead (AG_AT_AHEAD).  group.c calls tr_ahead_save at barrier k before it
 * says where it waits, tr_ahead_arrive after, tr_ahead_resumed after it
 * takes its registers back, tr_ahead_branch (with the branch as C that
 * sets ag_go) for the branch tr_ahead_of finds in a path (k, 0 for none),
 * and tr_ahead_splice on the finished code. */
struct tr_ahead;
struct tr_ahead *tr_ahead_scan(struct tr *t);
void tr_ahead_save(const struct tr_ahead *a, uint32_t k, struct strbuf *code);
void tr_ahead_arrive(const struct tr_ahead *a, uint32_t k, struct strbuf *code);
void tr_ahead_resumed(const struct tr_ahead *a, uint32_t k, struct strbuf *code);
uint32_t tr_ahead_of(const struct tr_ahead *a, const struct ptx_insn *bra);
void tr_ahead_branch(struct tr_ahead *a, uint32_t k, const char *branch, struct strbuf *code);
void tr_ahead_splice(const struct tr_ahead *a, struct strbuf *code);
void tr_ahead_free(struct tr_ahead *a);
/* weave.c: a block of a call whose parts are looped over (its
 * instructions that run once per part, pre, then one loop over the lanes:
 * its first lines head, its own locals and their C types, the instructions
 * of its body, and the parts' values it reads, "X" of "X_h", with whether
 * part 0's serves every part) written as one loop over the lanes with the
 * parts side by side, into out; *same: it reads part 0's for another.
 * 0, or -1 when pre holds more than instructions. */
struct tr_weave {
	const char *head;
	const char *pre, *body;
	size_t npre, nbody;
	const char *const *locals, *const *local_types;
	uint32_t nlocals;
	const char *const *vals;
	const uint8_t *same;
	uint32_t nvals;
	uint32_t parts;
};
int tr_weave(const struct tr_weave *w, struct strbuf *out, int *same);
/* ends.c: appends to test a C expression, reading each part's registers
 * as "@P", that holds only when the guard of in lets every lane of the
 * part run, made from what they hold at statement from; 1 when there is
 * one, 0 when not */
int tr_ends_test(struct tr *t, const struct ptx_insn *in, uint32_t from, struct strbuf *test);
tr_emit_fn tr_fast_flow(const char *opcode);
int tr_fast_call(struct tr *t, const struct ptx_insn *in, const struct ptx_operand *rets,
		 const struct ptx_operand *args, const struct ptx_operand *target,
		 uint32_t callee);

#endif
