/*
 * translate_rt.h - the run-time part of every generated module: PTX
 * semantics that C leaves undefined or lacks (clamped shifts, division by
 * zero, saturating conversions, rounding modes, atomics on floats), the
 * lane bookkeeping of a warp, and the block scheduler that runs warps in
 * turn between barriers.  The translator embeds this text, after
 * kernel_abi.h, at the top of each module it writes; nothing else includes
 * it.  All of it is static: each module has its own copy.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <float.h>
#include <math.h>
#include <time.h>
#include <sched.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define AG_INLINE static inline __attribute__((unused))

/* A lockstep run function is many short loops over the 32 lanes (a shared
 * atomic's 32 increments, a row's copy), whose speed swings by a fifth
 * with where they fall against the fetch windows; at 64-byte boundaries
 * they all start a window.  GCC only; others ignore the request. */
#if defined(__GNUC__) && !defined(__clang__)
#define AG_RUN_FN static __attribute__((noinline, optimize("align-loops=64")))
#else
#define AG_RUN_FN static __attribute__((noinline))
#endif

/* Lane states. */
enum { AG_RUN, AG_WAIT, AG_RET, AG_EXIT };

struct ag_warp;
typedef void (*ag_run_fn)(struct ag_warp *w, void *frame, unsigned char *const *a);

/* The block's sixteen barriers (bar.sync/barrier.sync/bar.arrive/bar.red
 * a{, b}).  PTX counts arrivals per warp: a warp arrives at barrier a once
 * all its non-exited lanes have (they gather in ag_warp.arr[a]), which adds
 * 32 to count[a]; the barrier completes when count reaches its thread count
 * want[a], or without one (want 0) 32 times the warps that have a
 * non-exited lane.  Completing bumps gen[a]: lanes waiting with an older
 * generation run again (ag_pick).  bar.red keeps the reductions of the open
 * generation and of the one just completed, which released lanes read.
 * A seventeenth, AG_CLUSTER_BAR, is barrier.cluster's: every block is a
 * cluster of its own, so its arrivals are the block's threads. */
#define AG_CLUSTER_BAR 16
#define AG_NBAR 17
struct ag_bar {
	uint32_t count[AG_NBAR], want[AG_NBAR], gen[AG_NBAR];
	uint32_t events;        /* completions and mbarrier changes: progress */
	uint32_t open;          /* barriers with arrivals not yet completed */
	uint32_t popc[AG_NBAR][2];
	uint8_t and_[AG_NBAR][2], or_[AG_NBAR][2];
	struct ag_warp *ws;
	unsigned nw;
};

/* A warp's own stack and context, for kernels whose device functions wait
 * at barriers or that wait on mbarriers: the warp then has to stop inside
 * the call or the wait and resume there (ag_yield) while other warps run. */
struct ag_co {
	ucontext_t ctx, sched;
	void *stack;
	ag_run_fn run;
	void *frame;
	int done;
};

/* A function that computes far more than it loads and stores asks GCC
 * for the CPU's widest vectors (512 bits where it has them), which GCC
 * otherwise leaves to memory-bound code's 256. */
#if defined(__GNUC__) && !defined(__clang__)
#define AG_WIDE __attribute__((target("prefer-vector-width=512")))
#else
#define AG_WIDE
#endif

#define AG_NSEEN 16
/* A whole warp takes up to this many turns of a loop before it lets the
 * block's other warps run (translate_func.c, emit_whole_jump); in blocks
 * run together (ag_block_run), AG_TURNS_ROWS. */
#define AG_TURNS 16
#define AG_TURNS_ROWS 4

/* One warp of a block; functions of the module receive it.  The first six
 * members are positional in the fast path's initializer. */
struct ag_warp {
	struct ag_block *b;
	struct ag_bar *bar;
	unsigned id, nw;        /* warp index, warps in the block */
	unsigned dyn;           /* offset of extern .shared in b->shared */
	unsigned step;          /* the kernel's run returns after each basic block */
	uint32_t tid[3][32];
	uint32_t exited;        /* lanes that have executed exit */
	uint32_t outside;       /* live lanes outside the device function
				 * with barriers the warp is in */
	uint32_t arr[AG_NBAR];  /* lanes arrived at each barrier, warp not yet */
	struct ag_co *co;       /* NULL: the warp runs on the worker's stack */
	const unsigned char *lframe;    /* the kernel frames of the block */
	size_t lsize;
	unsigned psize;         /* bytes of the kernel's parameters */
	uintptr_t stack_hi;     /* the stack above the block's device frames */
	unsigned turns;         /* loop turns taken without the scheduler */
	unsigned kept;          /* 1 + the loop of one block whose forms (the
				 * frame's ag_formN) hold for its next turn:
				 * the warp yielded there (steady.c); else 0 */
	uintptr_t seen[AG_NSEEN];       /* last address of each dense access
					 * (ag_prefetch_next), 0 at first */
	uint64_t fixed;         /* bit N: the frame's ag_formN holds the form
				 * of access N, whose addresses stay (vector.c) */
	unsigned take;          /* turns between yields; 0: AG_TURNS */
};

/* The first member of every frame: where each lane is. */
struct ag_lanes {
	uint32_t pc[32];
	uint8_t st[32];
	uint8_t cc[32];         /* carry flag of add.cc/sub.cc and friends */
	uint8_t bid[32];        /* the barrier a waiting lane waits at */
	uint32_t bgen[32];      /* and its generation then */
	uint32_t cgen[32];      /* AG_CLUSTER_BAR's generation at the lane's
				 * barrier.cluster.arrive, which its wait awaits */
};

typedef void (*ag_func_fn)(struct ag_warp *w, uint8_t *m, unsigned char *const *a);

/* Whether all 32 lanes of the mask are active. */
AG_INLINE int ag_all(const uint8_t *m)
{
	uint64_t q[4];

	memcpy(q, m, 32);
	return (q[0] & q[1] & q[2] & q[3]) == 0x0101010101010101ull;
}

/* Whether a whole warp at a loop's back edge takes the next turn without
 * the scheduler: take - 1 times in take (w->take, or AG_TURNS). */
AG_INLINE int ag_turn(struct ag_warp *w)
{
	if (++w->turns < (w->take ? w->take : AG_TURNS))
		return 1;
	w->turns = 0;
	return 0;
}

/* How the 32 lanes' addresses a[] of an access of s bytes each meet
 * memory, half a warp at a time (a vector of 16 floats; 16 is also the
 * width of the common 16 x 16 blocks): AG_DENSE when each half reaches
 * consecutive elements, AG_SAME when each half reaches one address,
 * AG_STEP when each half's lanes are step bytes apart (a step the
 * translator guessed, 0: none; a thread that owns a few consecutive
 * elements), else AG_SCATTERED (vector.c). */
enum { AG_SCATTERED, AG_DENSE, AG_SAME, AG_STEP };

typedef uintptr_t ag_addr4 __attribute__((vector_size(4 * sizeof(uintptr_t))));
typedef uintptr_t ag_addr2 __attribute__((vector_size(2 * sizeof(uintptr_t))));

/* The OR of a vector's elements, by halves (element by element, the
 * compiler moves each to a scalar register). */
AG_INLINE uintptr_t ag_or4(ag_addr4 v)
{
	ag_addr2 q[2];

	memcpy(q, &v, sizeof(q));
	q[0] |= q[1];
	return q[0][0] | q[0][1];
}

/* Written with vector types: as a loop, the compiler unrolls it into
 * scalar code, and it runs before every such access.  Four addresses to a
 * vector, as wide as the stores that wrote a (with 256-bit vectors
 * preferred, a 512-bit load of two 256-bit stores waits for both to reach
 * the cache).  With step 0, a constant, the compiler drops its test. */
AG_INLINE int ag_coalesce(const uintptr_t *a, uintptr_t s, uintptr_t step)
{
	const ag_addr4 lane = { 0, 1, 2, 3 };
	ag_addr4 v[8], d = { 0 }, u = { 0 }, e = { 0 };
	unsigned k;

	memcpy(v, a, sizeof(v));
	for (k = 0; k < 8; k++) {
		uintptr_t base = a[k / 4 * 16];

		d |= v[k] ^ (base + (lane + k % 4 * 4) * s);
		u |= v[k] ^ base;
		e |= v[k] ^ (base + (lane + k % 4 * 4) * step);
	}
	if (!ag_or4(d))
		return AG_DENSE;
	if (!ag_or4(u))
		return AG_SAME;
	return step && !ag_or4(e) ? AG_STEP : AG_SCATTERED;
}

/* Whether each half of a row of 32 lanes of size bytes holds one value
 * (steady.c: a loop's step made of it is the same in each half warp).
 * Loops over words of the row's own width, which the compiler makes a few
 * vector compares; memcmp per lane cost sgemm_naive 4% of its time. */
#define AG_HALVES_SAME(T, row, diff)                                           \
	do {                                                                   \
		const T *r_ = (const T *)(row);                                \
		unsigned l_;                                                   \
		for (l_ = 0; l_ < 32; l_++)                                    \
			diff |= (uint64_t)(r_[l_] ^ r_[l_ / 16 * 16]);         \
	} while (0)

AG_INLINE int ag_halves_same(const void *row, size_t size)
{
	uint64_t diff = 0;

	switch (size) {
	case 1: AG_HALVES_SAME(uint8_t, row, diff); break;
	case 2: AG_HALVES_SAME(uint16_t, row, diff); break;
	case 4: AG_HALVES_SAME(uint32_t, row, diff); break;
	case 8: AG_HALVES_SAME(uint64_t, row, diff); break;
	default: return 0;
	}
	return !diff;
}

/* Whether a row of 32 lanes of a 32-bit index, widened into 64 bits
 * (sign: by sign extension), keeps in each half warp the differences its
 * 32 bits have, read as signed: no lane straddles the wrap from its
 * half's first (steady.c). */
AG_INLINE int ag_wide_same(const void *row, int sign)
{
	const uint32_t *r = (const uint32_t *)row;
	uint32_t bad = 0;
	unsigned l;

	/* in 32-bit lanes, which vectorize twice as wide: the wide difference
	 * is the 32-bit one read as signed when the subtraction does not
	 * overflow; signed, when x and h have unlike signs and d is unlike
	 * x, it does; unsigned, when a borrow and d's sign disagree */
	for (l = 0; l < 32; l++) {
		uint32_t x = r[l], h = r[l / 16 * 16], d = x - h;

		bad |= sign ? (x ^ h) & (x ^ d) : d ^ (0u - (x < h));
	}
	return !(bad >> 31);
}

