/*
 * stride.c - grid-stride loops, swept turn by turn over virtual blocks.
 *
 * A grid-stride loop
 *
 *	for (i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
 *	     i += blockDim.x * gridDim.x)
 *		body(i);
 *
 * gives thread t of the grid's T = blockDim.x * gridDim.x threads the
 * turns i = t, t + T, t + 2T, ...  Run a few blocks at a time, a turn
 * reads a kilobyte or so of each array before the stride takes it a whole
 * grid further, and the hardware's prefetchers, which follow streams
 * within a page, do not follow that (saxpy ran at half the speed of the
 * same loop in C).  When the body depends on its thread only through i,
 * turn k of thread x of block b does what the first turn of thread x of
 * block k * gridDim.x + b would do in a grid large enough to need one
 * turn per thread.  So the block function of such a kernel
 * (translate_fast.c, emit_block_stride) sweeps, for the run of blocks its
 * call was given, turn 0 of all their threads as one loop, then turn 1,
 * and so on until the turn's first thread starts past n: the fast path's
 * scalar translation, in which a thread runs one turn (the loop's step and
 * test are left out, its back edge returns).  A turn then reads the call's
 * whole stretch of each array in order (only the first turn tests the
 * guard before the loop: a later one runs only threads below n).  Each
 * thread's turns still run in order and on one OS thread, so its program
 * order holds; only the interleaving of different threads' turns changes,
 * which threads that neither wait for nor see each other inside the loop
 * cannot observe.
 *
 * Registers a turn takes from the one before (a sum), and those the code
 * after the loop reads of what the loop wrote, are carried: a thread
 * stores them in its slot of the worker's carry memory at the end of each
 * turn (and at END, the guard's target, on the first turn) and takes them
 * back at the loop's head on the next.  When the kernel goes on after the
 * loop (shuffles, shared memory, barriers: a reduction), its blocks then
 * run one at a time, and the guard before the loop sends every lane past
 * it with its carried registers from the slots (b->carry): the block
 * reduces what its threads' sweep summed.  They run in calls of a warp
 * (group.c) where the kernel's shapes allow with the loop left out
 * (shape.c's past: the guard goes to END, each lane's carried registers
 * varying), the guard a mov of each from TR_CARRIED and a branch to END
 * (group_guard); else, and for blocks that are not whole warps, in
 * lockstep (tr_stride_guard).  The reduction, one thread: 4.2 -> 3.2 ms.
 *
 * The loop qualifies when, as nvcc writes it (tr_stride_scan):
 *
 * - it is the kernel's first loop, entered past a guard `@%p bra END`
 *   with %p = i >= n, left only at its bottom (`i += S; @(i < n) bra
 *   LOOP`, 32 or 64 bits, signed or unsigned), with nothing but plain
 *   instructions between it and END (what only its exit runs), any other
 *   loop begins past END (a block reduction's `for (o = warpSize / 2; o >
 *   0; o /= 2)` shuffles, which nvcc does not unroll), and the kernel
 *   calls nothing;
 * - i starts as %ctaid.x * %ntid.x + %tid.x (a mad, or a mul and an add,
 *   in 64 bits a mul.wide.u32 and an add of %tid.x widened, or the 32-bit
 *   index widened; or a copy of any of these), S is %nctaid.x * %ntid.x
 *   (in 64 bits a mul.wide.u32, or a mul.lo.s64 of the two widened), and
 *   n is a kernel parameter of i's width, whose offset the block function
 *   reads it from;
 * - before the loop the kernel only computes (no stores, no loads but of
 *   parameters, nothing of its lane's place in the warp: each virtual
 *   thread runs that part again), and the body branches only forward
 *   inside itself, reaches only global, constant and parameter memory,
 *   neither waits nor looks at other lanes, and reads, of what was
 *   computed before it, only i and registers that %tid.x and %ctaid.x do
 *   not feed; at most TR_STRIDE_CARRIED registers are carried (one that a
 *   turn writes on every way before it reads it is not); the code after
 *   the loop does not read i;
 * - the step adds S to i, or to what the body made of i by moves and by
 *   widening it to 64 bits and cutting it back (nvcc's step when the body
 *   uses i as a 64-bit index too).
 *
 * At run time the block function checks what the text cannot: a 1D grid
 * of 1D blocks, and no turn of any thread past INT32_MAX, or UINT32_MAX
 * when unsigned (n - 1 + T fits: a thread's i never wraps); in 64 bits,
 * that a virtual block's index fits %ctaid.x's 32 bits (n <= ntid *
 * UINT32_MAX), or n <= 2^32 where the index was made in 32 bits.
 * Otherwise the kernel runs in lockstep as before (ag_block_run), its
 * guard as written.
 *
 * A loop after a barrier (a shared-memory histogram: the block's bins
 * zeroed, a barrier, the loop adding to them with atomics, a barrier, the
 * bins added to the total) cannot be swept over several blocks: each
 * block's bins are its own, and what comes before the barrier must have
 * run.  Such a kernel's blocks run in lockstep, one a call, and the first
 * warp of a block that reaches the guard sweeps that block's threads'
 * turns (in_block; ag_ownN, translate_fast.c), after which every lane
 * goes past the loop as above.  The barrier holds that warp back until
 * every thread of the block has done all the code before it, and between
 * the barrier and the guard the kernel only computes.  The body may then
 * reach the block's shared memory too: its atomics in any order are what
 * a GPU may do, and plain loads see what the block stored before the
 * barrier.  Before the barrier the kernel may do anything but leave or
 * jump past it; of that code the sweep's threads run only the
 * computations that make what the loop reads (a slice: each the one write
 * of its register up to the loop, on every path to the guard and in no
 * loop; writes after the loop do not count, since nvcc reuses the
 * thread's index register as a later loop's counter).  Other loops lie
 * before the barrier or after this one.  A 64 MiB histogram, one thread:
 * 33.4 ms in lockstep, 24.7 swept, 21 with the index affine in the
 * sweep's thread (affine.c counts only the writes up to the loop; OpenMP
 * 19).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* What the scan reads again and again: the kernel, and the one write of
 * each register written once (consts.c). */
struct scan {
	const struct ptx_func *fn;
	struct tr_consts *defs;
};

/* The one instruction of the kernel that writes register reg, when one
 * and unguarded does (its statement index in *at), else NULL. */
static const struct ptx_insn *only_writer(const struct scan *sc, const char *reg, uint32_t *at)
{
	const struct ptx_insn *w = tr_one_def(sc->defs, reg);

	if (!w || w->guard)
		return NULL;
	if (at)
		*at = tr_stmt_of(sc->fn, w);
	return w;
}

