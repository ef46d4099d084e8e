/*
 * int_misc.cu - conformance of the extended-precision chains (add.cc,
 * addc, sub.cc, subc, mad.lo.cc/madc.hi with the carry flag threaded
 * through several instructions, at 32 and 64 bits) and sad.  The engine
 * refuses mul24/mad24 and dp4a/dp2a today: they are in
 * int_mul24_pending.cu and int_dp4a_pending.cu.  A chain's reference
 * is the multi-word arithmetic itself (a + b + carry-in, the carry-out
 * being the bit past the top word), not the per-instruction steps.
 */
#include "conf.h"

#define M32 0xffffffffull

/* 64-bit add/sub of a and b as two 32-bit words, carry/borrow in = c & 1.
 * SUM gives the 64-bit result, CARRY the flag out of the top word. */
#define ADD_CHAIN(out)                                                          \
	"{ .reg .u32 t, al, ah, bl, bh, l, h, cin, cy; cvt.u32.u64 cin, %3; and.b32 cin, cin, 1;"     \
	" mov.b64 {al, ah}, %1; mov.b64 {bl, bh}, %2;"                          \
	" add.cc.u32 t, cin, 0xffffffff; addc.cc.u32 l, al, bl;"                \
	" addc.cc.u32 h, ah, bh; addc.u32 cy, 0, 0;" out " }"
#define SUB_CHAIN(out)                                                          \
	"{ .reg .u32 t, al, ah, bl, bh, l, h, cin, cy; cvt.u32.u64 cin, %3; and.b32 cin, cin, 1;"     \
	" mov.b64 {al, ah}, %1; mov.b64 {bl, bh}, %2;"                          \
	" sub.cc.u32 t, 0, cin; subc.cc.u32 l, al, bl;"                         \
	" subc.cc.u32 h, ah, bh; subc.u32 cy, 0, 0;" out " }"
#define SUM " mov.b64 %0, {l, h};"
#define CARRY " cvt.u64.u32 %0, cy;"

static u64 add_carry(u64 a, u64 b, u64 c)
{
	return (u64)(((unsigned __int128)a + b + (c & 1)) >> 64);
}

/* subc.u32 0, 0 with a borrow pending gives 0 - 0 - 1. */
static u64 sub_borrow(u64 a, u64 b, u64 c)
{
	return (unsigned __int128)a < (unsigned __int128)b + (c & 1) ? M32 : 0;
}

CONF_OP(add_cc_chain_sum, u64, "l", u64, "l", ADD_CHAIN(SUM), a + b + (c & 1))
CONF_OP(add_cc_chain_carry, u64, "l", u64, "l", ADD_CHAIN(CARRY), add_carry(a, b, c))
CONF_OP(sub_cc_chain_diff, u64, "l", u64, "l", SUB_CHAIN(SUM), a - b - (c & 1))
CONF_OP(sub_cc_chain_borrow, u64, "l", u64, "l", SUB_CHAIN(CARRY), sub_borrow(a, b, c))

/* 128-bit a:c + b:c with .u64 carries; the result is the high word. */
CONF_OP(addc_u64, u64, "l", u64, "l",
	"{ .reg .u64 l; add.cc.u64 l, %1, %2; addc.u64 %0, %3, %3; }", 2 * c + add_carry(a, b, 0))
CONF_OP(subc_u64, u64, "l", u64, "l",
	"{ .reg .u64 l; sub.cc.u64 l, %1, %2; subc.u64 %0, %3, 0; }", c - (a < b))

static u64 absdiff(long long x, long long y)
{
	return x > y ? (u64)x - (u64)y : (u64)y - (u64)x;
}

CONF_OP(sad_u32, u32, "r", u32, "r", "sad.u32 %0, %1, %2, %3;", (c + absdiff(a & M32, b & M32)) & M32)
CONF_OP(sad_s32, u32, "r", u32, "r", "sad.s32 %0, %1, %2, %3;", (c + absdiff(sx(a, 32), sx(b, 32))) & M32)
CONF_OP(sad_u16, u16, "h", u16, "h", "sad.u16 %0, %1, %2, %3;", (c + absdiff(a & 0xffff, b & 0xffff)) & 0xffff)
CONF_OP(sad_s64, u64, "l", u64, "l", "sad.s64 %0, %1, %2, %3;", c + absdiff((long long)a, (long long)b))

/* (a * b) + c for 32-bit a, b and 64-bit c in 32-bit words: mad.lo.cc
 * carries into madc.hi. */
CONF_OPX(madc_chain, u64, "l", u32, "r", u32, "r", u64, "l",
	 "{ .reg .u32 cl, ch, l, h; mov.b64 {cl, ch}, %3;"
	 " mad.lo.cc.u32 l, %1, %2, cl; madc.hi.u32 h, %1, %2, ch; mov.b64 %0, {l, h}; }",
	 (a & M32) * (b & M32) + c)
/* The carry out of madc.hi.cc into a third word. */
CONF_OPX(madc_carry, u32, "r", u32, "r", u32, "r", u64, "l",
	 "{ .reg .u32 cl, ch, l, h; mov.b64 {cl, ch}, %3;"
	 " mad.lo.cc.u32 l, %1, %2, cl; madc.hi.cc.u32 h, %1, %2, ch; addc.u32 %0, 0, 0; }",
	 (u64)(((unsigned __int128)((a & M32) * (b & M32)) + c) >> 64))

int main()
{
	inputs i16 = corner_inputs(int_corners, 16), i32 = corner_inputs(int_corners, 32);
	inputs i64 = corner_inputs(int_corners, 64);

	RUN(add_cc_chain_sum, i64);
	RUN(add_cc_chain_carry, i64);
	RUN(sub_cc_chain_diff, i64);
	RUN(sub_cc_chain_borrow, i64);
	RUN(addc_u64, i64);
	RUN(subc_u64, i64);
	RUN(sad_u32, i32);
	RUN(sad_s32, i32);
	RUN(sad_u16, i16);
	RUN(sad_s64, i64);
	RUN(madc_chain, i64);
	RUN(madc_carry, i64);
	return conf_verdict("int_misc");
}