/* A stride prefetcher for one load or store of a warp, whose lanes reach
 * the bytes at a now and reached those at *seen before: the next times
 * they are likely further on by the same stride (a grid-stride loop walks
 * memory with the grid's stride, which the hardware's prefetchers, keeping
 * to a page, do not follow), so the lines of AG_PREFETCH_TURNS strides on
 * are asked for now: one turn of a short loop body is far shorter than a
 * trip to memory (saxpy, 2 threads: 11.3 ms one stride ahead, 8.1 four
 * ahead, 10.6 eight ahead; a reduction 9.7, 6.2, 6.3).  Since the turns
 * got shorter: the reduction 5.3 four ahead, 4.8 eight ahead; saxpy,
 * vecadd and a histogram the same within noise.  A load's lines are also
 * asked for twice as far on into the second-level cache only, where the
 * nearer request then finds them: the first level, asked that far ahead,
 * lost them again (the reduction, one thread: 8.1-8.6 ms eight ahead,
 * 9.0-10.0 sixteen ahead, 7.2-7.4 both, the farther to L2; two threads
 * 4.24 -> 3.79, saxpy 6.07 -> 5.87).  A store's prefetch (prefetchw) has
 * no level to name. */
#define AG_PREFETCH_TURNS 8

/* Strides shorter than this (either way) are left alone: a naive SGEMM's
 * k loop walks a column of B 8 KiB a turn, which the caches hold, and
 * its prefetches cost it 13% (18.5 -> 16.1 ms without them, 16.7 with
 * this bound); a grid-stride loop's stride is the whole grid's. */
#define AG_PREFETCH_MIN ((uintptr_t)64 << 10)

AG_INLINE void ag_prefetch_next(uintptr_t *seen, uintptr_t a, unsigned bytes, int write)
{
	uintptr_t d = a - *seen, next = a + AG_PREFETCH_TURNS * d, o;

	*seen = a;
	if (d + AG_PREFETCH_MIN < 2 * AG_PREFETCH_MIN)
		return;
	for (o = 0; o < bytes; o += 64) {
		if (write) {
			__builtin_prefetch((const void *)(next + o), 1);
		} else {
			__builtin_prefetch((const void *)(next + o), 0);
			__builtin_prefetch((const void *)(next + AG_PREFETCH_TURNS * d + o), 0, 2);
		}
	}
}

/*
 * A prefetcher across blocks for the fast path's rounds of a kernel with
 * barriers (translate_fast.c): a tiled kernel's block reads a tile of
 * short rows, each thread row a few rows of an array far apart, writes
 * another such tile, and the next block does the same a tile further on.
 * Sixty-four streams of 128 bytes are more than the hardware's
 * prefetchers follow (a transpose's blocks of 32 x 8 threads, one
 * thread: 53 ms; told where the next block reads, 31.5; and writes,
 * 19.5).  Each global load and store of the thread body writes its
 * address into rec[site] (loads in the first AG_REC_SITES slots, stores
 * in the next) for every thread of a thread row; the row's last thread's
 * stays (a store the vector loop keeps).  After the row, seen[site]
 * holds that address of the block run before, and the lines one block
 * on, the last 128 bytes of the row's reach, are asked for: a load's into
 * the second-level cache, a store's to be written (prefetchw).  seen
 * lives in the worker's scratch memory from block to block; what another
 * kernel left there asks for a line or two to no purpose, as a prefetch
 * of any address may.
 */
#define AG_REC_SITES 8
#define AG_REC_SLOTS (2 * AG_REC_SITES)
#define AG_REC_ROWS 32
#define AG_REC_MAX ((uintptr_t)1 << 20)

/* Whether a site's address that moved by d from one block to the next
 * moves on alike: it moved, by less than AG_REC_MAX either way. */
AG_INLINE int ag_rec_moves(uintptr_t d)
{
	return d && d + AG_REC_MAX < 2 * AG_REC_MAX;
}

/* Asks for the line at p of slot k's site: a load's into the
 * second-level cache, a store's to be written. */
AG_INLINE void ag_rec_fetch(unsigned k, uintptr_t p)
{
	if (k < AG_REC_SITES)
		__builtin_prefetch((const void *)p, 0, 2);
	else
		__builtin_prefetch((const void *)p, 1);
}

AG_INLINE void ag_prefetch_block(uintptr_t *seen, const uintptr_t *rec)
{
	unsigned k;

	for (k = 0; k < AG_REC_SLOTS; k++) {
		uintptr_t d = rec[k] - seen[k], next = rec[k] + d;

		if (!rec[k])
			continue;
		seen[k] = rec[k];
		if (!ag_rec_moves(d))
			continue;
		ag_rec_fetch(k, next);
		ag_rec_fetch(k, next - 64);
	}
}

/*
 * A prefetcher across blocks for the fast path's blocks without barriers
 * (translate_fast.c, emit_thread_row): the first and the last thread of
 * a row of a block record each site's address (first, last), and the
 * lines of the reach between them, moved on twice as far as from the row
 * before (seen) to this one, are asked for, when it is no wider than
 * AG_AHEAD_SPAN and the move no longer than AG_REC_MAX: the lines two
 * blocks on of a kernel whose threads each reach a few places a block's
 * width apart, which the hardware's prefetchers do not follow.  A load
 * whose lines a store asks for too (x[i] += a) leaves it to the store.
 */
#define AG_AHEAD_SPAN ((uintptr_t)16 << 10)

AG_INLINE int ag_ahead_reach(const uintptr_t *seen, const uintptr_t *first, const uintptr_t *last,
			     unsigned k, uintptr_t *lo, uintptr_t *hi)
{
	const uintptr_t d = first[k] - seen[k];

	if (!first[k] || !last[k] || !seen[k] || !ag_rec_moves(d))
		return 0;
	*lo = (first[k] < last[k] ? first[k] : last[k]) + 2 * d;
	*hi = (first[k] < last[k] ? last[k] : first[k]) + 2 * d;
	return *hi - *lo <= AG_AHEAD_SPAN;
}

AG_INLINE void ag_prefetch_ahead(uintptr_t *seen, const uintptr_t *first, const uintptr_t *last)
{
	uintptr_t lo[AG_REC_SLOTS], hi[AG_REC_SLOTS], p;
	uint8_t on[AG_REC_SLOTS];
	unsigned k, j;

	for (k = 0; k < AG_REC_SLOTS; k++) {
		on[k] = (uint8_t)ag_ahead_reach(seen, first, last, k, &lo[k], &hi[k]);
		if (first[k])
			seen[k] = first[k];
	}
	for (k = 0; k < AG_REC_SITES; k++)
		for (j = AG_REC_SITES; j < AG_REC_SLOTS && on[k]; j++)
			on[k] = !on[j] || lo[k] >> 6 != lo[j] >> 6 || hi[k] >> 6 != hi[j] >> 6;
	for (k = 0; k < AG_REC_SLOTS; k++)
		for (p = lo[k] & ~(uintptr_t)63; on[k] && p <= hi[k]; p += 64)
			ag_rec_fetch(k, p);
}

/* Whether some lane is in state st: a byte equal to st in the four words
 * of ln->st (a loop over the lanes compiles to widening shuffles). */
AG_INLINE int ag_in_state(const struct ag_lanes *ln, uint8_t st)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t q[4], any = 0;
	unsigned k;

	memcpy(q, ln->st, sizeof(q));
	for (k = 0; k < 4; k++) {
		uint64_t v = q[k] ^ (ones * st);

		any |= (v - ones) & ~v & (ones << 7);
	}
	return any != 0;
}

/* Whether all 32 lanes run (AG_RUN is 0) and are at block pc; then they
 * all take part in it (m), the ones that waited there too. */
AG_INLINE int ag_converged(const struct ag_lanes *ln, uint32_t pc, uint8_t *m)
{
	uint64_t st[4];
	uint32_t off = 0;
	unsigned l;

	memcpy(st, ln->st, sizeof(st));
	if (st[0] | st[1] | st[2] | st[3])
		return 0;
	for (l = 0; l < 32; l++)
		off |= ln->pc[l] ^ pc;
	if (off)
		return 0;
	memset(m, 1, 32);
	return 1;
}

/* Whether all 32 lanes wait at one barrier for one generation of it:
 * the whole warp arrived together, and is released together. */
AG_INLINE int ag_wait_together(const struct ag_lanes *ln)
{
	const uint64_t ones = 0x0101010101010101ull;
	uint64_t st[4], bid[4], d = 0;
	uint32_t off = 0;
	unsigned k, l;

	memcpy(st, ln->st, sizeof(st));
	memcpy(bid, ln->bid, sizeof(bid));
	for (k = 0; k < 4; k++)
		d |= (st[k] ^ ones * AG_WAIT) | (bid[k] ^ ones * ln->bid[0]);
	for (l = 0; l < 32; l++)
		off |= ln->bgen[l] ^ ln->bgen[0];
	return !d && !off;
}

/* Picks the lowest pc among running lanes (program order: divergent lanes
 * meet again at the earliest common block) and the lanes at it.  Waiting
 * lanes whose barrier has completed since run again.  Written as loops
 * without early exits, which the C compiler turns into vector code: this
 * runs whenever a warp comes back from the scheduler.  A whole warp that
 * waited together, or runs together at one pc, takes the short way (most
 * warps, most of the time). */
AG_INLINE uint32_t ag_pick(const struct ag_warp *w, struct ag_lanes *ln, uint8_t *m)
{
	uint32_t pc = UINT32_MAX;
	unsigned l;

	if (ag_in_state(ln, AG_WAIT) && ag_wait_together(ln)) {
		if (w->bar->gen[ln->bid[0] < AG_NBAR ? ln->bid[0] : 0] != ln->bgen[0])
			memset(ln->st, AG_RUN, sizeof(ln->st));
	} else if (ag_in_state(ln, AG_WAIT)) {
		for (l = 0; l < 32; l++) {
			/* without branches, so a vector loop: bid is set only
			 * in lanes that waited, hence the bound */
			uint32_t g = w->bar->gen[ln->bid[l] < AG_NBAR ? ln->bid[l] : 0];
			uint8_t up = ln->st[l] == AG_WAIT && g != ln->bgen[l];

			ln->st[l] = up ? AG_RUN : ln->st[l];
		}
	}
	if (ag_converged(ln, ln->pc[0], m))
		return ln->pc[0];
	for (l = 0; l < 32; l++) {
		/* pc, or all ones: a conditional load would keep it scalar */
		uint32_t p = ln->pc[l] | -(uint32_t)(ln->st[l] != AG_RUN);

		pc = p < pc ? p : pc;
	}
	for (l = 0; l < 32; l++)
		m[l] = ln->st[l] == AG_RUN && ln->pc[l] == pc;
	return pc;
}

AG_INLINE int ag_waiting(const struct ag_lanes *ln) { return ag_in_state(ln, AG_WAIT); }

AG_INLINE void ag_enter(struct ag_lanes *ln, const uint8_t *m)
{
	unsigned l;

	for (l = 0; l < 32; l++) {
		ln->pc[l] = 0;
		ln->st[l] = m[l] ? AG_RUN : AG_RET;
	}
}

/* After a call: lanes that executed exit leave the caller's mask. */
AG_INLINE void ag_leave(const struct ag_lanes *ln, uint8_t *m)
{
	unsigned l;

	for (l = 0; l < 32; l++)
		if (ln->st[l] == AG_EXIT)
			m[l] = 0;
}