static int is_reg(const struct ptx_operand *o)
{
	return o->kind == PTX_OP_REG && o->name && !o->component;
}

static int same_reg(const struct ptx_operand *o, const char *name)
{
	return is_reg(o) && !strcmp(o->name, name);
}

/* Whether o is a register whose one writer moves sreg's x into it. */
static int holds(const struct scan *sc, const struct ptx_operand *o, const char *sreg)
{
	const struct ptx_insn *in;

	if (!is_reg(o) || !(in = only_writer(sc, o->name, NULL)))
		return 0;
	return !strcmp(in->opcode, "mov") && in->nops == 2 && in->ops[1].kind == PTX_OP_REG &&
	       in->ops[1].name && !strcmp(in->ops[1].name, sreg) && in->ops[1].component &&
	       !strcmp(in->ops[1].component, "x");
}

/* Whether a and b hold sregs x and y, in either order. */
static int holds_pair(const struct scan *sc, const struct ptx_operand *a,
		      const struct ptx_operand *b, const char *x, const char *y)
{
	return (holds(sc, a, x) && holds(sc, b, y)) || (holds(sc, a, y) && holds(sc, b, x));
}

/* Whether in is an integer opcode of n operands, all of them plain
 * registers, of bits-wide type (.s or .u), with the modifier lead (".lo",
 * ".wide") first unless NULL. */
static int int_op(const struct ptx_insn *in, const char *opcode, const char *lead, int bits,
		  uint32_t n)
{
	const char *ty;
	uint32_t i;

	if (strcmp(in->opcode, opcode) || in->nmods != (lead ? 2u : 1u) || in->nops != n ||
	    (lead && strcmp(in->mods[0], lead)))
		return 0;
	ty = in->mods[in->nmods - 1];
	if ((ty[1] != 's' && ty[1] != 'u') || atoi(ty + 2) != bits)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_reg(&in->ops[i]) || in->ops[i].pair)
			return 0;
	return 1;
}

/* Whether o is a register whose one writer widens (cvt.u64.u32) a
 * register holding sreg's x. */
static int holds_wide(const struct scan *sc, const struct ptx_operand *o, const char *sreg)
{
	const struct ptx_insn *w;

	return is_reg(o) && (w = only_writer(sc, o->name, NULL)) && !strcmp(w->opcode, "cvt") &&
	       w->nmods == 2 && !strcmp(w->mods[0], ".u64") && !strcmp(w->mods[1], ".u32") &&
	       w->nops == 2 && holds(sc, &w->ops[1], sreg);
}

/* Whether in (an add of bits bits) adds %tid.x, widened in 64 bits, to
 * a product of %ctaid.x and %ntid.x (a mul.lo, a mul.wide.u32 in 64
 * bits). */
static int adds_thread(const struct scan *sc, const struct ptx_insn *in, int bits)
{
	const struct ptx_insn *mul;
	int k;

	if (!int_op(in, "add", NULL, bits, 3))
		return 0;
	for (k = 1; k <= 2; k++) {
		mul = only_writer(sc, in->ops[k].name, NULL);
		if ((bits == 32 ? holds(sc, &in->ops[3 - k], "%tid") :
		     holds_wide(sc, &in->ops[3 - k], "%tid")) && mul &&
		    int_op(mul, "mul", bits == 32 ? ".lo" : ".wide", 32, 3) &&
		    holds_pair(sc, &mul->ops[1], &mul->ops[2], "%ctaid", "%ntid"))
			return 1;
	}
	return 0;
}

/* Whether in makes the grid-wide index %ctaid.x * %ntid.x + %tid.x: a mad,
 * or an add of %tid.x and a mul's product. */
static int thread_index(const struct scan *sc, const struct ptx_insn *in)
{
	if (int_op(in, "mad", ".lo", 32, 4))
		return holds_pair(sc, &in->ops[1], &in->ops[2], "%ctaid", "%ntid") &&
		       holds(sc, &in->ops[3], "%tid");
	return adds_thread(sc, in, 32);
}

/* Whether in makes the grid-wide index in 64 bits: a mul.wide.u32 of
 * %ctaid.x and %ntid.x plus %tid.x widened, or the 32-bit index widened
 * (*index32: it wraps at 2^32 as it is made). */
static int thread_index64(const struct scan *sc, const struct ptx_insn *in, int *index32)
{
	const struct ptx_insn *w;

	if (!strcmp(in->opcode, "cvt") && in->nmods == 2 && !strcmp(in->mods[0], ".u64") &&
	    !strcmp(in->mods[1], ".u32") && in->nops == 2 && is_reg(&in->ops[1]) &&
	    (w = only_writer(sc, in->ops[1].name, NULL)) && thread_index(sc, w)) {
		*index32 = 1;
		return 1;
	}
	return adds_thread(sc, in, 64);
}

/* The register that holds the grid-wide index (of bits bits) when in
 * starts i with it: i itself when in makes it, the register in copies when
 * that one's only writer does (nvcc copies it when the kernel reads it
 * after the loop); else NULL. */
static const char *index_source(const struct scan *sc, const struct ptx_insn *in, int bits,
				int *index32)
{
	const struct ptx_insn *w;

	if (bits == 32 ? thread_index(sc, in) : thread_index64(sc, in, index32))
		return in->ops[0].name;
	if (strcmp(in->opcode, "mov") || in->nops != 2 || !is_reg(&in->ops[1]) ||
	    !(w = only_writer(sc, in->ops[1].name, NULL)) ||
	    !(bits == 32 ? thread_index(sc, w) : thread_index64(sc, w, index32)))
		return NULL;
	return in->ops[1].name;
}

/* Whether reg is the grid's width in threads, %nctaid.x * %ntid.x, in
 * bits bits: a mul.lo.s32 of the two, or a mul.wide.u32 of them, or a
 * mul.lo.s64 of the two widened. */
static int grid_width(const struct scan *sc, const char *reg, int bits)
{
	const struct ptx_insn *w = only_writer(sc, reg, NULL);

	if (!w)
		return 0;
	if (bits == 32)
		return int_op(w, "mul", ".lo", 32, 3) &&
		       holds_pair(sc, &w->ops[1], &w->ops[2], "%nctaid", "%ntid");
	if (int_op(w, "mul", ".wide", 32, 3))
		return holds_pair(sc, &w->ops[1], &w->ops[2], "%nctaid", "%ntid");
	return int_op(w, "mul", ".lo", 64, 3) &&
	       ((holds_wide(sc, &w->ops[1], "%nctaid") && holds_wide(sc, &w->ops[2], "%ntid")) ||
		(holds_wide(sc, &w->ops[1], "%ntid") && holds_wide(sc, &w->ops[2], "%nctaid")));
}

