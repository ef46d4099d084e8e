/*
 * best.c - choosing the PTX to translate from an image: the newest PTX the
 * device may run, or, when there is none, a message that names the machine
 * code the image does carry so that the user knows what to rebuild with.
 */
#include <stdlib.h>

#include "fatbin/fatbin.h"
#include "fatbin/internal.h"
#include "util/strbuf.h"

/* Distinct architectures seen, for the message; a few suffice. */
struct archs {
	uint32_t arch[16];
	int n;
};

struct pick {
	uint32_t max_arch;
	struct fatbin_entry best;
	int found;
	struct archs sass;         /* machine code seen */
	struct archs too_new;      /* PTX above max_arch */
};

static void archs_add(struct archs *a, uint32_t arch)
{
	int i;

	for (i = 0; i < a->n; i++)
		if (a->arch[i] == arch)
			return;
	if (a->n < (int)(sizeof(a->arch) / sizeof(a->arch[0])))
		a->arch[a->n++] = arch;
}

static uint32_t archs_top(const struct archs *a)
{
	uint32_t top = 0;
	int i;

	for (i = 0; i < a->n; i++)
		if (a->arch[i] > top)
			top = a->arch[i];
	return top;
}

/* "sm_75, sm_80" into sb. */
static void archs_list(struct strbuf *sb, const struct archs *a, const char *prefix)
{
	int i;

	for (i = 0; i < a->n; i++)
		sb_addf(sb, "%s%s_%u", i ? ", " : "", prefix, a->arch[i]);
}

static int consider(const struct fatbin_entry *e, void *ctx)
{
	struct pick *pk = ctx;

	if (e->kind == FATBIN_ELF)
		archs_add(&pk->sass, e->sm_arch);
	else if (pk->max_arch && e->sm_arch > pk->max_arch)
		archs_add(&pk->too_new, e->sm_arch);
	else if (!pk->found || e->sm_arch > pk->best.sm_arch) {
		pk->best = *e;
		pk->found = 1;
	}
	return 0;
}

/* Explains why there is nothing to run. */
static void no_ptx(const struct pick *pk, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;

	if (pk->too_new.n) {
		archs_list(&sb, &pk->too_new, "compute");
		fatbin_error(err, errlen, "the fatbin's PTX (%s) is newer than compute_%u, the most this device runs; "
			     "rebuild with -arch=sm_%u", sb.buf, pk->max_arch, pk->max_arch);
	} else if (pk->sass.n) {
		archs_list(&sb, &pk->sass, "sm");
		fatbin_error(err, errlen, "the fatbin has no PTX, only machine code for %s; "
			     "rebuild with -arch=sm_%u (or with anygpu nvcc) to embed PTX",
			     sb.buf, archs_top(&pk->sass));
	} else {
		fatbin_error(err, errlen, "the fatbin has neither PTX nor machine code");
	}
	sb_free(&sb);
}

int fatbin_best_ptx(const void *image, uint64_t size, uint32_t max_arch,
		    char **ptx, uint64_t *ptxlen, uint32_t *arch, char *err, size_t errlen)
{
	struct pick pk = { .max_arch = max_arch };
	uint8_t *data;
	int ret;

	ret = fatbin_walk(image, size, consider, &pk, err, errlen);
	if (!ret && !pk.found) {
		no_ptx(&pk, err, errlen);
		ret = 1;
	}
	if (!ret) {
		ret = fatbin_entry_data(&pk.best, &data, ptxlen, err, errlen);
		if (!ret) {
			*ptx = (char *)data;
			*arch = pk.best.sm_arch;
		}
	}
	return ret;
}