/* Barrier a completes: its waiting lanes are released and the next
 * generation's reductions start empty. */
AG_INLINE void ag_bar_complete(struct ag_bar *bar, unsigned a)
{
	unsigned g;

	bar->count[a] = 0;
	bar->events++;
	g = ++bar->gen[a] & 1;
	bar->popc[a][g] = 0;
	bar->and_[a][g] = 1;
	bar->or_[a][g] = 0;
}

/* Warps whose non-exited lanes have all arrived at barrier a add their
 * arrival; then a completes when enough threads have.  1 when it did.
 * Lanes outside the call a warp waits in cannot run before it returns;
 * in a valid program they exit without arriving (CUDA leaves a barrier
 * that threads reach through different calls undefined), so they count
 * as exited. */
AG_INLINE int ag_bar_settle(struct ag_bar *bar, unsigned a)
{
	uint32_t need = 0, partial = 0;
	unsigned i;

	for (i = 0; i < bar->nw; i++) {
		struct ag_warp *w = &bar->ws[i];

		if (w->arr[a] && (w->arr[a] | w->exited | w->outside) == 0xffffffffu) {
			w->arr[a] = 0;
			bar->count[a] += 32;
		}
		partial |= w->arr[a];
		need += w->exited != 0xffffffffu ? 32 : 0;
	}
	if (bar->want[a])
		need = bar->want[a];
	if (!bar->count[a] || bar->count[a] < need)
		return 0;
	ag_bar_complete(bar, a);
	if (!partial)
		bar->open &= ~(1u << a);
	return 1;
}

/* Lanes 'lanes' of w arrive at barrier a with thread count n (0: all).
 * The common case, a whole warp arriving at a barrier for all threads,
 * counts without a pass over the block's warps: the barrier completes when
 * every warp has counted; with warps that exited, the pass after the
 * scheduler's round (ag_block_warps) finds it complete. */
AG_INLINE void ag_bar_arrive_at(struct ag_warp *w, unsigned a, uint32_t n, uint32_t lanes)
{
	struct ag_bar *bar = w->bar;

	bar->want[a] = n;
	bar->open |= 1u << a;
	w->arr[a] |= lanes;
	if (n || (w->arr[a] | w->exited | w->outside) != 0xffffffffu) {
		ag_bar_settle(bar, a);
		return;
	}
	w->arr[a] = 0;
	bar->count[a] += 32;
	if (bar->count[a] < 32 * bar->nw)
		return;
	ag_bar_complete(bar, a);
	bar->open &= ~(1u << a);
}

/* Lanes 'lanes' of w arrive at the barriers ids[l] with thread counts
 * n[l] (0: all threads); lanes of one warp normally agree on both. */
AG_INLINE void ag_bar_arrive(struct ag_warp *w, const uint32_t *ids, const uint32_t *n,
			     uint32_t lanes)
{
	while (lanes) {
		unsigned first = (unsigned)__builtin_ctz(lanes), a = ids[first], l;
		uint32_t same = 0;

		for (l = first; l < 32; l++)
			if ((lanes >> l & 1) && ids[l] == a)
				same |= 1u << l;
		lanes &= ~same;
		ag_bar_arrive_at(w, a, n[first], same);
	}
}

/* 1 (after a fault naming lane l) when barrier id a or thread count n is
 * outside what PTX allows: ids 0..15, counts nonzero multiples of 32. */
AG_INLINE int ag_bar_bad(struct ag_warp *w, unsigned l, uint32_t a, uint32_t n, int has_n)
{
	const char *why = a > 15 ? "barrier id outside 0..15" :
		has_n && (n == 0 || n % 32) ? "barrier thread count not a nonzero multiple of 32" :
		NULL;

	if (why) {
		w->b->tid[0] = w->tid[0][l];
		w->b->tid[1] = w->tid[1][l];
		w->b->tid[2] = w->tid[2][l];
		w->b->env->svc->fault(w->b, 719, why);
	}
	return why != NULL;
}

/* A warp inside a device function whose lanes all wait at barriers, or
 * whose lanes found an mbarrier phase incomplete, lets the other warps
 * run; it resumes here.  0 when the warp has no stack of its own (the
 * translator gives kernels that need one one). */
AG_INLINE int ag_yield(struct ag_warp *w)
{
	if (!w->co)
		return 0;
	swapcontext(&w->co->ctx, &w->co->sched);
	return 1;
}

/* The body of a warp with its own stack: run until every lane is done,
 * yielding while lanes wait at a barrier of the kernel itself. */
static void ag_co_main(unsigned lo, unsigned hi)
{
	struct ag_warp *w = (struct ag_warp *)(uintptr_t)(((uint64_t)hi << 32) | lo);

	for (;;) {
		w->co->run(w, w->co->frame, NULL);
		if (w->b->error || !ag_waiting((const struct ag_lanes *)w->co->frame))
			break;
		ag_yield(w);
	}
	w->co->done = 1;
}

#define AG_CO_STACK (16u << 20)

/* Gives warp w its own stack and context; 0 on success. */
static int ag_co_start(struct ag_warp *w, struct ag_co *co, ag_run_fn run, void *frame)
{
	uintptr_t p = (uintptr_t)w;

	memset(co, 0, sizeof(*co));
	co->stack = mmap(NULL, AG_CO_STACK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
	if (co->stack == MAP_FAILED || getcontext(&co->ctx)) {
		co->stack = NULL;
		return -1;
	}
	co->run = run;
	co->frame = frame;
	w->stack_hi = (uintptr_t)co->stack + AG_CO_STACK;
	co->ctx.uc_stack.ss_sp = co->stack;
	co->ctx.uc_stack.ss_size = AG_CO_STACK;
	co->ctx.uc_link = &co->sched;
	makecontext(&co->ctx, (void (*)(void))ag_co_main, 2, (unsigned)p,
		    (unsigned)((uint64_t)p >> 32));
	w->co = co;
	return 0;
}

/* Runs warp w for one basic block, or with a stack of its own until it
 * finishes or all its lanes wait; 1 when finished.  *ran is set when
 * lanes without a stack of their own can go on running. */
static int ag_warp_step(struct ag_warp *w, ag_run_fn run, void *frame, int *ran)
{
	const struct ag_lanes *ln = frame;
	int running;

	if (w->co) {
		swapcontext(&w->co->sched, &w->co->ctx);
		return w->co->done;
	}
	run(w, frame, NULL);
	running = ag_in_state(ln, AG_RUN);
	*ran |= running;
	return !running && !ag_waiting(ln);
}

/* Runs the warps in turn, a basic block each (or, with stacks of their
 * own, each until it finishes, waits, or finds an mbarrier phase
 * incomplete), then settles the barriers (exits may complete them), until
 * every warp has finished.  Taking turns keeps the warps of a block at
 * about the same place, as on a GPU: in a grid-stride loop they then read
 * neighbouring addresses together, which the cache and its prefetchers
 * serve far better than one warp walking the whole stride alone.  A round
 * that leaves no lane able to run, completes no barrier and changes no
 * mbarrier while warps still wait is a deadlock, which a GPU would hang
 * on: the launch fails instead.  The warps may be of several blocks
 * (ag_block_run); b, the call's, names the block of the warp running, for
 * the fault a signal reports, and a block's warps stop at its error. */
static void ag_block_warps(struct ag_block *b, struct ag_warp *ws, unsigned nw,
			  unsigned char *fr, size_t frame_size, ag_run_fn run, uint8_t *done)
{
	unsigned i, left, events;
	uint32_t open;
	int ran;

	do {
		events = ws[0].bar->events;
		left = 0;
		ran = 0;
		for (i = 0; i < nw && !b->error; i++)
			if (!done[i] && !ws[i].b->error) {
				if (ws[i].b != b)
					b->ctaid[0] = ws[i].b->ctaid[0];
				done[i] = (uint8_t)ag_warp_step(&ws[i], run, fr + i * frame_size, &ran);
				left += !done[i];
			}
		for (open = ws[0].bar->open; open; open &= open - 1)
			ag_bar_settle(ws[0].bar, (unsigned)__builtin_ctz(open));
		if (left && !ran && events == ws[0].bar->events && !b->error)
			b->env->svc->fault(b, 719, "barrier deadlock: warps wait at barriers "
					   "or mbarriers that can no longer complete");
	} while (left && !b->error);
}

/* The thread indices of the block's nt threads, thread t in lane t % 32
 * of warp t / 32, x fastest.  Rows of whole warps (the common blocks)
 * take a vector loop per warp; set for every block, they are a block's
 * set-up cost. */
AG_INLINE void ag_set_tids(struct ag_warp *ws, unsigned nt, const unsigned *ntid)
{
	unsigned t, x = 0, y = 0, z = 0, l;

	if (ntid[0] % 32 == 0) {
		for (t = 0; t < nt / 32; t++) {
			unsigned row = t / (ntid[0] / 32);

			x = t % (ntid[0] / 32) * 32;
			y = row % ntid[1];
			z = row / ntid[1];
			for (l = 0; l < 32; l++) {
				ws[t].tid[0][l] = x + l;
				ws[t].tid[1][l] = y;
				ws[t].tid[2][l] = z;
			}
		}
		return;
	}
	for (t = 0; t < nt; t++) {
		ws[t / 32].tid[0][t % 32] = x;
		ws[t / 32].tid[1][t % 32] = y;
		ws[t / 32].tid[2][t % 32] = z;
		if (++x == ntid[0]) {
			x = 0;
			if (++y == ntid[1]) {
				y = 0;
				z++;
			}
		}
	}
}

/* The block's own memory, in n parts of size[i] bytes each, 64-byte
 * aligned, at base + at[i]: the worker's scratch memory (kernel_abi.h);
 * NULL when out of memory. */
AG_INLINE unsigned char *ag_scratch(struct ag_block *b, unsigned n, const size_t *size,
				    size_t *at)
{
	size_t total = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		at[i] = total;
		total += (size[i] + 63) / 64 * 64;
	}
	return b->env->svc->scratch(b, total ? total : 64);
}

/* The blocks of a call in lockstep whose warps take turns together hold
 * their frames in about this much memory: past it, the frames fell out of
 * the core's cache between one turn and the next (a grid-stride SAXPY of
 * 8 warps of 4.4 KiB frames, one thread: 17.3 ms one block at a time,
 * 12.7-13.3 with 3 or 4 together, 15.9 with 16, 20.7 with 64). */
#define AG_ROWS_FRAMES (160u << 10)

/*
 * Blocks c0 .. c0 + nb - 1 of b's row in lockstep, their warps taking
 * turns together, each yielding every AG_TURNS_ROWS turns of its loop
 * when there are several: a turn of a grid-stride loop then reads one
 * stretch of the arrays across the blocks, the grid's stride on from the
 * last, where one block alone read only its own kilobyte before the
 * stride (a grid-stride SAXPY written by hand in the two orders: 9.9
 * against 4.6 ms, one thread).  Each block runs as a copy of b with its
 * own index and error; b takes on the first error.  Lanes past a block's
 * threads start as exited.  co: every warp gets a stack of its own
 * (device functions with barriers; one block then); psize: the kernel's
 * parameter bytes (for isspacep).
 */