/* Whether in is a cvt between 32- and 64-bit integers (at least the low
 * 32 bits kept), or a 32-bit mov. */
static int keeps_low_word(const struct ptx_insn *in)
{
	static const char *const ints[] = { ".s32", ".u32", ".s64", ".u64", ".b32", ".b64" };

	if (in->nops != 2 || in->ops[1].kind != PTX_OP_REG)
		return 0;
	if (!strcmp(in->opcode, "mov"))
		return in->nmods == 1 && (!strcmp(in->mods[0], ".u32") || !strcmp(in->mods[0], ".s32") ||
					  !strcmp(in->mods[0], ".b32"));
	return !strcmp(in->opcode, "cvt") && in->nmods == 2 && tr_in_list(ints, 6, in->mods[0]) &&
	       tr_in_list(ints, 6, in->mods[1]);
}

/* Whether o holds this turn's i: i itself, or what the loop's body (h, e)
 * made of it by moves and by widening and cutting back (nvcc's step when
 * the body uses i as a 64-bit index too). */
static int holds_i(const struct scan *sc, const struct ptx_operand *o, const char *i,
		   uint32_t h, uint32_t e, int depth)
{
	const struct ptx_insn *w;
	uint32_t at;

	if (same_reg(o, i))
		return 1;
	if (!is_reg(o) || depth > 3 || !(w = only_writer(sc, o->name, &at)) || at <= h || at >= e ||
	    !keeps_low_word(w))
		return 0;
	return holds_i(sc, &w->ops[1], i, h, e, depth + 1);
}

/* Whether in is setp of i against n with cmp, as type ty (".s32" or
 * ".u32"). */
static int compares(const struct ptx_insn *in, const char *cmp, const char *ty, const char *i,
		    const char *n)
{
	return !strcmp(in->opcode, "setp") && in->nmods == 2 && !strcmp(in->mods[0], cmp) &&
	       !strcmp(in->mods[1], ty) && in->nops == 3 && is_reg(&in->ops[0]) &&
	       !in->ops[0].pair && same_reg(&in->ops[1], i) && same_reg(&in->ops[2], n);
}

/* Whether fn calls anything. */
static int calls(const struct ptx_func *fn)
{
	uint32_t k;

	for (k = 0; k < fn->nbody; k++) {
		const struct ptx_insn *in = tr_insn_at(fn, k);

		if (in && !strcmp(in->opcode, "call"))
			return 1;
	}
	return 0;
}

/* Whether branch br (guarded by a predicate whose one writer is a setp)
 * is taken exactly when i < n (less) or i >= n, as type ty. */
static int branches_on(const struct scan *sc, const struct ptx_insn *br, int less,
		       const char *ty, const char *i, const char *n)
{
	const struct ptx_insn *p = br->guard ? only_writer(sc, br->guard, NULL) : NULL;

	if (!p)
		return 0;
	return compares(p, (less ^ br->guard_neg) ? ".lt" : ".ge", ty, i, n);
}

/* The offset in the parameter block of the integer kernel parameter of
 * bits bits that in (ld.param of one register) loads, or -1. */
static int64_t param_offset(const struct ptx_func *fn, const struct ptx_insn *in, int bits)
{
	uint32_t off[64], size[64], align[64], j;
	const struct ptx_operand *a = &in->ops[1];

	if (strcmp(in->opcode, "ld") || in->nmods != 2 || strcmp(in->mods[0], ".param") ||
	    atoi(in->mods[1] + 2) != bits || !strchr("sub", in->mods[1][1]) || in->nops != 2 ||
	    a->kind != PTX_OP_ADDR || a->base_is_reg || !a->name || fn->nparams > 64)
		return -1;
	ptx_param_layout(fn, off, size, align, 64);
	for (j = 0; j < fn->nparams; j++)
		if (!strcmp(fn->params[j].name, a->name))
			return a->i >= 0 && a->i + bits / 8 <= size[j] ? off[j] + a->i : -1;
	return -1;
}

/* Whether in reads a special register of its lane within its warp. */
static int lane_sreg(const struct ptx_insn *in)
{
	struct tr_names r = { 0 };
	uint32_t j;
	int hit = 0;

	tr_insn_reads(in, &r);
	for (j = 0; j < r.n && !hit; j++)
		hit = tr_lane_sreg(r.v[j]);
	free(r.v);
	return hit;
}

/* What the code before the loop may do: compute (not with its lane's
 * place in its warp), and load parameters. */
static int computes(const struct ptx_insn *in)
{
	static const char *const ops[] = {
		"mov", "mad", "mul", "add", "sub", "div", "rem", "abs", "fma", "shl", "shr", "cvt",
		"cvta", "setp", "selp", "and", "or", "xor", "not", "neg", "min", "max", "mul24",
		"mad24", "bfe", "prmt",
	};

	if (lane_sreg(in))
		return 0;
	if (!strcmp(in->opcode, "ld"))
		return in->nmods && !strcmp(in->mods[0], ".param");
	return tr_in_list(ops, sizeof(ops) / sizeof(ops[0]), in->opcode);
}

/* What the body may not do: leave, call, wait, stop, or look at the
 * other lanes of its warp (the sweep runs no warps). */
static int disturbs(const struct ptx_insn *in)
{
	static const char *const ops[] = {
		"bra", "brx", "ret", "exit", "call", "trap", "brkpt", "bar", "barrier",
		"mbarrier", "cp", "griddepcontrol",
	};

	return tr_in_list(ops, sizeof(ops) / sizeof(ops[0]), in->opcode) ||
	       tr_warp_op(in->opcode) || lane_sreg(in);
}

static int is_grid_sreg(const char *name)
{
	return !strcmp(name, "%tid") || !strcmp(name, "%ctaid");
}

/* The registers the code before the loop (statements [0, h)) computes
 * from %tid or %ctaid, into t; -1 when an instruction writes more than
 * tr_dests tells. */
static int tainted(const struct ptx_func *fn, uint32_t h, struct tr_names *t)
{
	const char *d[TR_MAX_DESTS];
	uint32_t i, j, k, nd;

	for (i = 0; i < h; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);
		struct tr_names r = { 0 };
		int hit = 0;

		if (!in)
			continue;
		if ((nd = tr_dests(in, d, TR_MAX_DESTS)) > TR_MAX_DESTS)
			return -1;
		tr_insn_reads(in, &r);
		for (j = 0; j < r.n && !hit; j++) {
			hit = is_grid_sreg(r.v[j]);
			for (k = 0; k < t->n && !hit; k++)
				hit = !strcmp(t->v[k], r.v[j]);
		}
		free(r.v);
		for (j = 0; hit && j < nd; j++)
			tr_names_add(t, d[j]);
	}
	return 0;
}

