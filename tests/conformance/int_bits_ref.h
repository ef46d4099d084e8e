/*
 * int_bits_ref.h - host references of the bit instructions, each the PTX
 * ISA's pseudocode bit by bit rather than a builtin: popc, clz, brev,
 * bfe, bfi, bfind, shf, prmt (every mode), lop3 and bmsk.  Shared by
 * int_bits.cu and any int_bits_*_pending.cu program.
 */
#ifndef AG_INT_BITS_REF_H
#define AG_INT_BITS_REF_H

#include "conf.h"

static u64 bit(u64 v, int i)
{
	return (v >> i) & 1;
}

static u64 popc(u64 a, int w)
{
	u64 n = 0;
	for (int i = 0; i < w; i++)
		n += bit(a, i);
	return n;
}

static u64 clz(u64 a, int w)
{
	int i;
	for (i = w - 1; i >= 0 && !bit(a, i); i--)
		;
	return w - 1 - i;
}

static u64 brev(u64 a, int w)
{
	u64 d = 0;
	for (int i = 0; i < w; i++)
		d |= bit(a, i) << (w - 1 - i);
	return d;
}

/* bfe: pos = b & 0xff, len = c & 0xff; bits past msb and past len are
 * the sign bit a[min(pos+len-1, msb)] (.s, len > 0) or 0. */
static u64 bfe(u64 a, u64 b, u64 c, int w, bool sgn)
{
	u64 pos = b & 0xff, len = c & 0xff, d = 0, sbit = 0;
	int msb = w - 1;

	if (sgn && len)
		sbit = bit(a, (int)(pos + len - 1 < (u64)msb ? pos + len - 1 : msb));
	for (int i = 0; i <= msb; i++)
		d |= ((u64)i < len && pos + i <= (u64)msb ? bit(a, (int)(pos + i)) : sbit) << i;
	return d;
}

/* bfi: b with its bits pos.. replaced by the low len bits of a. */
static u64 bfi(u64 a, u64 b, u64 pos, u64 len, int w)
{
	u64 f = b & width_mask(w);

	pos &= 0xff;
	len &= 0xff;
	for (u64 i = 0; i < len && pos + i <= (u64)(w - 1); i++)
		f = (f & ~(1ull << (pos + i))) | (bit(a, (int)i) << (pos + i));
	return f;
}

/* bfind: the position of the most significant 1 (.u) or of the most
 * significant bit that differs from the sign (.s); .shiftamt gives
 * msb - position instead; 0xffffffff when there is none. */
static u64 bfind(u64 a, int w, bool sgn, bool shiftamt)
{
	int i;

	if (sgn && bit(a, w - 1))
		a = ~a;
	for (i = w - 1; i >= 0 && !bit(a, i); i--)
		;
	if (i < 0)
		return 0xffffffff;
	return shiftamt ? (u64)(w - 1 - i) : (u64)i;
}

/* shf: the 64-bit funnel b:a shifted by n (.wrap: c & 31, .clamp:
 * min(c, 32)); .l keeps the high word, .r the low one. */
static u64 shf(u64 a, u64 b, u64 c, bool left, bool wrap)
{
	u64 n = wrap ? (c & 31) : ((c & 0xffffffff) < 32 ? (c & 0xffffffff) : 32);
	u64 v = ((b & 0xffffffff) << 32) | (a & 0xffffffff);

	if (left)
		return n == 32 ? (a & 0xffffffff) : ((v << n) >> 32) & 0xffffffff;
	return n == 32 ? (b & 0xffffffff) : (v >> n) & 0xffffffff;
}

/* prmt: byte n of d picked from the eight bytes {b, a} by selector n. */
static u64 pick(u64 a, u64 b, unsigned sel)
{
	u64 v = ((b & 0xffffffff) << 32) | (a & 0xffffffff);
	u64 byte = (v >> (8 * (sel & 7))) & 0xff;

	if (sel & 8)
		byte = byte & 0x80 ? 0xff : 0;
	return byte;
}

static u64 prmt(u64 a, u64 b, u64 c)
{
	u64 d = 0;
	for (int n = 0; n < 4; n++)
		d |= pick(a, b, (unsigned)(c >> (4 * n)) & 15) << (8 * n);
	return d;
}

/* The modes' selectors for c & 3, byte 0 first, from the ISA's table. */
enum { F4E, B4E, RC8, ECL, ECR, RC16 };
static const unsigned char prmt_modes[6][4][4] = {
	[F4E] = { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },
	[B4E] = { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },
	[RC8] = { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },
	[ECL] = { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },
	[ECR] = { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },
	[RC16] = { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },
};

static u64 prmt_mode(u64 a, u64 b, u64 c, int mode)
{
	u64 d = 0;
	for (int n = 0; n < 4; n++)
		d |= pick(a, b, prmt_modes[mode][c & 3][n]) << (8 * n);
	return d;
}

/* lop3: result bit = bit (a<<2 | b<<1 | c) of the truth table lop3_lut. */
static int lop3_lut;

static u64 ref_lop3(u64 a, u64 b, u64 c)
{
	u64 d = 0;
	for (int i = 0; i < 32; i++)
		d |= (u64)bit(lop3_lut, (int)(bit(a, i) << 2 | bit(b, i) << 1 | bit(c, i))) << i;
	return d;
}

/* Bit positions and lengths in b and c: mostly 0..70, some any byte or
 * any 32-bit value (only the low byte counts). */
static inputs field_inputs(int bits)
{
	inputs in = corner_inputs(int_corners, bits);

	for (size_t i = 0; i < in.size(); i++) {
		if (i % 4) {
			in.b[i] %= 70;
			in.c[i] %= 70;
		}
		in.b[i] &= 0xffffffff;
		in.c[i] &= 0xffffffff;
	}
	return in;
}

/* bmsk: bit i of the mask is set when it lies in [start, start + width)
 * below 32; .wrap takes start and width mod 32, .clamp makes no mask from
 * a start past 31 and takes a width past 32 as 32. */
static u64 bmsk(u64 a, u64 b, bool clamp)
{
	u64 start = clamp ? a : a & 31, width = clamp ? (b > 32 ? 32 : b) : b & 31, d = 0;

	for (int i = 0; i < 32; i++)
		if (!(clamp && a >= 32) && (u64)i >= start && (u64)i < start + width)
			d |= (u64)1 << i;
	return d;
}

/* bfi's pos and len, packed into c. */
static inputs bfi_inputs(int bits)
{
	inputs in = corner_inputs(int_corners, bits);

	for (size_t i = 0; i < in.size(); i++)
		in.c[i] = (rnd() % 300) | (rnd() % 300) << 32;
	return in;
}

#endif