static void ag_block_group(struct ag_block *b, unsigned c0, unsigned nb, size_t frame_size,
			   ag_run_fn run, unsigned dyn, int co, unsigned psize)
{
	const struct ag_kernel_env *env = b->env;
	unsigned nt = env->ntid[0] * env->ntid[1] * env->ntid[2];
	unsigned nw = (nt + 31) / 32, all = nb * nw, i, j, l, t;
	struct ag_bar bar;
	const size_t size[5] = { all * frame_size, all * sizeof(struct ag_warp),
				 co ? nw * sizeof(struct ag_co) : 0,
				 nb > 1 ? nb * sizeof(struct ag_block) : 0, all };
	size_t at[5];
	unsigned char *mem = ag_scratch(b, 5, size, at);
	unsigned char *fr = mem;
	struct ag_warp *ws = mem ? (struct ag_warp *)(mem + at[1]) : NULL;
	struct ag_co *cos = mem && co ? (struct ag_co *)(mem + at[2]) : NULL;
	struct ag_block *bs = mem && nb > 1 ? (struct ag_block *)(mem + at[3]) : b;
	uint8_t *done = mem ? mem + at[4] : NULL;
	int ok = mem != NULL;

	if (ws)
		memset(ws, 0, size[1]);
	if (done)
		memset(done, 0, size[4]);
	if (cos)
		memset(cos, 0, size[2]);
	for (j = 0; ok && nb > 1 && j < nb; j++) {
		bs[j] = *b;
		bs[j].nb = 1;
		bs[j].ctaid[0] = c0 + j;
	}
	b->ctaid[0] = c0;
	memset(&bar, 0, sizeof(bar));
	for (i = 0; i < AG_NBAR; i++)
		bar.and_[i][0] = 1;
	bar.ws = ws;            /* one block's: blocks together have no barriers */
	bar.nw = nw;
	for (i = 0; ok && i < all; i++) {
		struct ag_lanes *ln = (struct ag_lanes *)(fr + i * frame_size);
		unsigned id = i % nw;
		uint32_t exited = 0;    /* a local: the byte stores below may
					 * alias ws[i] for the compiler */

		ws[i].b = &bs[i / nw];
		ws[i].bar = &bar;
		ws[i].id = id;
		ws[i].nw = nw;
		ws[i].dyn = dyn;
		ws[i].psize = psize;
		ws[i].lframe = fr;
		ws[i].lsize = all * frame_size;
		ws[i].stack_hi = (uintptr_t)__builtin_frame_address(0);
		ws[i].step = !co;
		ws[i].take = nb > 1 ? AG_TURNS_ROWS : AG_TURNS;
		for (l = 0; l < 32; l++) {
			t = id * 32 + l;
			ln->pc[l] = 0;
			ln->st[l] = t < nt ? AG_RUN : AG_EXIT;
			exited |= t < nt ? 0 : 1u << l;
		}
		ws[i].exited = exited;
		if (co && ag_co_start(&ws[i], &cos[i], run, ln))
			ok = 0;
	}
	if (ok) {
		for (j = 0; j < nb; j++)
			ag_set_tids(ws + j * nw, nt, env->ntid);
		ag_block_warps(b, ws, all, fr, frame_size, run, done);
	}
	else
		env->svc->fault(b, 2, "out of memory for the block's warps");
	for (j = 0; bs != b && j < nb && !b->error; j++)
		if (bs[j].error) {
			b->ctaid[0] = bs[j].ctaid[0];
			b->error = bs[j].error;
		}
	for (i = 0; cos && i < nw; i++)
		if (cos[i].stack)
			munmap(cos[i].stack, AG_CO_STACK);
}

/* Runs a call's blocks in lockstep: b->nb of them, the next ones of b's
 * row, when the kernel takes rows (AG_KF_ROWS: a grid-stride loop without
 * barriers or shared memory, translate.c), as many together as
 * AG_ROWS_FRAMES allows; one at a time when they have shared memory
 * (AG_KF_SWEEP, stride.c), which the worker has once. */
__attribute__((unused))
static void ag_block_run(struct ag_block *b, size_t frame_size, ag_run_fn run,
			 unsigned dyn, int co, unsigned psize)
{
	const unsigned *n = b->env->ntid;
	const size_t block = (n[0] * n[1] * n[2] + 31) / 32 * frame_size;
	const unsigned c0 = b->ctaid[0], nb = b->nb ? b->nb : 1;
	unsigned per = co || dyn || b->env->dyn_shared || block * 2 > AG_ROWS_FRAMES ? 1 :
		(unsigned)(AG_ROWS_FRAMES / block), g;

	for (g = 0; g < nb && !b->error; g += per)
		ag_block_group(b, c0 + g, nb - g < per ? nb - g : per, frame_size, run, dyn, co,
			       psize);
}

/* The most carry memory a sweep fills before its blocks run in lockstep
 * (stride.c), and the blocks that fit in it, of nx threads with slot
 * bytes each. */
#define AG_SWEEP_CARRY (4u << 20)

AG_INLINE unsigned ag_sweep_blocks(unsigned nb, int32_t nx, unsigned slot)
{
	size_t per = AG_SWEEP_CARRY / ((size_t)nx * slot);

	return per < 1 ? 1 : per < nb ? (unsigned)per : nb;
}

/* Where thread x's registers after its grid-stride loop lie, a slot of
 * size bytes, in what the sweep of its call's blocks left (b->carry,
 * stride.c); and lane l's. */
AG_INLINE const unsigned char *ag_carried_at(const struct ag_block *b, uint32_t x, unsigned size)
{
	return b->carry + ((size_t)(b->ctaid[0] - b->carry_c0) * b->env->ntid[0] + x) * size;
}

AG_INLINE const unsigned char *ag_carried(const struct ag_warp *w, unsigned l, unsigned size)
{
	return ag_carried_at(w->b, w->tid[0][l], size);
}

/* mbarrier objects, 8 bytes of shared memory: pending arrivals (bits
 * 0-20), expected arrivals (21-41), pending transaction bytes (42-62) and
 * the phase's parity (63).  The warps of a block run on one OS thread, so
 * plain loads and stores suffice.  The state an arrive returns is the
 * object as it was before the arrival (the PTX ISA's words, and what an
 * H200 does): its parity names the phase test_wait waits for, its pending
 * count, this arrival still counted, is what pending_count reads.  A phase
 * completes when no arrivals and no bytes are pending; the next one
 * expects the expected count again. */
#define AG_MB_MASK 0x1fffffull

AG_INLINE uint64_t ag_mb_load(const void *p) { uint64_t v; memcpy(&v, p, 8); return v; }

AG_INLINE uint64_t ag_mb_pack(uint64_t pend, uint64_t exp, uint64_t tx, uint64_t ph)
{
	return (pend & AG_MB_MASK) | (exp & AG_MB_MASK) << 21 | (tx & AG_MB_MASK) << 42 | ph << 63;
}

AG_INLINE void ag_mb_init(void *p, uint32_t n)
{
	uint64_t v = ag_mb_pack(n, n, 0, 0);

	memcpy(p, &v, 8);
}

/* arrive (count arrivals), arrive_drop (drop of them leave the expected
 * count too) and expect_tx (tx more bytes pending, then no arrival when
 * count is 0): returns the state; completes the phase when nothing is
 * pending. */
AG_INLINE uint64_t ag_mb_update(struct ag_warp *w, void *p, uint32_t count, uint32_t drop,
				int64_t tx)
{
	uint64_t v = ag_mb_load(p), pend = v & AG_MB_MASK, exp = v >> 21 & AG_MB_MASK;
	uint64_t ntx = (uint64_t)((int64_t)(v >> 42 & AG_MB_MASK) + tx), ph = v >> 63, nv;

	exp -= drop < exp ? drop : exp;
	pend -= count < pend ? count : pend;
	nv = pend || ntx & AG_MB_MASK ? ag_mb_pack(pend, exp, ntx, ph)
				      : ag_mb_pack(exp, exp, 0, ph ^ 1);
	memcpy(p, &nv, 8);
	if (w->bar)             /* NULL in the fast path, which never waits */
		w->bar->events++;
	return v;
}

/* Whether the phase that state (or, with parity, the phase of that
 * parity) belongs to has completed. */
AG_INLINE int ag_mb_done(const void *p, uint64_t x, int parity)
{
	return (ag_mb_load(p) >> 63) != (parity ? (x & 1) : x >> 63);
}

/* isspacep: the state space of a generic address.  Shared memory is the
 * block's window; local memory the frames of the block's threads: kernel
 * frames where the block function keeps them, device function frames on
 * the stack between this call and the block's run (a thread can only hold
 * addresses of its own). */
AG_INLINE int ag_is_shared(const struct ag_warp *w, uint64_t p)
{
	return p - (uintptr_t)w->b->shared < (uint64_t)w->dyn + w->b->env->dyn_shared;
}

static __attribute__((noinline, unused)) int ag_is_local(const struct ag_warp *w, uint64_t p)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	return p - (uintptr_t)w->lframe < w->lsize || (p >= here && p < w->stack_hi);
}

AG_INLINE int ag_in(uint64_t p, const void *base, uint64_t size)
{
	return p - (uintptr_t)base < size;
}

/* %nsmid: the multiProcessorCount the device reports, one per online CPU;
 * %smid is the worker's index modulo it. */
static unsigned ag_nsm = 1;

__attribute__((constructor, unused)) static void ag_nsm_init(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	ag_nsm = n > 0 ? (unsigned)n : 1;
}

/* Names the thread of lane l for the services' messages. */
AG_INLINE void ag_set_tid(struct ag_warp *w, unsigned l)
{
	w->b->tid[0] = w->tid[0][l];
	w->b->tid[1] = w->tid[1][l];
	w->b->tid[2] = w->tid[2][l];
}

AG_INLINE void ag_fault(struct ag_warp *w, unsigned l, int err, const char *what)
{
	ag_set_tid(w, l);
	w->b->env->svc->fault(w->b, err, what);
}

/* The fast path's thread loops (translate_fast.c): the launch's sizes and
 * the block's index, copied where the loop can see that device memory
 * does not change them. */
struct ag_dims {
	uint32_t ntid[3], ctaid[3], nctaid[3];
};

AG_INLINE struct ag_dims ag_dims_of(const struct ag_block *b)
{
	const struct ag_kernel_env *env = b->env;
	struct ag_dims d = {
		{ env->ntid[0], env->ntid[1], env->ntid[2] },
		{ b->ctaid[0], b->ctaid[1], b->ctaid[2] },
		{ env->nctaid[0], env->nctaid[1], env->nctaid[2] },
	};

	return d;
}

/* Moves a call that runs a row of blocks (AG_KF_ROWS) to the block with
 * index cx in it: what its threads read as %ctaid.x, and the block that a
 * fault or a service names (a store the compiler may not put off). */