/* Whether some instruction in statements (from, to) writes reg. */
static int written_in(const struct ptx_func *fn, uint32_t from, uint32_t to, const char *reg)
{
	uint32_t i;

	for (i = from + 1; i < to; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);

		if (in && tr_writes(in, reg))
			return 1;
	}
	return 0;
}

/* Whether a branch of the loop (whose head is statement h) before
 * statement q jumps past q to a label at k or before: a path to k that
 * misses q.  The body's branches all go forward, inside it. */
static int bypassed(const struct ptx_func *fn, uint32_t h, uint32_t q, uint32_t k)
{
	uint32_t b, to;

	for (b = h + 1; b < q; b++) {
		const struct ptx_insn *in = tr_insn_at(fn, b);

		if (in && !strcmp(in->opcode, "bra") && (to = tr_label_stmt(fn, in->ops[0].name)) > q &&
		    to <= k)
			return 1;
	}
	return 0;
}

/* Whether every path from the loop's head (statement h) to statement k
 * writes reg, unguarded, on the way. */
static int written_before(const struct ptx_func *fn, uint32_t h, uint32_t k, const char *reg)
{
	uint32_t q;

	for (q = h + 1; q < k; q++) {
		const struct ptx_insn *in = tr_insn_at(fn, q);

		if (in && !in->guard && tr_writes(in, reg) && !bypassed(fn, h, q, k))
			return 1;
	}
	return 0;
}

/* Adds reg to the registers a turn takes from the one before; 0 when
 * there are too many. */
static int carry(struct tr_stride *s, const char *reg)
{
	uint32_t j;

	for (j = 0; j < s->ncarried; j++)
		if (!strcmp(s->carried[j], reg))
			return 1;
	if (s->ncarried == TR_STRIDE_CARRIED)
		return 0;
	s->carried[s->ncarried++] = reg;
	return 1;
}

/* Whether the loop (statements (h, e]) reads, of what was computed before
 * it, only i and registers that %tid and %ctaid do not feed, and writes i
 * only at step.  A register it may read before it writes it (unguarded,
 * on every path) in the same turn is carried from one turn to the next
 * (s->carried). */
static int turns_apart(const struct ptx_func *fn, uint32_t h, uint32_t e, const char *i,
		       const struct ptx_insn *step, struct tr_stride *s)
{
	struct tr_names t = { 0 };
	uint32_t k, j, m;
	int ok = !tainted(fn, h, &t);

	for (k = h + 1; k <= e && ok; k++) {
		const struct ptx_insn *in = tr_insn_at(fn, k);
		struct tr_names r = { 0 };

		if (!in)
			continue;
		if (in != step && tr_writes(in, i))
			ok = 0;
		tr_insn_reads(in, &r);
		for (j = 0; j < r.n && ok; j++) {
			const char *v = r.v[j];

			if (!strcmp(v, i))
				continue;
			if (is_grid_sreg(v))
				ok = 0;
			else if (written_in(fn, h, e + 1, v))
				ok = written_before(fn, h, k, v) || carry(s, v);
			else
				for (m = 0; m < t.n && ok; m++)
					ok = strcmp(t.v[m], v) != 0;
		}
		free(r.v);
	}
	free(t.v);
	return ok;
}

/* Whether the code after the loop (statements from e + 1) reads i; what
 * else it reads of what the loop or the code between the guard (g) and the
 * loop writes joins the carried registers, whose values the lockstep run
 * takes up after the loop from the sweep. */
static int after_ok(const struct ptx_func *fn, uint32_t g, uint32_t e, const char *i,
		    struct tr_stride *s)
{
	uint32_t k, j;
	int ok = 1;

	for (k = e + 1; k < fn->nbody && ok; k++) {
		const struct ptx_insn *in = tr_insn_at(fn, k);
		struct tr_names r = { 0 };

		if (!in)
			continue;
		tr_insn_reads(in, &r);
		for (j = 0; j < r.n && ok; j++)
			ok = strcmp(r.v[j], i) &&
			     (!written_in(fn, g, e + 1, r.v[j]) || carry(s, r.v[j]));
		free(r.v);
	}
	return ok;
}

/* The instruction before statement k (skipping other statements) at or
 * after from, or NULL; its index in *at. */
static const struct ptx_insn *insn_before(const struct ptx_func *fn, uint32_t k, uint32_t from,
					  uint32_t *at)
{
	while (k-- > from)
		if (fn->body[k].kind == PTX_STMT_INSN) {
			*at = k;
			return &fn->body[k].u.insn;
		}
		else if (fn->body[k].kind == PTX_STMT_LABEL)
			return NULL;
	return NULL;
}

/* Whether statement i of fn is a bra; where it goes in *to: its label's
 * statement, or UINT32_MAX when it names no label. */
static int branch_target(const struct ptx_func *fn, uint32_t i, uint32_t *to)
{
	const struct ptx_insn *in = tr_insn_at(fn, i);

	if (!in || strcmp(in->opcode, "bra"))
		return 0;
	*to = in->nops != 1 || in->ops[0].kind != PTX_OP_SYM ? UINT32_MAX :
		tr_label_stmt(fn, in->ops[0].name);
	return 1;
}

/* The first backward branch of fn (its index in *e, its target's in *h),
 * and in *later the first head of any other loop (UINT32_MAX: none); NULL
 * when a branch cannot be followed. */
static const struct ptx_insn *back_edge(const struct ptx_func *fn, uint32_t *h, uint32_t *e,
					uint32_t *later)
{
	const struct ptx_insn *back = NULL;
	uint32_t i, to;

	*later = UINT32_MAX;
	for (i = 0; i < fn->nbody; i++) {
		if (!branch_target(fn, i, &to))
			continue;
		if (to == UINT32_MAX)
			return NULL;
		if (to >= i)
			continue;
		if (back) {
			*later = to < *later ? to : *later;
			continue;
		}
		back = tr_insn_at(fn, i);
		*h = to;
		*e = i;
	}
	return back;
}

/* Whether statements [from, h) only declare registers and compute, with
 * one branch: the guard, `@(i >= n) bra END` after i is made. */
