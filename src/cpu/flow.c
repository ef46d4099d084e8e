/*
 * flow.c - a function's instructions as a graph, for the analyses that
 * follow its control flow (live.c, uniform.c): the instructions in body
 * order, and each one's successors, the next instruction and a branch's
 * target, where a label stands for the instruction after it (index n: the
 * end of the body).  Indexed branches (brx.idx) cannot be followed.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

uint32_t tr_label_stmt(const struct ptx_func *fn, const char *label)
{
	uint32_t i;

	for (i = 0; i < fn->nbody; i++)
		if (fn->body[i].kind == PTX_STMT_LABEL && !strcmp(fn->body[i].u.label, label))
			return i;
	return UINT32_MAX;
}

static uint32_t label_target(const struct ptx_func *fn, const uint32_t *at, const char *label)
{
	uint32_t i = tr_label_stmt(fn, label);

	return i == UINT32_MAX ? UINT32_MAX : at[i];
}

/* Successors of instruction i; -1 when it is a branch that cannot be
 * followed. */
static int link(const struct ptx_func *fn, const uint32_t *at, struct tr_flow *f, uint32_t i)
{
	const struct ptx_insn *x = f->ins[i];
	int bra = !strcmp(x->opcode, "bra");

	f->next[i] = i + 1;
	f->jump[i] = UINT32_MAX;
	f->ends[i] = (uint8_t)tr_is_stop(x);
	if (!strcmp(x->opcode, "brx"))
		return -1;
	if (bra) {
		if (x->nops != 1 || x->ops[0].kind != PTX_OP_SYM)
			return -1;
		f->jump[i] = label_target(fn, at, x->ops[0].name);
		if (f->jump[i] == UINT32_MAX)
			return -1;
	}
	if (!x->guard && (bra || f->ends[i]))
		f->next[i] = UINT32_MAX;
	return 0;
}

int tr_flow_build(const struct ptx_func *fn, struct tr_flow *f)
{
	uint32_t *at = xcalloc(fn->nbody + 1, sizeof(*at)), i;
	int rc = 0;

	memset(f, 0, sizeof(*f));
	f->ins = xcalloc(fn->nbody + 1, sizeof(*f->ins));
	for (i = 0; i < fn->nbody; i++) {
		at[i] = f->n;   /* a label's instruction: the next one */
		if (fn->body[i].kind == PTX_STMT_INSN)
			f->ins[f->n++] = &fn->body[i].u.insn;
	}
	f->next = xcalloc(f->n + 1, sizeof(*f->next));
	f->jump = xcalloc(f->n + 1, sizeof(*f->jump));
	f->ends = xcalloc(f->n + 1, 1);
	for (i = 0; i < f->n && !rc; i++)
		rc = link(fn, at, f, i);
	free(at);
	if (rc)
		tr_flow_free(f);
	return rc;
}

void tr_flow_free(struct tr_flow *f)
{
	free(f->ins);
	free(f->next);
	free(f->jump);
	free(f->ends);
	memset(f, 0, sizeof(*f));
}
