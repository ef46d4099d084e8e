/*
 * localize.c - where a lockstep function keeps the registers that live
 * only inside one basic block: in arrays on the stack instead of the
 * warp's frame.
 *
 * The frame is the warp's own, and the scheduler gives each warp of the
 * block turns, so a loop body's rows of 32 lanes, one per register (nvcc
 * names a fresh register for each value), add up over the warps to more
 * than the first-level cache holds.  A register whose every value the
 * block makes and uses up (live.c: the first instruction of the block to
 * mention it surely writes it, and it is dead after the block) needs no
 * place that lasts beyond the block.  On the stack it takes the same
 * bytes for every warp, which stay in the cache, and the C compiler knows
 * that no pointer of the kernel reaches it.  A block is run from its top
 * to its end without leaving the function in between (barriers and
 * branches end blocks; a block with a call keeps its frame rows), so the
 * arrays hold their values for as long as the registers live.
 *
 * A predicate's array holds 32-bit words, not the frame's bytes: a loop
 * over half a warp's 16 lanes that mixes bytes with floats is vectorized
 * 16 bytes at a time, floats four to a vector; with words, eight.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

/* How many times s occurs in text. */
static size_t count(const char *text, const char *s)
{
	size_t n = 0;

	for (; (text = strstr(text, s)); text += strlen(s))
		n++;
	return n;
}

/* Every occurrence of from in sb replaced by to. */
static void replace_all(struct strbuf *sb, const char *from, const char *to)
{
	struct strbuf out = STRBUF_INIT;
	const char *at = sb->buf, *hit;

	while ((hit = strstr(at, from))) {
		sb_add(&out, at, (size_t)(hit - at));
		sb_adds(&out, to);
		at = hit + strlen(from);
	}
	sb_adds(&out, at);
	sb_free(sb);
	*sb = out;
}

/*
 * Register reg's row in code, where the row is only ever indexed by the
 * lane, becomes a stack array (lanes: "ag_t3_21_[l]") or, inside a loop
 * over the lanes whose every iteration writes the register before reading
 * it, a scalar ("ag_s3_21"), declared in decl.  Its type is written out:
 * the row's name in a __typeof__ would count as a use of it.
 */
void tr_move_row(struct tr *t, const char *reg, struct strbuf *code, struct strbuf *decl,
		 int lanes)
{
	const struct tr_sym *s = tr_lookup(t, reg);
	struct strbuf row = STRBUF_INIT, local = STRBUF_INIT;
	size_t k;

	/* "W->r3[21][l]" and its prefix "W->r3[21][" */
	if (tr_reg_lvalue(t, reg, &row) || row.len < 8 || strncmp(row.buf, "W->r", 4) ||
	    strcmp(row.buf + row.len - 3, "[l]"))
		goto out;
	row.buf[row.len - 2] = 0;
	k = count(code->buf, row.buf);
	row.buf[row.len - 2] = 'l';
	if (!k || k != count(code->buf, row.buf))
		goto out;
	sb_adds(&local, lanes ? "ag_t" : "ag_s");
	for (k = 4; k < row.len - 3; k++)
		if (row.buf[k] != ']')
			sb_addf(&local, "%c", row.buf[k] == '[' ? '_' : row.buf[k]);
	sb_addf(decl, "\t\t%s %s%s%s;\n", s->type == PTX_T_PRED ? "uint32_t" : tr_ctype(s->type),
		local.buf, lanes ? "_" : "", lanes ? "[32]" : "");
	sb_adds(&local, lanes ? "_[l]" : "");
	replace_all(code, row.buf, local.buf);
out:
	sb_free(&row);
	sb_free(&local);
}

/* The block of instructions ins[0..n), whose code starts at offset at of
 * t->code, gets its block-local registers on the stack. */
void tr_localize(struct tr *t, const struct ptx_insn *const *ins, uint32_t n, size_t at)
{
	struct strbuf code = STRBUF_INIT, decl = STRBUF_INIT;
	const char **regs;
	uint32_t i, nregs;

	if (t->scalar || at >= t->code.len)
		return;
	for (i = 0; i < n; i++)
		if (!strcmp(ins[i]->opcode, "call"))
			return;
	nregs = tr_live_run(tr_liveness(t), ins, n, &regs);
	sb_adds(&code, t->code.buf + at);
	for (i = 0; i < nregs; i++)
		tr_move_row(t, regs[i], &code, &decl, 1);
	if (decl.len) {
		sb_truncate(&t->code, at);
		sb_addf(&t->code, "\t\t{\n%s%s\t\t}\n", decl.buf, code.buf);
	}
	free(regs);
	sb_free(&code);
	sb_free(&decl);
}