static int prologue_ok(const struct scan *sc, uint32_t from, uint32_t h, const char *end,
		       const char *ty, const char *i, const char *n, uint32_t i_at, uint32_t *g)
{
	uint32_t k, guards = 0;

	for (k = from; k < h; k++) {
		const struct ptx_stmt *s = &sc->fn->body[k];
		const struct ptx_insn *in = &s->u.insn;

		if (s->kind == PTX_STMT_DECL || s->kind == PTX_STMT_PRAGMA)
			continue;
		if (s->kind != PTX_STMT_INSN)
			return 0;
		if (!strcmp(in->opcode, "bra")) {
			if (k < i_at || strcmp(in->ops[0].name, end) ||
			    !branches_on(sc, in, 0, ty, i, n))
				return 0;
			*g = k;
			guards++;
		} else if (!computes(in)) {
			return 0;
		}
	}
	return guards == 1;
}

/* Whether in is a barrier that every thread of the block waits at:
 * bar.sync or barrier.sync of one operand (no thread count), unguarded. */
static int block_barrier(const struct ptx_insn *in)
{
	return tr_is_barrier(in) && !in->guard && in->nops == 1 && tr_has(in, ".sync") &&
	       !tr_has(in, ".warp");
}

/* Whether statement k lies in a loop of statements [0, g). */
static int in_loop(const struct ptx_func *fn, uint32_t k, uint32_t g)
{
	uint32_t j, to;

	for (j = k; j < g; j++)
		if (branch_target(fn, j, &to) && to <= k)
			return 1;
	return 0;
}

/* Whether every path from the kernel's start to statement g (k < g)
 * passes statement k: a search from the start that may not enter k. */
static int on_every_path(const struct ptx_func *fn, uint32_t k, uint32_t g)
{
	uint8_t *seen = xcalloc(g + 1, 1);
	uint32_t *todo = xmalloc((g + 1) * sizeof(*todo)), n = 0, at, to;
	int reached = 0;

	seen[k] = 1;
	if (k) {
		seen[0] = 1;
		todo[n++] = 0;
	}
	while (n && !reached) {
		at = todo[--n];
		reached = at == g;
		if (branch_target(fn, at, &to)) {
			if (to <= g && !seen[to]) {
				seen[to] = 1;
				todo[n++] = to;
			}
			if (!tr_insn_at(fn, at)->guard)
				continue;
		}
		if (at < g && !seen[at + 1]) {
			seen[at + 1] = 1;
			todo[n++] = at + 1;
		}
	}
	free(seen);
	free(todo);
	return !reached;
}

static int in_slice(const struct tr_stride *s, uint32_t k)
{
	uint32_t j;

	for (j = 0; j < s->nslice; j++)
		if (s->slice[j] == k)
			return 1;
	return 0;
}

/* The statements before the guard (g) that a block's sweep runs in each
 * virtual thread (s->slice): the writes of what the guard, the code up to
 * the loop and the loop read (statements [g, e]), of what those read, and
 * on.  Each must be the one write of its register before g, unguarded, a
 * computation, on every path to g and in no loop: the virtual thread then
 * makes with it what the thread made.  0 when one is not, or when there
 * are more than TR_STRIDE_SLICE. */
static int find_slice(const struct ptx_func *fn, uint32_t g, uint32_t e, struct tr_stride *s)
{
	struct tr_names want = { 0 };
	const struct ptx_insn *w;
	uint32_t j, k, at = 0;
	int ok = 1;

	for (k = g; k <= e; k++)
		if (tr_insn_at(fn, k))
			tr_insn_reads(tr_insn_at(fn, k), &want);
	for (j = 0; j < want.n && ok; j++) {
		for (w = NULL, k = 0; k < g && ok; k++) {
			const struct ptx_insn *in = tr_insn_at(fn, k);

			if (in && tr_writes(in, want.v[j])) {
				ok = !w;
				w = in;
				at = k;
			}
		}
		if (!ok || !w || in_slice(s, at))
			continue;
		ok = !w->guard && computes(w) && !in_loop(fn, at, g) && on_every_path(fn, at, g) &&
		     s->nslice < TR_STRIDE_SLICE;
		if (ok) {
			s->slice[s->nslice++] = at;
			tr_insn_reads(w, &want);
		}
	}
	free(want.v);
	return ok;
}

/* Whether the code around the loop (h, e) lets each block sweep its own
 * threads' turns when its first warp reaches the guard (s->in_block):
 * before the loop's last barrier (bb) anything but leaving, or jumping
 * past the barrier; after it only computations and the guard (g), as
 * prologue_ok says; every other loop before bb or after the grid-stride
 * loop; and a slice of the code before the guard that makes what the
 * loop needs (find_slice); no mbarriers.  The barrier holds that warp
 * back until every thread has done all that the code before the guard
 * does but compute. */
static int block_prologue_ok(const struct scan *sc, uint32_t h, uint32_t e, const char *end,
			     const char *ty, const char *i, const char *n, uint32_t i_at,
			     uint32_t *g, struct tr_stride *s)
{
	const struct ptx_func *fn = sc->fn;
	uint32_t k, bb = UINT32_MAX, to;

	for (k = 0; k < h; k++)
		if (tr_insn_at(fn, k) && block_barrier(tr_insn_at(fn, k)))
			bb = k;
	if (bb == UINT32_MAX || !prologue_ok(sc, bb + 1, h, end, ty, i, n, i_at, g))
		return 0;
	for (k = 0; k < fn->nbody; k++) {
		const struct ptx_insn *in = tr_insn_at(fn, k);

		/* a kernel that waits on mbarriers runs only in lockstep
		 * (translate_fast.c) */
		if (in && !strcmp(in->opcode, "mbarrier"))
			return 0;
		if (k < bb && in && (!strcmp(in->opcode, "ret") || !strcmp(in->opcode, "exit") ||
				     !strcmp(in->opcode, "brx") ||
				     (branch_target(fn, k, &to) && to > bb)))
			return 0;
		if (k > e && branch_target(fn, k, &to) && to <= e)
			return 0;
	}
	s->guard_at = *g;
	return find_slice(fn, *g, e, s);
}

/* Whether in reaches memory other than global, constant or parameter
 * memory (or shared memory, with shared), or may (a generic address). */
static int other_memory(const struct ptx_insn *in, int shared)
{
	if (!tr_is_load(in) && !tr_writes_memory(in) && strcmp(in->opcode, "prefetch"))
		return 0;
	return !tr_has(in, ".global") && !tr_has(in, ".const") && !tr_has(in, ".param") &&
	       !(shared && tr_has(in, ".shared"));
}

/* Whether the statements of the loop's body (h, e) are instructions that
 * stay in it (branches go forward, to a label inside it), and reach only
 * global, constant or parameter memory, and with shared (a block that
 * sweeps its own threads) its shared memory: a sweep over several blocks
 * has none of theirs. */
