/*
 * weave.c - a block of a call whose parts are looped over, rewritten with
 * the parts side by side in one loop over the lanes.
 *
 * In a kernel with barriers a group call runs eight parts (rows of
 * sixteen threads) in a loop over the parts, each part's instructions of
 * a block from the first to the last before the next part's (group.c).
 * The tiled SGEMM's products are then a chain of sixteen dependent FMAs
 * per part, each reading a row of the shared B tile and a value of the A
 * tile that GCC broadcasts: 256 loads for 128 FMAs a tile and call, and
 * the loads bound it.  Yet the B tile's rows are the same for every part
 * of a block sixteen threads wide: the address is made from %tid.x alone.
 * Woven, each instruction is written out once per part, the parts' copies
 * next to each other, in one loop over the lanes: what every part reads
 * the same (tr_shape_same, when the parts' lanes have the same %tid.x)
 * is part 0's, so GCC loads each row once and the eight chains run side
 * by side (one thread, 7.7 -> 5.1 ms).  The instructions that run once
 * per part go into the loop too, each part's value a local of its own:
 * left before it, in the parts' arrays, their 128 values went through
 * the stack (7.9 ms).
 *
 * The rewrite is of the block's generated text, in the forms group.c
 * writes: each instruction starts with a comment line of its number and
 * opcode, reads part h's registers as "X[h]" (arrays of the parts'
 * values, and rows "X[h][l]"), its masks as "m[h][l]", part values as
 * "X_h" in the loop over the lanes, and the loop's own locals as "X_s".
 * Part h's copy names them X_wH, m[H][l] (1u: the woven form is for calls
 * whose every lane runs) and X_sH.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/translate_int.h"

#define MARK "\t\t/* "

/* Blocks of more instructions are not woven: written out once per part,
 * they would cost the C compiler more than their loop saves. */
#define WEAVE_MAX 512

/* The instructions of text, each from its comment line to the next. */
static uint32_t split(const char *text, size_t n, const char ***at)
{
	const char *p = text, *end = text + n;
	uint32_t k = 0;

	*at = NULL;
	while (p < end && (p = strstr(p, MARK)) && p < end) {
		*at = xrealloc(*at, (k + 1) * sizeof(**at));
		(*at)[k++] = p;
		p += sizeof(MARK) - 1;
	}
	return k;
}

/* The names X of text's parts' values "X[h]" (not rows, "X[h][l]"):
 * those it writes as "\t\t\tX[h] = " into dests, the others into reads.
 * -1 when it reads one before it writes it. */
static int part_names(const char *text, size_t n, struct tr_names *dests,
		      struct tr_names *reads)
{
	const char *p, *end = text + n, *q;

	for (p = text; p < end && (q = strstr(p, "[h]")) && q < end; p = q + 3) {
		const char *b = q;
		char *name;
		int write;

		while (b > text && (isalnum((unsigned char)b[-1]) || b[-1] == '_'))
			b--;
		if (b == q || q[3] == '[')
			continue;
		name = xmalloc((size_t)(q - b) + 1);
		memcpy(name, b, (size_t)(q - b));
		name[q - b] = 0;
		write = b - text >= 3 && !strncmp(b - 3, "\t\t\t", 3) && !strncmp(q, "[h] = ", 6);
		if (tr_names_has(reads, name) && write) {
			free(name);
			return -1;
		}
		if (tr_names_has(dests, name) || tr_names_has(reads, name))
			free(name);
		else
			tr_names_add(write ? dests : reads, name);
	}
	return 0;
}

/* Instruction text (n bytes) as part h's copy in the woven loop: the
 * parts' values named (X[h], X_h) become X_wH, the loop's locals X_sH. */
static void part_copy(const struct tr_weave *w, const struct tr_names *named, const char *text,
		      size_t n, uint32_t h, struct strbuf *out)
{
	size_t at = out->len;
	uint32_t i;
	char part[32];

	sb_add(out, text, n);
	for (i = 0; i < named->n; i++) {
		struct strbuf from = STRBUF_INIT, to = STRBUF_INIT;

		sb_addf(&from, "%s[h]", named->v[i]);
		sb_addf(&to, "%s_w%u", named->v[i], h);
		sb_replace(out, at, from.buf, to.buf, 1);
		sb_reset(&from);
		sb_addf(&from, "%s_h", named->v[i]);
		sb_replace(out, at, from.buf, to.buf, 1);
		sb_free(&from);
		sb_free(&to);
	}
	for (i = 0; i < w->nlocals; i++) {
		struct strbuf to = STRBUF_INIT;

		sb_addf(&to, "%s%u", w->locals[i], h);
		sb_replace(out, at, w->locals[i], to.buf, 1);
		sb_free(&to);
	}
	snprintf(part, sizeof(part), "[%u]", h);
	sb_replace(out, at, "[h]", part, 0);
	snprintf(part, sizeof(part), "m[%u][l]", h);
	sb_replace(out, at, part, "1u", 0);
}

