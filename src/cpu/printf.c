/*
 * printf.c - device printf: a format string and nvcc's argument buffer.
 *
 * nvcc passes vprintf(fmt, args) where args packs the arguments after C's
 * default promotions, each at its natural alignment from the start of the
 * buffer: int-sized conversions (char, short, int) take 4 bytes, long, long
 * long, size_t, double and pointers 8.  Each conversion is rebuilt as a
 * plain printf spec and formatted with snprintf, so flags, widths and
 * precisions mean what they mean on the host.
 */
#include "cpu/exec.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A cursor over the argument buffer. */
struct arg_reader {
	const unsigned char *base;
	size_t off;
};

static const void *next_arg(struct arg_reader *r, size_t size)
{
	r->off = (r->off + size - 1) & ~(size - 1);
	const void *p = r->base + r->off;
	r->off += size;
	return p;
}

static int32_t arg_i32(struct arg_reader *r)
{
	int32_t v;
	memcpy(&v, next_arg(r, 4), 4);
	return v;
}

static int64_t arg_i64(struct arg_reader *r)
{
	int64_t v;
	memcpy(&v, next_arg(r, 8), 8);
	return v;
}

static double arg_f64(struct arg_reader *r)
{
	double v;
	memcpy(&v, next_arg(r, 8), 8);
	return v;
}

/* A width or precision: digits, or '*' read from the arguments. */
static void copy_number(struct strbuf *spec, const char **fmt, struct arg_reader *r)
{
	const char *f = *fmt;
	if (*f == '*') {
		sb_addf(spec, "%d", (int)arg_i32(r));
		f++;
	}
	while (*f >= '0' && *f <= '9')
		sb_add(spec, f++, 1);
	*fmt = f;
}

/* Copies flags, width and precision of the spec at *fmt (after '%'). */
static void copy_modifiers(struct strbuf *spec, const char **fmt, struct arg_reader *r)
{
	while (**fmt && strchr("-+ #0'", **fmt))
		sb_add(spec, (*fmt)++, 1);
	copy_number(spec, fmt, r);
	if (**fmt == '.') {
		sb_add(spec, (*fmt)++, 1);
		copy_number(spec, fmt, r);
	}
}

/* Length modifiers: returns 1 when the integer argument is 8 bytes wide,
 * keeping the short ones (h, hh) that change how a 4-byte value prints. */
static int read_length(struct strbuf *spec, const char **fmt)
{
	const char *f = *fmt;
	int wide = 0;
	if (f[0] == 'h') {
		sb_add(spec, f, f[1] == 'h' ? 2 : 1);
		f += f[1] == 'h' ? 2 : 1;
	} else if (strchr("lLqzjt", f[0]) && f[0]) {
		wide = 1;
		f += f[0] == 'l' && f[1] == 'l' ? 2 : 1;
	}
	*fmt = f;
	return wide;
}

static void format_one(struct strbuf *out, const char *spec, char conv, int wide,
		       struct arg_reader *r)
{
	char full[64];
	switch (conv) {
	case 'd': case 'i':
		if (wide) {
			snprintf(full, sizeof(full), "%sll%c", spec, conv);
			sb_addf(out, full, (long long)arg_i64(r));
		} else {
			snprintf(full, sizeof(full), "%s%c", spec, conv);
			sb_addf(out, full, (int)arg_i32(r));
		}
		break;
	case 'o': case 'u': case 'x': case 'X':
		if (wide) {
			snprintf(full, sizeof(full), "%sll%c", spec, conv);
			sb_addf(out, full, (unsigned long long)arg_i64(r));
		} else {
			snprintf(full, sizeof(full), "%s%c", spec, conv);
			sb_addf(out, full, (unsigned)arg_i32(r));
		}
		break;
	case 'c':
		snprintf(full, sizeof(full), "%sc", spec);
		sb_addf(out, full, (int)arg_i32(r));
		break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		snprintf(full, sizeof(full), "%s%c", spec, conv);
		sb_addf(out, full, arg_f64(r));
		break;
	case 's': {
		const char *s = (const char *)(uintptr_t)arg_i64(r);
		snprintf(full, sizeof(full), "%ss", spec);
		sb_addf(out, full, s ? s : "(null)");
		break;
	}
	case 'p':
		snprintf(full, sizeof(full), "%sp", spec);
		sb_addf(out, full, (void *)(uintptr_t)arg_i64(r));
		break;
	case 'n':
		arg_i64(r);	/* the pointer is consumed; nothing is stored */
		break;
	}
}

int ag_printf_format(struct strbuf *out, const char *fmt, const void *args)
{
	struct arg_reader r = { args, 0 };
	struct strbuf spec = STRBUF_INIT;
	size_t start = out->len;

	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		if (!pct) {
			sb_adds(out, fmt);
			break;
		}
		sb_add(out, fmt, (size_t)(pct - fmt));
		const char *f = pct + 1;
		if (*f == '%') {
			sb_add(out, "%", 1);
			fmt = f + 1;
			continue;
		}
		sb_reset(&spec);
		sb_add(&spec, "%", 1);
		copy_modifiers(&spec, &f, &r);
		int wide = read_length(&spec, &f);
		if (*f && strchr("diouxXcfFeEgGaAspn", *f) && spec.len < 40) {
			format_one(out, spec.buf, *f, wide, &r);
			fmt = f + 1;
		} else {
			/* Not a conversion we know: print it as written. */
			size_t n = (size_t)(f - pct) + (*f ? 1 : 0);
			sb_add(out, pct, n);
			fmt = pct + n;
		}
	}
	sb_free(&spec);
	return (int)(out->len - start);
}