static int body_ok(const struct ptx_func *fn, uint32_t h, uint32_t e, int shared)
{
	uint32_t k, to;

	for (k = h + 1; k < e; k++) {
		const struct ptx_stmt *s = &fn->body[k];
		const struct ptx_insn *in = &s->u.insn;

		if (s->kind == PTX_STMT_PRAGMA || s->kind == PTX_STMT_LABEL)
			continue;
		if (s->kind != PTX_STMT_INSN || other_memory(in, shared))
			return 0;
		if (!strcmp(in->opcode, "bra")) {
			to = tr_label_stmt(fn, in->ops[0].name);
			if (to <= k || to >= e)
				return 0;
		} else if (disturbs(in)) {
			return 0;
		}
	}
	return 1;
}

/* The statement of END, the label after the loop's back edge (statement
 * e) and the plain instructions that only the loop's exit runs (nvcc's
 * selp of a predicate the loop left; one basic block), or UINT32_MAX. */
static uint32_t exit_run(const struct ptx_func *fn, uint32_t e)
{
	uint32_t k;

	for (k = e + 1; k < fn->nbody; k++) {
		const struct ptx_stmt *s = &fn->body[k];

		if (s->kind == PTX_STMT_LABEL)
			return k;
		if ((s->kind == PTX_STMT_INSN && disturbs(&s->u.insn)) ||
		    (s->kind != PTX_STMT_INSN && s->kind != PTX_STMT_PRAGMA))
			return UINT32_MAX;
	}
	return UINT32_MAX;
}

/* Whether from statement from on the kernel only returns. */
static int only_returns(const struct ptx_func *fn, uint32_t from)
{
	uint32_t k;

	for (k = from; k < fn->nbody; k++) {
		const struct ptx_stmt *s = &fn->body[k];

		if (s->kind == PTX_STMT_PRAGMA || s->kind == PTX_STMT_CLOSE)
			continue;
		if (s->kind != PTX_STMT_INSN || s->u.insn.guard ||
		    (strcmp(s->u.insn.opcode, "ret") && strcmp(s->u.insn.opcode, "exit")))
			return 0;
	}
	return 1;
}

/* tr_stride_scan, once the kernel's writes are known. */
static int scan_loop(const struct scan *sc, const struct ptx_insn *back, uint32_t h, uint32_t e,
		     int in_block, struct tr_stride *s)
{
	const struct ptx_func *fn = sc->fn;
	const struct ptx_insn *test, *step, *init, *ld;
	const char *i, *i0, *n, *ty, *label;
	uint32_t g = 0, at, i_at, end;
	int64_t off;
	int k, bits, index32 = 0;

	if (!(test = insn_before(fn, e, h + 1, &at)) || !(step = insn_before(fn, at, h + 1, &at)))
		return 0;
	/* i += S; setp.lt.s32 %p, i, n; @%p bra LOOP (or in 64 bits) */
	if (test->guard || test->nops != 3 || !is_reg(&test->ops[2]) || test->nmods != 2 ||
	    !back->guard || !same_reg(&test->ops[0], back->guard))
		return 0;
	ty = test->mods[1];
	bits = atoi(ty + 2);
	if ((bits != 32 && bits != 64) || (ty[1] != 's' && ty[1] != 'u') ||
	    !int_op(step, "add", NULL, bits, 3) || step->guard)
		return 0;
	i = step->ops[0].name;
	n = test->ops[2].name;
	k = holds_i(sc, &step->ops[1], i, h, e, 0) ? 2 : 1;
	if (!(bits == 32 ? holds_i(sc, &step->ops[3 - k], i, h, e, 0) :
	      same_reg(&step->ops[3 - k], i)) || same_reg(&step->ops[k], i) ||
	    !branches_on(sc, back, 1, ty, i, n))
		return 0;
	/* S = %nctaid.x * %ntid.x; n a parameter; i made once before */
	if (!grid_width(sc, step->ops[k].name, bits) || !(ld = only_writer(sc, n, &at)) || at >= h ||
	    (off = param_offset(fn, ld, bits)) < 0)
		return 0;
	init = NULL;
	i_at = 0;
	for (at = 0; at < h; at++) {
		const struct ptx_insn *in = tr_insn_at(fn, at);

		if (in && tr_writes(in, i)) {
			if (init || in->guard)
				return 0;
			init = in;
			i_at = at;
		}
	}
	/* the guard tests the index after it is made (in i, or the register
	 * i copies), and jumps past the loop and what its exit runs */
	if (!init || !(i0 = index_source(sc, init, bits, &index32)) ||
	    (strcmp(i0, i) && !only_writer(sc, i0, &i_at)) ||
	    (end = exit_run(fn, e)) == UINT32_MAX)
		return 0;
	label = fn->body[end].u.label;
	if (!(in_block ? block_prologue_ok(sc, h, e, label, ty, i0, n, i_at, &g, s) :
	      prologue_ok(sc, 0, h, label, ty, i0, n, i_at, &g)) ||
	    !body_ok(fn, h, e, in_block) || !turns_apart(fn, h, e, i, step, s))
		return 0;
	s->in_block = in_block;
	s->guard_at = g;
	s->exit_run = end > e + 1;
	s->split = in_block || s->exit_run || !only_returns(fn, end + 1);
	if (s->split && !after_ok(fn, g, e, i, s))
		return 0;
	s->guard = tr_insn_at(fn, g);
	s->back = back;
	s->test = test;
	s->step = step;
	s->head = h;
	s->end = end;
	s->bound = (uint32_t)off;
	s->unsigned_bound = ty[1] == 'u';
	s->wide = bits == 64;
	s->index32 = index32;
	return 1;
}

/* Whether operand o, or an element of it, names %tid or %ctaid. */
static int names_grid_sreg(const struct ptx_operand *o)
{
	uint32_t i;

	if (o->kind == PTX_OP_REG && o->name && is_grid_sreg(o->name))
		return 1;
	for (i = 0; i < o->nelems; i++)
		if (names_grid_sreg(&o->elems[i]))
			return 1;
	return 0;
}

/* Whether only adds of %tid.x to the product %ctaid.x * %ntid.x in bits
 * bits (adds_thread) read register reg, which in writes. */
static int read_by_adds(const struct scan *sc, const struct ptx_insn *in, const char *reg,
			int bits)
{
	uint32_t i;

	for (i = 0; i < sc->fn->nbody; i++) {
		const struct ptx_insn *r = tr_insn_at(sc->fn, i);

		if (r && r != in && tr_mentions(r, reg, 0) && !adds_thread(sc, r, bits))
			return 0;
	}
	return 1;
}