/* Whether part 0's value of X serves every part (w->same). */
static int same_value(const struct tr_weave *w, const char *x)
{
	uint32_t i;

	for (i = 0; i < w->nvals; i++)
		if (!strcmp(w->vals[i], x))
			return w->same[i];
	return 0;
}

/* The n instructions of text (len bytes), the k-th from at[k] on, one
 * after the other, each once for every part. */
static void put_woven(const struct tr_weave *w, const struct tr_names *named, const char *text,
		      size_t len, const char *const *at, uint32_t n, struct strbuf *out)
{
	uint32_t k, h;

	for (k = 0; k < n; k++)
		for (h = 0; h < w->parts; h++)
			part_copy(w, named, at[k], (size_t)((k + 1 < n ? at[k + 1] : text + len) - at[k]),
				  h, out);
}

int tr_weave(const struct tr_weave *w, struct strbuf *out, int *same)
{
	struct tr_names dests = { 0 }, outside = { 0 }, named = { 0 };
	struct strbuf text = STRBUF_INIT;
	const char **pre = NULL, **body = NULL;
	uint32_t npre, nbody, i, h;
	int rc = -1;

	*same = 0;
	npre = split(w->pre, w->npre, &pre);
	nbody = split(w->body, w->nbody, &body);
	if ((w->npre && (!npre || pre[0] != w->pre)) || !nbody || body[0] != w->body ||
	    npre + nbody > WEAVE_MAX)
		goto out;
	/* the instructions before the loop run in it, once for each of its
	 * turns (more than one where GCC makes no sixteen-lane vector code of
	 * it): no flow, and no access whose value another thread may change
	 * between two turns (ld.volatile, .relaxed, .acquire) */
	for (i = 0; i < w->npre; i++)
		if (!strncmp(w->pre + i, "return", 6) || !strncmp(w->pre + i, "goto", 4) ||
		    !strncmp(w->pre + i, "for (", 5) || !strncmp(w->pre + i, "volatile", 8))
			goto out;
	if (part_names(w->pre, w->npre, &dests, &outside))
		goto out;
	/* the loop reads the parts' values as X_h: an array's element there
	 * would be one the woven loop no longer writes */
	sb_add(&text, w->body, w->nbody);
	for (i = 0; i < dests.n; i++) {
		struct strbuf el = STRBUF_INIT;
		int in_body;

		sb_addf(&el, "%s[h]", dests.v[i]);
		in_body = strstr(text.buf, el.buf) != NULL;
		sb_free(&el);
		if (in_body)
			goto out;
	}
	for (i = 0; i < w->nvals; i++)
		if (!tr_names_has(&dests, w->vals[i]) && !tr_names_has(&outside, w->vals[i]))
			tr_names_add(&outside, xstrdup(w->vals[i]));
	/* what the parts had before the block, read before the loop; what
	 * they make in it, locals of the loop */
	for (i = 0; i < outside.n; i++) {
		int one = same_value(w, outside.v[i]);

		for (h = 0; h < w->parts; h++)
			sb_addf(out, "\t\tconst __typeof__(%s[0]) %s_w%u = %s[%u];\n", outside.v[i],
				outside.v[i], h, outside.v[i], one ? 0 : h);
		*same |= one;
		tr_names_add(&named, outside.v[i]);
	}
	sb_adds(out, w->head);
	for (i = 0; i < dests.n; i++) {
		for (h = 0; h < w->parts; h++)
			sb_addf(out, "\t\t__typeof__(%s[0]) %s_w%u;\n", dests.v[i], dests.v[i], h);
		tr_names_add(&named, dests.v[i]);
	}
	for (i = 0; i < w->nlocals; i++)
		for (h = 0; h < w->parts; h++)
			sb_addf(out, "\t\t%s %s%u = 0;\n", w->local_types[i], w->locals[i], h);
	put_woven(w, &named, w->pre, w->npre, pre, npre, out);
	put_woven(w, &named, w->body, w->nbody, body, nbody, out);
	sb_adds(out, "\t\t}\n");
	rc = 0;
out:
	tr_names_free(&dests);
	tr_names_free(&outside);
	free(named.v);
	sb_free(&text);
	free(pre);
	free(body);
	return rc;
}