AG_INLINE void ag_at_block(struct ag_block *b, struct ag_dims *d, uint32_t cx)
{
	d->ctaid[0] = cx;
	*(volatile unsigned *)&b->ctaid[0] = cx;
}

/* Whether the n parts of a group call start at the same threadIdx.x: a
 * block sixteen threads wide (weave.c). */
AG_INLINE uint32_t ag_gsame(const uint32_t *px, unsigned n)
{
	uint32_t same = 1;

	for (unsigned h = 1; h < n; h++)
		same &= px[h] == px[0];
	return same;
}

/* Expression e as lane n of a group call reads it (ends.c). */
#define AG_AT_LANE(n, e) __extension__ ({ const size_t l = (n); (void)l; (int)(e); })

/* Whether base + c * x, for every x in [0, n), stays inside the int32
 * (ag_sx_ok) or uint32 (ag_zx_ok) range as an integer: then widening the
 * 32-bit sum gives the widened base plus c * x (affine.c). */
AG_INLINE int ag_sx_ok(uint32_t base, int64_t c, uint32_t n)
{
	int64_t end = (int64_t)(int32_t)base + c * (int64_t)(n - 1);

	return end >= INT32_MIN && end <= INT32_MAX;
}

AG_INLINE int ag_zx_ok(uint32_t base, int64_t c, uint32_t n)
{
	int64_t end = (int64_t)base + c * (int64_t)(n - 1);

	return end >= 0 && end <= (int64_t)UINT32_MAX;
}

/* Whether base + c * x + off, for every x in [0, n) and every offset
 * 0 <= off < AG_SH_ROOM, stays inside the uint32 range: a shared-memory
 * address through a register with a base (affine.c). */
AG_INLINE int ag_zx_room(uint32_t base, int64_t c, uint32_t n)
{
	const int64_t top = (int64_t)UINT32_MAX - AG_SH_ROOM;
	int64_t end = (int64_t)base + c * (int64_t)(n - 1);

	return end >= 0 && end <= top && (int64_t)base <= top;
}

/* The group translation's threads of a row run together (group.c), and
 * whether any of n lanes of mask m is left (or of n parts of on). */
#define AG_G 16

/* In a group call's *at when it arrived at its barrier ahead (ahead.c): the
 * block function passes it over for a round. */
#define AG_AT_AHEAD 0x40000000u

AG_INLINE int ag_gany(const uint32_t *m, size_t n)
{
	uint32_t any = 0;

	for (size_t l = 0; l < n; l++)
		any |= m[l];
	return any != 0;
}

/* The first of n parts of a call that has lanes left (on), or 0. */
AG_INLINE size_t ag_gfirst(const uint32_t *on, size_t n)
{
	for (size_t h = 0; h < n; h++)
		if (on[h])
			return h;
	return 0;
}

/* Whether all n lanes of masks m run. */
AG_INLINE int ag_gfull(const uint32_t *m, size_t n)
{
	uint32_t all = 1;

	for (size_t l = 0; l < n; l++)
		all &= m[l];
	return all;
}

/* How far on a warp call asks for the lines of its global loads and
 * stores (group.c, prefetch_ahead): four warps' 512 bytes, or half a
 * block of them (2, 4 and 8 KiB did the same for the scan). */
#define AG_AHEAD 2048

/* Asks for the lines of [p + AG_AHEAD, p + AG_AHEAD + span), to write
 * (write) or to read. */
AG_INLINE void ag_prefetch_span(const char *p, long span, int write)
{
	for (long q = 0; q < span; q += 64) {
		if (write)
			__builtin_prefetch(p + AG_AHEAD + q, 1, 3);
		else
			__builtin_prefetch(p + AG_AHEAD + q, 0, 3);
	}
}

/* What a row group without lanes left loads instead (group.c): as wide
 * as the widest load. */
static const uint64_t ag_gzero[8] __attribute__((unused, aligned(64)));

/* What the fast path's threads that a guard turns away from a load read
 * instead (emit_mem.c, every_thread_loads).  Not const: the compiler
 * would know they read zeros, load only in the others, and make the load
 * a masked one again. */
uint64_t ag_gpad[8] __attribute__((aligned(64), visibility("hidden")));

/* a where c holds, else b, without a branch: behind a ?: the compiler
 * threads the branches on c that follow through it, and the load from a
 * lands on the path where c holds, a masked load again. */
AG_INLINE unsigned char *ag_sel(int c, unsigned char *a, unsigned char *b)
{
	uintptr_t m = -(uintptr_t)(c != 0);

	return (unsigned char *)(((uintptr_t)a & m) | ((uintptr_t)b & ~m));
}

/* Row groups q .. q + n - 1 of a block's nq (ngx of them in each row of
 * threads; the group translation, group.c): their first threads'
 * threadIdx, counted on from the first's, where a division each took a
 * third of the block function's time for a kernel of tiny warp calls.
 * Past nq, groups without threads (x = the block's width) in the last
 * one's row. */
AG_INLINE void ag_gparts(unsigned q, unsigned n, unsigned nq, uint32_t ngx,
			 const struct ag_dims *d, uint32_t *x, uint32_t *y, uint32_t *z)
{
	const unsigned first = q < nq ? q : nq - 1, row = first / ngx;
	uint32_t gx = first % ngx, gy = row % d->ntid[1], gz = row / d->ntid[1];

	for (unsigned k = 0; k < n; k++, q++) {
		x[k] = q < nq ? gx * AG_G : d->ntid[0];
		y[k] = gy;
		z[k] = gz;
		if (q + 1 < nq && ++gx == ngx) {
			gx = 0;
			if (++gy == d->ntid[1]) {
				gy = 0;
				gz++;
			}
		}
	}
}