/* Whether in makes a part of the grid-wide index that only the add that
 * makes the index reads: the product %ctaid.x * %ntid.x (mul.lo in 32
 * bits, mul.wide.u32 in 64), or %tid.x widened to 64 bits. */
static int index_part(const struct scan *sc, const struct ptx_insn *in)
{
	if (int_op(in, "mul", ".lo", 32, 3) &&
	    holds_pair(sc, &in->ops[1], &in->ops[2], "%ctaid", "%ntid"))
		return read_by_adds(sc, in, in->ops[0].name, 32);
	if (int_op(in, "mul", ".wide", 32, 3) &&
	    holds_pair(sc, &in->ops[1], &in->ops[2], "%ctaid", "%ntid"))
		return read_by_adds(sc, in, in->ops[0].name, 64);
	if (is_reg(&in->ops[0]) && holds_wide(sc, &in->ops[0], "%tid"))
		return read_by_adds(sc, in, in->ops[0].name, 64);
	return 0;
}

/* Whether in reads %tid.x and %ctaid.x, if at all, only as the one write
 * of a register that moves one into it, or, from such registers, to make
 * the grid-wide index (or a part of it, index_part). */
static int index_use(const struct scan *sc, const struct ptx_insn *in)
{
	const char *d[TR_MAX_DESTS];
	uint32_t k;

	/* the first operand of an instruction that writes registers is one */
	for (k = tr_dests(in, d, TR_MAX_DESTS) ? 1 : 0; k < in->nops; k++) {
		const struct ptx_operand *o = &in->ops[k];

		if (names_grid_sreg(o) && !(k == 1 && !strcmp(in->opcode, "mov") &&
					    in->nops == 2 && is_reg(&in->ops[0]) &&
					    only_writer(sc, in->ops[0].name, NULL) == in))
			return 0;
		if ((holds(sc, o, "%tid") || holds(sc, o, "%ctaid")) && !thread_index(sc, in) &&
		    !index_part(sc, in) && !adds_thread(sc, in, 32))
			return 0;
	}
	return 1;
}

int tr_index_only(const struct ptx_func *fn)
{
	struct scan sc = { fn, NULL };
	uint32_t i;
	int ok = 1;

	if (!fn->is_entry || calls(fn) || !(sc.defs = tr_consts_scan(fn)))
		return 0;
	for (i = 0; i < fn->nbody && ok; i++) {
		const struct ptx_insn *in = tr_insn_at(fn, i);

		ok = !in || (!lane_sreg(in) && index_use(&sc, in));
	}
	tr_consts_free(sc.defs);
	return ok;
}

/* The kernel's first loop swept over several blocks, else a loop after a
 * barrier that each block sweeps for its own threads: what that one runs
 * of the kernel ends with the loop, so a register is made once when it is
 * written once up to there (nvcc reuses the thread's index as the counter
 * of a loop after it). */
int tr_stride_scan(const struct ptx_func *fn, struct tr_stride *s)
{
	struct scan sc = { fn, NULL };
	const struct ptx_insn *back;
	uint32_t h = 0, e = 0, later;
	int found = 0;

	memset(s, 0, sizeof(*s));
	if (!fn->is_entry || calls(fn))
		return 0;
	if ((back = back_edge(fn, &h, &e, &later)) && (sc.defs = tr_consts_scan(fn)))
		found = scan_loop(&sc, back, h, e, 0, s) && later > s->end;
	tr_consts_free(sc.defs);
	for (e = 0; !found && e < fn->nbody; e++) {
		if (!branch_target(fn, e, &h) || h >= e)
			continue;
		memset(s, 0, sizeof(*s));
		if ((sc.defs = tr_consts_scan_to(fn, e + 1)))
			found = scan_loop(&sc, tr_insn_at(fn, e), h, e, 1, s);
		tr_consts_free(sc.defs);
	}
	if (!found)
		memset(s, 0, sizeof(*s));
	return found;
}

/* The bytes of a thread's slot, the carried registers laid out in it the
 * first time it is asked (their types are known once the function's
 * declarations are): each at a multiple of its own size, the slot a
 * multiple of the largest. */
static uint32_t slot_size(struct tr *t)
{
	struct tr_stride *s = t->stride;
	uint32_t j, at = 0, big = 1;

	if (s->slot || !s->ncarried)
		return s->slot;
	for (j = 0; j < s->ncarried; j++) {
		const struct tr_sym *sym = tr_lookup(t, s->carried[j]);
		uint32_t n = sym ? ptx_type_size(sym->type) : 0;

		if (!n || (n & (n - 1)))
			n = 8;
		at = (at + n - 1) / n * n;
		s->at[j] = at;
		at += n;
		big = n > big ? n : big;
	}
	s->slot = (at + big - 1) / big * big;
	return s->slot;
}

/* Moves the carried registers between their C variables and the slot
 * that begins at slot: into it (store) or out of it. */
static int move_carried(struct tr *t, const char *slot, int store, const char *indent)
{
	const struct tr_stride *s = t->stride;
	struct strbuf r = STRBUF_INIT;
	uint32_t j;

	for (j = 0; j < s->ncarried; j++) {
		sb_reset(&r);
		if (tr_reg_lvalue(t, s->carried[j], &r)) {
			sb_free(&r);
			return -1;
		}
		if (store)
			sb_addf(&t->code, "%smemcpy(%s + %u, &%s, sizeof(%s));\n", indent, slot,
				s->at[j], r.buf, r.buf);
		else
			sb_addf(&t->code, "%smemcpy(&%s, %s + %u, sizeof(%s));\n", indent, r.buf, slot,
				s->at[j], r.buf);
	}
	sb_free(&r);
	return 0;
}

/* Where a thread of the sweep keeps its carried registers: the block
 * function passes the slots as A, the turn as nt_ and the thread's place
 * in the call's blocks as t_. */
static void sweep_slot(struct tr *t, struct strbuf *sb)
{
	sb_addf(sb, "(A + t_ * %u)", slot_size(t));
}

/* The guard in the sweep: only the first turn runs threads whose index may
 * start at n or past it (the block function runs a later turn's threads
 * up to n), so only the first tests it, and later turns' loads and stores
 * need no mask. */
static int sweep_guard(struct tr *t, const struct ptx_insn *in)
{
	struct strbuf taken = STRBUF_INIT;
	uint32_t to;
	int rc = tr_branch_target(t, in, &to) || tr_guard(t, in, &taken) ? -1 : 1;

	if (rc > 0)
		sb_addf(&t->code, "\t\t/* %d: bra, the guard (stride.c) */\n"
			"\t\tif (!nt_ && %s)\n\t\t\tgoto ag_L%u;\n", in->line, taken.buf, to);
	sb_free(&taken);
	return rc;
}

/* The type modifier of a mov of register reg, or NULL when a group call
 * cannot take it from the sweep's slot (a predicate). */
static const char *carried_mod(struct tr *t, const char *reg)
{
	const struct tr_sym *sym = tr_lookup(t, reg);

	if (!sym || (ptx_type_size(sym->type) != 4 && ptx_type_size(sym->type) != 8))
		return NULL;
	if (tr_is_float(sym->type))
		return ptx_type_size(sym->type) == 4 ? ".f32" : ".f64";
	return ptx_type_size(sym->type) == 4 ? ".b32" : ".b64";
}

/* The guard in the group calls that run a swept kernel on after its loop
 * (translate_fast.c): each lane takes up its thread's carried registers
 * (a mov from TR_CARRIED, emit_warp.c), and the call goes to END. */
static int group_guard(struct tr *t)
{
	const struct tr_stride *s = t->stride;
	const char *mods[1];
	struct ptx_operand ops[2], end = { .kind = PTX_OP_SYM, .name = t->fn->body[s->end].u.label };
	struct ptx_insn mov = { .opcode = "mov", .mods = mods, .nmods = 1, .ops = ops, .nops = 2,
				.line = s->guard->line };
	struct ptx_insn bra = { .opcode = "bra", .ops = &end, .nops = 1, .line = s->guard->line };
	uint32_t j;

	for (j = 0; j < s->ncarried; j++) {
		if (!(mods[0] = carried_mod(t, s->carried[j])))
			return tr_unsupported(t, s->guard, "a predicate carried out of a swept loop");
		ops[0] = (struct ptx_operand){ .kind = PTX_OP_REG, .name = s->carried[j] };
		ops[1] = (struct ptx_operand){ .kind = PTX_OP_REG, .name = TR_CARRIED, .i = s->at[j] };
		if (tr_emit_insn(t, &mov))
			return -1;
	}
	return tr_emit_insn(t, &bra);
}

/* In those group calls, the guard, and the loop left out. */
static int group_past(struct tr *t, const struct ptx_insn *in)
{
	const struct tr_stride *s = t->stride;
	const uintptr_t p = (uintptr_t)in, body = (uintptr_t)t->fn->body;
	uint32_t k;

	if (p < body || p >= (uintptr_t)(t->fn->body + t->fn->nbody))
		return 0;       /* one group_guard made */
	k = tr_stmt_of(t->fn, in);
	if (in == s->guard)
		return group_guard(t) ? -1 : 1;
	return k > s->guard_at && k < s->end;
}

int tr_stride_scalar(struct tr *t, const struct ptx_insn *in)
{
	const struct tr_stride *s = t->stride;
	struct strbuf slot = STRBUF_INIT;
	uint32_t k;
	int rc;

	if (!s || !t->scalar)
		return 0;
	if (t->shape)
		return group_past(t, in);
	if (t->past_loop || in == s->test || in == s->step)
		return 1;
	/* a block's sweep runs of the code before the guard only what makes
	 * the loop's values (the lockstep run did the rest) */
	k = tr_stmt_of(t->fn, in);
	if (s->in_block && k < s->guard_at && !in_slice(s, k))
		return 1;
	if (in == s->guard)
		return sweep_guard(t, in);
	if (in != s->back)
		return 0;
	sb_addf(&t->code, "\t\t/* %d: the turn's end (stride.c) */\n", in->line);
	t->past_loop = 1;
	sweep_slot(t, &slot);
	rc = move_carried(t, slot.buf, 1, "\t\t");
	sb_adds(&t->code, "\t\treturn;\n");
	sb_free(&slot);
	return rc ? -1 : 1;
}

int tr_stride_block(struct tr *t, uint32_t i)
{
	const struct tr_stride *s = t->stride;
	struct strbuf slot = STRBUF_INIT;
	int rc = 0;

	if (!s || !t->scalar || t->shape || (i != s->head && i != s->end))
		return 0;
	sweep_slot(t, &slot);
	if (i == s->head) {
		sb_adds(&t->code, "\t\tif (nt_) {\n");
		rc = move_carried(t, slot.buf, 0, "\t\t\t");
		sb_adds(&t->code, "\t\t}\n");
	} else {
		t->past_loop = 1;
		sb_adds(&t->code, "\t\tif (!nt_) {\n");
		rc = move_carried(t, slot.buf, 1, "\t\t\t");
		sb_adds(&t->code, "\t\t}\n\t\treturn;\n");
	}
	sb_free(&slot);
	return rc;
}

int tr_stride_guard(struct tr *t, const struct ptx_insn *in)
{
	const struct tr_stride *s = t->stride;
	struct strbuf taken = STRBUF_INIT;
	uint32_t to;

	if (!s || t->scalar || !s->split || in != s->guard)
		return 0;
	if (tr_branch_target(t, in, &to) || tr_guard(t, in, &taken)) {
		sb_free(&taken);
		return -1;
	}
	/* a block that sweeps its own threads does so when its first warp
	 * gets here (ag_ownN, translate_fast.c), unless the launch's shape
	 * rules it out */
	if (s->in_block)
		sb_addf(&t->code, "\t\tif ((b->carry && b->carry_c0 == b->ctaid[0]) || ag_own%u(b)) {\n"
			"\t\t\tif (b->error)\n\t\t\t\treturn;\n", t->fidx);
	else
		sb_adds(&t->code, "\t\tif (b->carry) {\n");
	sb_adds(&t->code, "\t\t\tfor (l = 0; l < 32; l++) if (m[l]) {\n");
	if (s->ncarried)
		sb_addf(&t->code, "\t\t\t\tconst unsigned char *c_ = ag_carried(w, l, %u);\n\n",
			slot_size(t));
	if (move_carried(t, "c_", 0, "\t\t\t\t")) {
		sb_free(&taken);
		return -1;
	}
	/* the loop's exit runs its own instructions first (the block
	 * before END), where the guard did not skip the loop */
	if (s->exit_run)
		sb_addf(&t->code, "\t\t\t\tW->ln.pc[l] = %s ? %u : %u;\n\t\t\t}\n\t\t\tbreak;\n\t\t}\n",
			taken.buf, to, to - 1);
	else
		sb_addf(&t->code, "\t\t\t\tW->ln.pc[l] = %u;\n\t\t\t}\n\t\t\tif (ag_all(m))\n"
			"\t\t\t\tgoto ag_b%u;\n\t\t\tbreak;\n\t\t}\n", to, to);
	sb_free(&taken);
	return 0;
}