/* Bits. */
AG_INLINE uint32_t ag_f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
AG_INLINE float ag_bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
AG_INLINE uint64_t ag_f64_bits(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
AG_INLINE double ag_bits_f64(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }

/* ex2.approx.f32: 2^x within 1 ulp (PTX allows 2; checked against exp2 in
 * double for every float), in straight-line code a loop over threads can
 * run as vector code, which exp2f from libm is not.  2^x = 2^n * 2^f with
 * n = rint(x) and f in [-0.5, 0.5]; 2^f by Cephes' exp2f polynomial; 2^n
 * in two factors, each a normal float, so that results near the ends of
 * the range overflow to infinity or round into the subnormals as a single
 * scaling would.  Inputs are clamped to [-150, 128], past which the result
 * is 0 or infinity anyway. */
AG_INLINE float ag_ex2f(float x)
{
	float c = x == x ? (x < -150.0f ? -150.0f : x > 128.0f ? 128.0f : x) : 0.0f;
	float n = rintf(c), f = c - n;
	int32_t e = (int32_t)n, e1 = e / 2, e2 = e - e1;
	float p = fmaf(fmaf(fmaf(fmaf(fmaf(1.535336188319500e-4f, f, 1.339887440266574e-3f), f,
		9.618437357674640e-3f), f, 5.550332471162809e-2f), f, 2.402264791363012e-1f), f,
		6.931472028550421e-1f);
	float r = fmaf(p, f, 1.0f) * ag_bits_f32((uint32_t)(e1 + 127) << 23) *
		  ag_bits_f32((uint32_t)(e2 + 127) << 23);

	return x == x ? r : x;
}

/* Unaligned-safe loads and stores of per-lane parameter bytes. */
#define ag_ld(T, p) ({ T ag_v_; memcpy(&ag_v_, (p), sizeof(ag_v_)); ag_v_; })
#define ag_st(T, p, v) do { T ag_v_ = (v); memcpy((p), &ag_v_, sizeof(ag_v_)); } while (0)

/* Integer operations PTX defines where C does not: shift counts clamp,
 * division by zero gives all ones (quotient) or the dividend (remainder),
 * INT_MIN / -1 wraps. */
#define AG_INT_OPS(N)								\
AG_INLINE uint##N##_t ag_shl##N(uint##N##_t a, uint32_t c)			\
{ return c >= N ? 0 : (uint##N##_t)((uint64_t)a << c); }			\
AG_INLINE uint##N##_t ag_shru##N(uint##N##_t a, uint32_t c)			\
{ return c >= N ? 0 : (uint##N##_t)(a >> c); }				\
AG_INLINE int##N##_t ag_shrs##N(int##N##_t a, uint32_t c)			\
{ return (int##N##_t)(a >> (c >= N ? N - 1 : c)); }			\
AG_INLINE uint##N##_t ag_divu##N(uint##N##_t a, uint##N##_t b)		\
{ return b ? (uint##N##_t)(a / b) : (uint##N##_t)~(uint##N##_t)0; }		\
AG_INLINE int##N##_t ag_divs##N(int##N##_t a, int##N##_t b)			\
{ return b == 0 ? -1 : b == -1 ? (int##N##_t)(0 - (uint##N##_t)a) : (int##N##_t)(a / b); } \
AG_INLINE uint##N##_t ag_remu##N(uint##N##_t a, uint##N##_t b)		\
{ return b ? (uint##N##_t)(a % b) : a; }					\
AG_INLINE int##N##_t ag_rems##N(int##N##_t a, int##N##_t b)			\
{ return b == 0 ? a : b == -1 ? 0 : (int##N##_t)(a % b); }			\
AG_INLINE uint##N##_t ag_absu##N(uint##N##_t a)				\
{ return (int##N##_t)a < 0 ? (uint##N##_t)(0 - a) : a; }			\
AG_INLINE uint32_t ag_popc##N(uint##N##_t a)					\
{ return (uint32_t)__builtin_popcountll(a); }					\
AG_INLINE uint32_t ag_clz##N(uint##N##_t a)					\
{ return a ? (uint32_t)__builtin_clzll(a) - (64 - N) : N; }			\
AG_INLINE uint##N##_t ag_brev##N(uint##N##_t a)				\
{ uint##N##_t r = 0; unsigned i; for (i = 0; i < N; i++) r |= (uint##N##_t)(((a >> i) & 1) << (N - 1 - i)); return r; } \
AG_INLINE uint32_t ag_bfind##N(uint##N##_t a, int sgn, int shamt)		\
{										\
	uint##N##_t x = sgn && (int##N##_t)a < 0 ? (uint##N##_t)~a : a;		\
	uint32_t p = x ? 63 - (uint32_t)__builtin_clzll(x) : 0;		\
										\
	if (!x)									\
		return 0xffffffffu;						\
	return shamt ? N - 1 - p : p;						\
}										\
AG_INLINE uint##N##_t ag_bfe##N(uint##N##_t a, uint32_t pos, uint32_t len, int sgn) \
{ uint32_t p = pos & 0xff, n = len & 0xff, k, msb; uint64_t r;		\
  k = p > N - 1 ? 0 : (n < N - p ? n : N - p);					\
  r = k ? ((uint64_t)a >> p) & (k >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1)) : 0; \
  if (sgn && n) {									\
	msb = p + n - 1 > N - 1 ? N - 1 : p + n - 1;				\
	if ((((uint64_t)a >> msb) & 1) && k < 64) r |= ~(uint64_t)0 << k;	\
  }										\
  return (uint##N##_t)r; }							\
AG_INLINE uint##N##_t ag_bfi##N(uint##N##_t a, uint##N##_t b, uint32_t pos, uint32_t len) \
{ uint32_t p = pos & 0xff, n = len & 0xff; uint##N##_t mask;			\
  if (n == 0 || p >= N) return b;						\
  if (n > N - p) n = N - p;							\
  mask = (uint##N##_t)((n >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << n) - 1)) << p); \
  return (uint##N##_t)((b & ~mask) | (((uint64_t)a << p) & mask)); }

AG_INT_OPS(8)
AG_INT_OPS(16)
AG_INT_OPS(32)
AG_INT_OPS(64)

/* bmsk: a mask of the bits from a on, ending before a + b; .wrap reads a
 * and b mod 32, .clamp gives no bits from an a past 31 and all from a for
 * a b past 31 (the PTX ISA's pseudocode). */
AG_INLINE uint32_t ag_bmsk(uint32_t a, uint32_t b, int clamp)
{
	uint32_t a1 = a & 31, b1 = b & 31, sum = a1 + b1;
	uint32_t mask0 = clamp && a >= 32 ? 0 : ~0u << a1, mask1;

	if (sum >= 32 || (clamp && (a >= 32 || b >= 32)))
		mask1 = 0;
	else
		mask1 = b1 ? ~0u << sum : ~0u;
	return mask0 & ~mask1;
}

AG_INLINE uint8_t ag_mulhu8(uint8_t a, uint8_t b) { return (uint8_t)(((uint32_t)a * b) >> 8); }
AG_INLINE int8_t ag_mulhs8(int8_t a, int8_t b) { return (int8_t)(((int32_t)a * b) >> 8); }
AG_INLINE uint16_t ag_mulhu16(uint16_t a, uint16_t b) { return (uint16_t)(((uint32_t)a * b) >> 16); }
AG_INLINE int16_t ag_mulhs16(int16_t a, int16_t b) { return (int16_t)(((int32_t)a * b) >> 16); }
AG_INLINE uint32_t ag_mulhu32(uint32_t a, uint32_t b) { return (uint32_t)(((uint64_t)a * b) >> 32); }
AG_INLINE int32_t ag_mulhs32(int32_t a, int32_t b) { return (int32_t)(((int64_t)a * b) >> 32); }
AG_INLINE uint64_t ag_mulhu64(uint64_t a, uint64_t b) { return (uint64_t)(((unsigned __int128)a * b) >> 64); }
AG_INLINE int64_t ag_mulhs64(int64_t a, int64_t b) { return (int64_t)(((__int128)a * b) >> 64); }

/* Extended-precision add and subtract: the carry (or borrow) flag in,
 * and out through *cout when not NULL. */
AG_INLINE uint32_t ag_addc32(uint32_t a, uint32_t b, uint32_t cin, uint8_t *cout)
{ uint64_t s = (uint64_t)a + b + cin; if (cout) *cout = (uint8_t)(s >> 32); return (uint32_t)s; }
AG_INLINE uint64_t ag_addc64(uint64_t a, uint64_t b, uint32_t cin, uint8_t *cout)
{ unsigned __int128 s = (unsigned __int128)a + b + cin; if (cout) *cout = (uint8_t)(s >> 64); return (uint64_t)s; }
AG_INLINE uint32_t ag_subc32(uint32_t a, uint32_t b, uint32_t bin, uint8_t *bout)
{ if (bout) *bout = (uint64_t)a < (uint64_t)b + bin; return a - b - bin; }
AG_INLINE uint64_t ag_subc64(uint64_t a, uint64_t b, uint32_t bin, uint8_t *bout)
{ if (bout) *bout = (unsigned __int128)a < (unsigned __int128)b + bin; return a - b - bin; }

AG_INLINE int32_t ag_sat_s32(int64_t r)
{ return r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : (int32_t)r; }

/* prmt: bytes of {b, a} picked by c.  Mode 0 (default): each selector
 * nibble picks a byte (bit 3 replicates its sign); the others use
 * n = c & 3: 1 .f4e, 2 .b4e, 3 .rc8, 4 .ecl, 5 .ecr, 6 .rc16. */
AG_INLINE uint32_t ag_prmt(uint32_t a, uint32_t b, uint32_t c, int mode)
{
	uint64_t x = ((uint64_t)b << 32) | a;
	uint32_t r = 0, i, s = 0, v, n = c & 3;

	for (i = 0; i < 4; i++) {
		switch (mode) {
		case 0: s = (c >> (4 * i)) & 0xf; break;
		case 1: s = (n + i) & 7; break;
		case 2: s = (n - i) & 7; break;
		case 3: s = n; break;
		case 4: s = i > n ? i : n; break;
		case 5: s = i < n ? i : n; break;
		default: s = 2 * (n & 1) + (i & 1); break;
		}
		v = (uint32_t)(x >> (8 * (s & 7))) & 0xff;
		if (mode == 0 && (s & 8))
			v = (v & 0x80) ? 0xff : 0;
		r |= v << (8 * i);
	}
	return r;
}

/* lop3: bit i of lut is the result for a, b, c bits (i >> 2, i >> 1 & 1,
 * i & 1). */
AG_INLINE uint32_t ag_lop3(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
	uint32_t r = 0, i;

	for (i = 0; i < 8; i++)
		if (lut >> i & 1)
			r |= (i & 4 ? a : ~a) & (i & 2 ? b : ~b) & (i & 1 ? c : ~c);
	return r;
}

/* Floats: ftz flushes subnormals to a zero of the same sign; sat clamps
 * to [0, 1] with NaN giving 0. */
/* Branch-free, so that loops over threads stay vector code. */
AG_INLINE float ag_ftz(float x)
{ return fabsf(x) < FLT_MIN ? copysignf(0.0f, x) : x; }
AG_INLINE float ag_sat_f32(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
AG_INLINE double ag_sat_f64(double x) { return x > 0.0 ? (x < 1.0 ? x : 1.0) : 0.0; }

/* PTX min/max: a NaN operand (quiet or signalling) yields the other one,
 * two NaNs the canonical NaN, and -0 counts as less than +0.  C's fmin
 * leaves the zeros' order open and may pass a signalling NaN on. */
#define AG_MINMAX(name, T, lt_pick)					\
AG_INLINE T name(T a, T b)						\
{									\
	if (a != a)							\
		return b != b ? (T)NAN : b;				\
	if (b != b)							\
		return a;						\
	if (a == b)							\
		return (signbit(a) != 0) == (lt_pick) ? a : b;		\
	return (a < b) == (lt_pick) ? a : b;				\
}
AG_MINMAX(ag_fminf, float, 1)
AG_MINMAX(ag_fmin, double, 1)
AG_MINMAX(ag_fmaxf, float, 0)
AG_MINMAX(ag_fmax, double, 0)
#undef AG_MINMAX

/* min.NaN/max.NaN: NaN when either operand is. */
AG_INLINE float ag_fmin_nanf(float a, float b) { return a != a || b != b ? NAN : ag_fminf(a, b); }
AG_INLINE float ag_fmax_nanf(float a, float b) { return a != a || b != b ? NAN : ag_fmaxf(a, b); }
AG_INLINE double ag_fmin_nan(double a, double b) { return a != a || b != b ? NAN : ag_fmin(a, b); }
AG_INLINE double ag_fmax_nan(double a, double b) { return a != a || b != b ? NAN : ag_fmax(a, b); }

/* The low 24 bits of an operand, sign-extended when s. */
AG_INLINE int64_t ag_low24(uint32_t x, int s)
{
	int64_t v = x & 0xffffffu;

	return s ? (v ^ 0x800000) - 0x800000 : v;
}

/* mul24's 48-bit product, as 64 bits. */
AG_INLINE uint64_t ag_mul24u(uint32_t a, uint32_t b)
{ return (uint64_t)(ag_low24(a, 0) * ag_low24(b, 0)); }
AG_INLINE uint64_t ag_mul24s(uint32_t a, uint32_t b)
{ return (uint64_t)(ag_low24(a, 1) * ag_low24(b, 1)); }

/* Element i of width bits of v, sign-extended when s. */
AG_INLINE int64_t ag_elem(uint32_t v, int i, int bits, int s)
{
	uint32_t m = bits == 8 ? 0xffu : 0xffffu, sign = bits == 8 ? 0x80u : 0x8000u;
	int64_t e = (v >> (i * bits)) & m;

	return s ? (e ^ sign) - sign : e;
}

/* The dot products of dp4a and dp2a (without c), modulo 2^32. */
AG_INLINE uint32_t ag_dp4a(uint32_t a, uint32_t b, int sa, int sb, int hi)
{
	int64_t sum = 0;
	int i;

	(void)hi;
	for (i = 0; i < 4; i++)
		sum += ag_elem(a, i, 8, sa) * ag_elem(b, i, 8, sb);
	return (uint32_t)(uint64_t)sum;
}

AG_INLINE uint32_t ag_dp2a(uint32_t a, uint32_t b, int sa, int sb, int hi)
{
	int64_t sum = 0;
	int i;

	for (i = 0; i < 2; i++)
		sum += ag_elem(a, i, 16, sa) * ag_elem(b, i + 2 * hi, 8, sb);
	return (uint32_t)(uint64_t)sum;
}

/* Rounding modes: 0 nearest even, 1 toward zero, 2 down, 3 up.  x is
 * exact in long double for every integer and double source; the result
 * rounded to nearest is within one step of the wanted one. */
AG_INLINE float ag_to_f32(long double x, int mode)
{
	float f = (float)x;

	if (mode == 0 || x != x || (long double)f == x)
		return f;
	if (mode == 1 && fabsl((long double)f) > fabsl(x))
		return nextafterf(f, 0.0f);
	if (mode == 2 && (long double)f > x)
		return nextafterf(f, -INFINITY);
	if (mode == 3 && (long double)f < x)
		return nextafterf(f, INFINITY);
	return f;
}

AG_INLINE double ag_to_f64(long double x, int mode)
{
	double f = (double)x;

	if (mode == 0 || x != x || (long double)f == x)
		return f;
	if (mode == 1 && fabsl((long double)f) > fabsl(x))
		return nextafter(f, 0.0);
	if (mode == 2 && (long double)f > x)
		return nextafter(f, -INFINITY);
	if (mode == 3 && (long double)f < x)
		return nextafter(f, INFINITY);
	return f;
}

/* f64 arithmetic rounded toward zero (1), down (2) or up (3).  The result
 * rounded to nearest, x, and the sign of the rest, e (exact - x), decide
 * whether to step one unit away from x. */
AG_INLINE double ag_step_f64(double x, double e, int mode, int fin)
{
	if (isinf(x) && fin && mode)	/* overflow of a finite result */
		return mode == 1 || (mode == 2) == (x > 0) ? (x > 0 ? DBL_MAX : -DBL_MAX) : x;
	if (e == 0 || mode == 0 || x != x)
		return x;
	if (mode == 3 && e > 0)
		return nextafter(x, INFINITY);
	if (mode == 2 && e < 0)
		return nextafter(x, -INFINITY);
	if (mode == 1 && ((x > 0 && e < 0) || (x < 0 && e > 0)))
		return nextafter(x, 0);
	return x;
}

/* The float next to f (not a NaN) toward +infinity (up) or -infinity, by
 * its bits: no branch, so that loops over threads stay vector code.
 * Stepping toward the sign bit's side crosses zero to the smallest
 * subnormal of the other sign. */
AG_INLINE float ag_next_f32(float f, int up)
{
	uint32_t u = ag_f32_bits(f);
	uint32_t away = u + 1, back = (u & 0x7fffffffu) ? u - 1 : (u ^ 0x80000000u) + 1;

	return ag_bits_f32((u >> 31) == (uint32_t)!up ? away : back);
}

/* f32 results computed in double as s + e exactly (or with e of the
 * right sign), rounded as mode says.  f = s rounded to nearest is above
 * the exact value when it is above s, or equals s and e < 0; then
 * rounding down, or toward zero from above zero, takes the float below
 * it, and likewise upward.  s = 0 does not come here (ag_zero_sum). */
AG_INLINE float ag_round_f32(double s, double e, int mode)
{
	float f = (float)s;
	double d = (double)f;
	int above = d > s || (d == s && e < 0), below = d < s || (d == s && e > 0);
	int down = mode == 2 || (mode == 1 && s > 0), up = mode == 3 || (mode == 1 && s < 0);

	return down && above ? ag_next_f32(f, 0) : up && below ? ag_next_f32(f, 1) : f;
}

/* The rounding error of s = a + b (Knuth's TwoSum). */
AG_INLINE double ag_sum_err(double a, double b, double s)
{
	double bb = s - a;

	return (a - (s - bb)) + (b - bb);
}

/* An exact zero sum of a and b: -0 when rounding down unless both are +0,
 * else +0 unless both are -0 (IEEE 754). */
AG_INLINE double ag_zero_sum(double a, double b, int mode)
{
	if (mode == 2)
		return signbit(a) || signbit(b) ? -0.0 : 0.0;
	return signbit(a) && signbit(b) ? -0.0 : 0.0;
}

/* f32 operations are exact in double (sums up to their rounding error);
 * f64 ones take the sign of the rest from long double, which neither
 * overflows nor underflows where double does. */
AG_INLINE float ag_add_f32r(float a, float b, int mode)
{
	double s = (double)a + b;

	return s == 0 ? (float)ag_zero_sum(a, b, mode) : ag_round_f32(s, ag_sum_err(a, b, s), mode);
}

AG_INLINE float ag_mul_f32r(float a, float b, int mode)
{ return ag_to_f32((double)a * b, mode); }

AG_INLINE float ag_fma_f32r(float a, float b, float c, int mode)
{
	double p = (double)a * b, s = p + c;

	return s == 0 ? (float)ag_zero_sum(p, c, mode) : ag_round_f32(s, ag_sum_err(p, c, s), mode);
}

AG_INLINE float ag_div_f32r(float a, float b, int mode)
{ double q = (double)a / b; return ag_round_f32(q, fma(-q, b, a) / b, mode); }
AG_INLINE float ag_sqrt_f32r(float a, int mode)
{ double s = sqrt((double)a); return ag_round_f32(s, fma(-s, s, a), mode); }

AG_INLINE double ag_sgnl(long double v)
{
	return v > 0 ? 1 : v < 0 ? -1 : 0;
}

AG_INLINE double ag_add_f64r(double a, double b, int mode)
{
	double s = a + b;

	if (s == 0)
		return ag_zero_sum(a, b, mode);
	return ag_step_f64(s, ag_sum_err(a, b, s), mode, isfinite(a) && isfinite(b));
}

AG_INLINE double ag_mul_f64r(double a, double b, int mode)
{
	double p = a * b;

	return ag_step_f64(p, ag_sgnl(fmal(a, b, -(long double)p)), mode,
			   isfinite(a) && isfinite(b));
}

AG_INLINE double ag_div_f64r(double a, double b, int mode)
{
	double q = a / b;

	return ag_step_f64(q, ag_sgnl(fmal(-(long double)q, b, a)) * (b < 0 ? -1 : 1), mode,
			   isfinite(a) && isfinite(b) && b != 0);
}

AG_INLINE double ag_sqrt_f64r(double a, int mode)
{ double s = sqrt(a); return ag_step_f64(s, ag_sgnl(fmal(-(long double)s, s, a)), mode, 0); }

/* binary128: 113 bits hold any product of two doubles exactly. */
#if LDBL_MANT_DIG >= 113
typedef long double ag_f128;
#else
typedef __float128 ag_f128;
#endif

/* f64 fma rounded toward zero (1), down (2) or up (3): r, the fma rounded
 * to nearest, is stepped by the sign of the exact rest a*b + c - r, which
 * is (s - r) + e with s + e = a*b + c exactly (TwoSum in binary128, where
 * a*b is exact and nothing underflows); s - r is exact (they are within
 * one double step of each other). */
AG_INLINE double ag_fma_f64r(double a, double b, double c, int mode)
{
	double r = fma(a, b, c);
	ag_f128 p, s, bb, e;

	if (!isfinite(r))
		return ag_step_f64(r, 0, mode, isfinite(a) && isfinite(b) && isfinite(c));
	p = (ag_f128)a * b;
	s = p + c;
	if (r == 0 && s == 0)
		return ag_zero_sum(signbit(a) != signbit(b) ? -1.0 : 1.0, c, mode);
	bb = s - p;
	e = (p - (s - bb)) + (c - bb);
	return ag_step_f64(r, ag_sgnl((long double)((s - r) + e)), mode, 1);
}

/* shf: the funnel of b:a shifted left (high word kept) or right (low
 * word kept) by c, which wraps mod 32 or clamps to 32. */
AG_INLINE uint32_t ag_shf(uint32_t a, uint32_t b, uint32_t c, int left, int clamp)
{
	uint64_t x = ((uint64_t)b << 32) | a;
	uint32_t n = clamp ? (c > 32 ? 32 : c) : c & 31;

	return left ? (uint32_t)((x << n) >> 32) : (uint32_t)(x >> n);
}

AG_INLINE double ag_rint(double x, int mode)
{
	switch (mode) {
	case 1: return trunc(x);
	case 2: return floor(x);
	case 3: return ceil(x);
	default: return nearbyint(x);
	}
}

AG_INLINE float ag_rintf(float x, int mode)
{
	switch (mode) {
	case 1: return truncf(x);
	case 2: return floorf(x);
	case 3: return ceilf(x);
	default: return nearbyintf(x);
	}
}

/* Float to integer as PTX does it: NaN gives 0, out of range clamps. */
#define AG_F2I(N, T, LO, HI)							\
AG_INLINE T ag_f2i_##N(double x, int mode)					\
{										\
	x = ag_rint(x, mode);							\
	if (x != x)								\
		return 0;							\
	if (x <= (double)(LO))							\
		return LO;							\
	if (x >= (double)(HI))							\
		return HI;							\
	return (T)x;								\
}
AG_F2I(s8, int8_t, INT8_MIN, INT8_MAX)
AG_F2I(s16, int16_t, INT16_MIN, INT16_MAX)
AG_F2I(s32, int32_t, INT32_MIN, INT32_MAX)
AG_F2I(s64, int64_t, INT64_MIN, INT64_MAX)
AG_F2I(u8, uint8_t, 0, UINT8_MAX)
AG_F2I(u16, uint16_t, 0, UINT16_MAX)
AG_F2I(u32, uint32_t, 0, UINT32_MAX)
AG_F2I(u64, uint64_t, 0, UINT64_MAX)

/* Integer saturation for cvt.sat between integer types. */
AG_INLINE int64_t ag_clamp_s(int64_t x, int64_t lo, int64_t hi)
{ return x < lo ? lo : x > hi ? hi : x; }
AG_INLINE uint64_t ag_clamp_u(uint64_t x, uint64_t hi) { return x > hi ? hi : x; }

/* Half precision, IEEE binary16, kept as its bits. */
AG_INLINE float ag_f16_f32(uint16_t h)
{
	uint32_t s = (uint32_t)(h >> 15) << 31, e = (h >> 10) & 0x1f, f = h & 0x3ff;

	if (e == 0x1f)
		return ag_bits_f32(s | 0x7f800000u | (f << 13));
	if (e == 0)
		return (s ? -1.0f : 1.0f) * ldexpf((float)f, -24);
	return ag_bits_f32(s | ((e + 112) << 23) | (f << 13));
}

AG_INLINE uint16_t ag_to_f16(double x, int mode)
{
	uint32_t s = signbit(x) ? 0x8000 : 0;
	double a = fabs(x), q, lo;
	int e, up;

	if (x != x)
		return (uint16_t)(s | 0x7e00);
	if (a >= 65536.0) {
		up = mode == 0 || (mode == 2 && s) || (mode == 3 && !s);
		return (uint16_t)(s | (up ? 0x7c00 : 0x7bff));
	}
	/* a = q * 2^e on the f16 grid at a's magnitude (q in [1024, 2048)
	 * for normals), q rounded to an integer. */
	frexp(a, &e);
	e = a < 0x1p-14 ? -24 : e - 11;
	q = ldexp(a, -e);
	lo = floor(q);
	if (q != lo) {
		up = mode == 0 ? (q - lo > 0.5 || (q - lo == 0.5 && fmod(lo, 2.0) != 0)) :
			mode == 1 ? 0 : mode == 2 ? s != 0 : s == 0;
		q = lo + up;
	}
	if (q >= 2048) {
		q /= 2;
		e++;
	}
	if (q < 1024)
		return (uint16_t)(s | (uint32_t)q);
	if (e + 25 >= 31)
		return (uint16_t)(s | 0x7c00);
	return (uint16_t)(s | (uint32_t)(e + 25) << 10 | (uint32_t)(q - 1024));
}

/* bfloat16: the upper half of an f32; 0 rounds to nearest even, 1 to zero. */
AG_INLINE uint16_t ag_f32_bf16(float x, int mode)
{
	uint32_t u = ag_f32_bits(x);

	if (x != x)
		return (uint16_t)((u >> 16) | 0x40);
	if (mode == 1)
		return (uint16_t)(u >> 16);
	return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* x rounded to float so that a second rounding to fewer bits is exact:
 * round to odd (an inexact result keeps its last bit set). */
AG_INLINE float ag_f32_odd(double x)
{
	float f = (float)x;

	if ((double)f != x && x == x && !(ag_f32_bits(f) & 1))
		f = nextafterf(f, x > f ? INFINITY : -INFINITY);
	return f;
}

AG_INLINE double ag_odd_sum(double a, double b)
{
	double s = a + b, e = ag_sum_err(a, b, s);

	if (e != 0 && !(ag_f64_bits(s) & 1))
		s = nextafter(s, e > 0 ? INFINITY : -INFINITY);
	return s;
}

AG_INLINE double ag_h2d(uint16_t h, int bf)
{
	return bf ? ag_bits_f32((uint32_t)h << 16) : ag_f16_f32(h);
}

AG_INLINE double ag_h2d_f(uint16_t h) { return ag_h2d(h, 0); }
AG_INLINE double ag_h2d_bf(uint16_t h) { return ag_h2d(h, 1); }

AG_INLINE uint16_t ag_d2h(double x, int bf)
{
	return bf ? ag_f32_bf16(ag_f32_odd(x), 0) : ag_to_f16(x, 0);
}

/* .ftz on .f16: a subnormal half becomes a zero of the same sign. */
AG_INLINE uint16_t ag_hftz(uint16_t h) { return (h & 0x7c00u) ? h : (uint16_t)(h & 0x8000u); }

/* Half arithmetic, rounded to nearest once: 0 add, 1 sub, 2 mul, 3 fma,
 * 4 min, 5 max.  Products of halves are exact in double; sums are
 * rounded to odd first, which makes the final rounding exact. */
AG_INLINE uint16_t ag_hop(int op, uint16_t a, uint16_t b, uint16_t c, int bf, int sat, int ftz)
{
	double x, y, r;
	uint16_t d;

	if (ftz) {
		a = ag_hftz(a);
		b = ag_hftz(b);
		c = ag_hftz(c);
	}
	x = ag_h2d(a, bf);
	y = ag_h2d(b, bf);

	switch (op) {
	case 0: r = ag_odd_sum(x, y); break;
	case 1: r = ag_odd_sum(x, -y); break;
	case 2: r = x * y; break;
	case 3: r = ag_odd_sum(x * y, ag_h2d(c, bf)); break;
	case 4: r = ag_fmin(x, y); break;
	default: r = ag_fmax(x, y); break;
	}
	d = ag_d2h(sat ? ag_sat_f64(r) : r, bf);
	return ftz ? ag_hftz(d) : d;
}

AG_INLINE uint32_t ag_hop2(int op, uint32_t a, uint32_t b, uint32_t c, int bf, int sat, int ftz)
{
	return ag_hop(op, (uint16_t)a, (uint16_t)b, (uint16_t)c, bf, sat, ftz) |
		(uint32_t)ag_hop(op, (uint16_t)(a >> 16), (uint16_t)(b >> 16), (uint16_t)(c >> 16),
				 bf, sat, ftz) << 16;
}

/* Atomics.  Everything of a block runs on one OS thread, but blocks run
 * in parallel, so global memory needs real atomics. */
AG_INLINE float ag_atom_add_f32(void *p, float v)
{
	uint32_t o = __atomic_load_n((uint32_t *)p, __ATOMIC_RELAXED), n;

	do
		n = ag_f32_bits(ag_bits_f32(o) + v);
	while (!__atomic_compare_exchange_n((uint32_t *)p, &o, n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return ag_bits_f32(o);
}

AG_INLINE double ag_atom_add_f64(void *p, double v)
{
	uint64_t o = __atomic_load_n((uint64_t *)p, __ATOMIC_RELAXED), n;

	do
		n = ag_f64_bits(ag_bits_f64(o) + v);
	while (!__atomic_compare_exchange_n((uint64_t *)p, &o, n, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return ag_bits_f64(o);
}

#define AG_ATOM_CAS(NAME, T, NEW)						\
AG_INLINE T ag_atom_##NAME(void *p, T v)					\
{ T o = __atomic_load_n((T *)p, __ATOMIC_RELAXED), n;				\
  do n = (NEW); while (!__atomic_compare_exchange_n((T *)p, &o, n, 1,		\
		      __ATOMIC_RELAXED, __ATOMIC_RELAXED));			\
  return o; }
AG_ATOM_CAS(min_u32, uint32_t, o < v ? o : v)
AG_ATOM_CAS(max_u32, uint32_t, o > v ? o : v)
AG_ATOM_CAS(min_s32, int32_t, o < v ? o : v)
AG_ATOM_CAS(max_s32, int32_t, o > v ? o : v)
AG_ATOM_CAS(min_u64, uint64_t, o < v ? o : v)
AG_ATOM_CAS(max_u64, uint64_t, o > v ? o : v)
AG_ATOM_CAS(min_s64, int64_t, o < v ? o : v)
AG_ATOM_CAS(max_s64, int64_t, o > v ? o : v)
AG_ATOM_CAS(inc_u32, uint32_t, o >= v ? 0 : o + 1)
AG_ATOM_CAS(dec_u32, uint32_t, (o == 0 || o > v) ? v : o - 1)

AG_INLINE uint32_t ag_atom_cas32(void *p, uint32_t c, uint32_t v)
{
	__atomic_compare_exchange_n((uint32_t *)p, &c, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return c;
}

AG_INLINE uint64_t ag_atom_cas64(void *p, uint64_t c, uint64_t v)
{
	__atomic_compare_exchange_n((uint64_t *)p, &c, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
	return c;
}

/* Atomics on the block's shared memory.  A block runs on one OS thread
 * from its start to its end and no other thread reaches its shared
 * memory, so a plain read-modify-write is atomic: a few cycles where a
 * locked instruction costs tens (shared-memory histograms). */
#define AG_SH_RMW(name, T, expr)						\
AG_INLINE T name(void *p, T v)							\
{										\
	T o, n;									\
										\
	memcpy(&o, p, sizeof(o));						\
	n = (expr);								\
	memcpy(p, &n, sizeof(n));						\
	return o;								\
}
AG_SH_RMW(ag_sh_add_u32, uint32_t, o + v)
AG_SH_RMW(ag_sh_add_u64, uint64_t, o + v)
AG_SH_RMW(ag_sh_add_f32, float, o + v)
AG_SH_RMW(ag_sh_add_f64, double, o + v)
AG_SH_RMW(ag_sh_and_u32, uint32_t, o & v)
AG_SH_RMW(ag_sh_and_u64, uint64_t, o & v)
AG_SH_RMW(ag_sh_or_u32, uint32_t, o | v)
AG_SH_RMW(ag_sh_or_u64, uint64_t, o | v)
AG_SH_RMW(ag_sh_xor_u32, uint32_t, o ^ v)
AG_SH_RMW(ag_sh_xor_u64, uint64_t, o ^ v)
AG_SH_RMW(ag_sh_exch_u32, uint32_t, v)
AG_SH_RMW(ag_sh_exch_u64, uint64_t, v)

/* shfl.sync: the source lane of lane for mode 0 up, 1 down, 2 bfly,
 * 3 idx; *ok says whether it lies inside the segment c describes. */
AG_INLINE int ag_shfl_src(int mode, int lane, uint32_t b, uint32_t c, uint8_t *ok)
{
	int bv = (int)(b & 31), cv = (int)(c & 31), seg = (int)((c >> 8) & 31);
	int maxl = (lane & seg) | (cv & ~seg), minl = lane & seg;
	int j;

	switch (mode) {
	case 0:
		j = lane - bv;
		*ok = j >= maxl;
		break;
	case 1:
		j = lane + bv;
		*ok = j <= maxl;
		break;
	case 2:
		j = lane ^ bv;
		*ok = j <= maxl;
		break;
	default:
		j = minl | (bv & ~seg);
		*ok = j <= maxl;
		break;
	}
	return *ok ? j : lane;
}

/* shfl.sync for a whole warp whose lanes all give the same b and c: each
 * lane's result (d) and whether its source lane lies in its segment (ok,
 * unless NULL), from the lanes' values, lanes 16h.. of half h at src[h]
 * and d[h] (the two row groups of a group translation's warp call, or the
 * halves of a warp's row).  With GCC, a permute of the two halves'
 * vectors for each half: read back from memory at the shifted lanes right
 * after being stored, the values waited for the stores (the scan, one
 * thread, 57.8 -> 52.6 ms). */
#if defined(__GNUC__) && !defined(__clang__)
typedef uint32_t ag_v16u __attribute__((vector_size(64)));
typedef int32_t ag_v16i __attribute__((vector_size(64)));

AG_INLINE void ag_shfl_halves(int mode, const uint32_t *const src[2], uint32_t b, uint32_t c,
			      uint32_t *const d[2], uint8_t *ok)
{
	const ag_v16i half = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
	const int32_t bv = (int32_t)(b & 31), cv = (int32_t)(c & 31), seg = (int32_t)((c >> 8) & 31);
	ag_v16u v[2], r[2];
	unsigned h, l;

	memcpy(&v[0], src[0], sizeof(v[0]));
	memcpy(&v[1], src[1], sizeof(v[1]));
	for (h = 0; h < 2; h++) {
		const ag_v16i lane = half + (int32_t)(16 * h);
		const ag_v16i maxl = (lane & seg) | (cv & ~seg);
		ag_v16i j, k;

		switch (mode) {
		case 0:
			j = lane - bv;
			k = j >= maxl;
			break;
		case 1:
			j = lane + bv;
			k = j <= maxl;
			break;
		case 2:
			j = lane ^ bv;
			k = j <= maxl;
			break;
		default:
			j = (lane & seg) | (bv & ~seg);
			k = j <= maxl;
			break;
		}
		j = (j & k) | (lane & ~k);
		r[h] = __builtin_shuffle(v[0], v[1], (ag_v16u)(j & 31));
		for (l = 0; ok && l < 16; l++)
			ok[16 * h + l] = k[l] != 0;
	}
	/* after both: d may be src */
	memcpy(d[0], &r[0], sizeof(r[0]));
	memcpy(d[1], &r[1], sizeof(r[1]));
}
#else
AG_INLINE void ag_shfl_halves(int mode, const uint32_t *const src[2], uint32_t b, uint32_t c,
			      uint32_t *const d[2], uint8_t *ok)
{
	uint32_t all[32], r[32];
	unsigned l;

	memcpy(all, src[0], 16 * sizeof(uint32_t));
	memcpy(all + 16, src[1], 16 * sizeof(uint32_t));
	for (l = 0; l < 32; l++) {
		uint8_t k;

		r[l] = all[ag_shfl_src(mode, (int)l, b, c, &k)];
		if (ok)
			ok[l] = k;
	}
	memcpy(d[0], r, 16 * sizeof(uint32_t));
	memcpy(d[1], r + 16, 16 * sizeof(uint32_t));
}
#endif

/* The same for a warp's row of 32 values. */
AG_INLINE void ag_shfl_warp(int mode, const uint32_t *src, uint32_t b, uint32_t c, uint32_t *d,
			    uint8_t *ok)
{
	const uint32_t *const s[2] = { src, src + 16 };
	uint32_t *const r[2] = { d, d + 16 };

	ag_shfl_halves(mode, s, b, c, r, ok);
}

AG_INLINE uint32_t ag_mask_bits(const uint8_t *m)
{
	uint32_t r = 0;
	unsigned l;

	for (l = 0; l < 32; l++)
		r |= (uint32_t)(m[l] != 0) << l;
	return r;
}

AG_INLINE uint64_t ag_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

AG_INLINE uint64_t ag_globaltimer(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
