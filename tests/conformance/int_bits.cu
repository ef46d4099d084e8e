/*
 * int_bits.cu - conformance of the bit instructions: and/or/xor/not/cnot,
 * popc, clz, brev, bfe (.u and .s, length 0 included), bfi, bfind (plain
 * and .shiftamt), prmt in every mode, lop3 with all 256 truth tables and
 * the funnel shifts shf.l/.r with .wrap and .clamp, and bmsk with .clamp
 * and .wrap, with field positions and lengths past the width.
 */
#include "int_bits_ref.h"

#define B32(name, text, ref) CONF_OP(name, u32, "r", u32, "r", text, ref)
#define B64(name, text, ref) CONF_OP(name, u64, "l", u64, "l", text, ref)
#define OF64(name, text, ref) CONF_OPX(name, u32, "r", u64, "l", u64, "l", u64, "l", text, ref)
#define BF64(name, text, ref) CONF_OPX(name, u64, "l", u64, "l", u32, "r", u32, "r", text, ref)

CONF_OP(and_b16, u16, "h", u16, "h", "and.b16 %0, %1, %2;", a & b)
B32(and_b32, "and.b32 %0, %1, %2;", a & b)
B64(or_b64, "or.b64 %0, %1, %2;", a | b)
B32(xor_b32, "xor.b32 %0, %1, %2;", a ^ b)
B32(not_b32, "not.b32 %0, %1;", ~a & 0xffffffff)
B64(not_b64, "not.b64 %0, %1;", ~a)
B32(cnot_b32, "cnot.b32 %0, %1;", (u64)(a == 0))
CONF_OP(cnot_b16, u16, "h", u16, "h", "cnot.b16 %0, %1;", (u64)(a == 0))
B32(popc_b32, "popc.b32 %0, %1;", popc(a, 32))
OF64(popc_b64, "popc.b64 %0, %1;", popc(a, 64))
B32(clz_b32, "clz.b32 %0, %1;", clz(a, 32))
OF64(clz_b64, "clz.b64 %0, %1;", clz(a, 64))
B32(brev_b32, "brev.b32 %0, %1;", brev(a, 32))
B64(brev_b64, "brev.b64 %0, %1;", brev(a, 64))
B32(bfe_u32, "bfe.u32 %0, %1, %2, %3;", bfe(a, b, c, 32, false))
BF64(bfe_u64, "bfe.u64 %0, %1, %2, %3;", bfe(a, b, c, 64, false))
B32(bfind_u32, "bfind.u32 %0, %1;", bfind(a, 32, false, false))
B32(bfind_s32, "bfind.s32 %0, %1;", bfind(a, 32, true, false))
OF64(bfind_u64, "bfind.u64 %0, %1;", bfind(a, 64, false, false))
OF64(bfind_s64, "bfind.s64 %0, %1;", bfind(a, 64, true, false))
B32(bfind_shiftamt_u32, "bfind.shiftamt.u32 %0, %1;", bfind(a, 32, false, true))
B32(bfind_shiftamt_s32, "bfind.shiftamt.s32 %0, %1;", bfind(a, 32, true, true))
OF64(bfind_shiftamt_u64, "bfind.shiftamt.u64 %0, %1;", bfind(a, 64, false, true))
B32(shf_l_wrap, "shf.l.wrap.b32 %0, %1, %2, %3;", shf(a, b, c, true, true))
B32(shf_l_clamp, "shf.l.clamp.b32 %0, %1, %2, %3;", shf(a, b, c, true, false))
B32(shf_r_wrap, "shf.r.wrap.b32 %0, %1, %2, %3;", shf(a, b, c, false, true))
B32(shf_r_clamp, "shf.r.clamp.b32 %0, %1, %2, %3;", shf(a, b, c, false, false))
B32(prmt_b32, "prmt.b32 %0, %1, %2, %3;", prmt(a, b, c))
B32(bmsk_clamp, "bmsk.clamp.b32 %0, %2, %3;", bmsk(b, c, true))
B32(bmsk_wrap, "bmsk.wrap.b32 %0, %2, %3;", bmsk(b, c, false))

/* bfi has four operands: pos in the low and len in the high half of c. */
__global__ void k_bfi_b32(OP_ARGS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	u32 d;

	if (i >= n)
		return;
	asm volatile("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d)
		     : "r"((u32)a[i]), "r"((u32)b[i]), "r"((u32)c[i]), "r"((u32)(c[i] >> 32)));
	r[i] = d;
}

static u64 ref_bfi_b32(u64 a, u64 b, u64 c)
{
	return bfi(a, b, c & 0xffffffff, c >> 32, 32);
}

__global__ void k_bfi_b64(OP_ARGS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	u64 d;

	if (i >= n)
		return;
	asm volatile("bfi.b64 %0, %1, %2, %3, %4;" : "=l"(d)
		     : "l"(a[i]), "l"(b[i]), "r"((u32)c[i]), "r"((u32)(c[i] >> 32)));
	r[i] = d;
}

static u64 ref_bfi_b64(u64 a, u64 b, u64 c)
{
	return bfi(a, b, c & 0xffffffff, c >> 32, 64);
}

CONF_OP(bfe_s32, u32, "r", u32, "r", "bfe.s32 %0, %1, %2, %3;", bfe(a, b, c, 32, true))
CONF_OPX(bfe_s64, u64, "l", u64, "l", u32, "r", u32, "r", "bfe.s64 %0, %1, %2, %3;",
	 bfe(a, b, c, 64, true))

#define PRMT(name, text, mode) CONF_OP(name, u32, "r", u32, "r", text, prmt_mode(a, b, c, mode))

PRMT(prmt_f4e, "prmt.b32.f4e %0, %1, %2, %3;", F4E)
PRMT(prmt_b4e, "prmt.b32.b4e %0, %1, %2, %3;", B4E)
PRMT(prmt_rc8, "prmt.b32.rc8 %0, %1, %2, %3;", RC8)
PRMT(prmt_ecl, "prmt.b32.ecl %0, %1, %2, %3;", ECL)
PRMT(prmt_ecr, "prmt.b32.ecr %0, %1, %2, %3;", ECR)
PRMT(prmt_rc16, "prmt.b32.rc16 %0, %1, %2, %3;", RC16)

template <int LUT> __global__ void k_lop3(OP_ARGS)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	u32 d;

	if (i >= n)
		return;
	asm volatile("lop3.b32 %0, %1, %2, %3, %4;" : "=r"(d)
		     : "r"((u32)a[i]), "r"((u32)b[i]), "r"((u32)c[i]), "n"(LUT));
	r[i] = d;
}

/* Truth tables LO .. LO+N-1, halving N so that instantiation stays shallow. */
template <int LO, int N> static void run_lop3(const inputs &in)
{
	if constexpr (N > 1) {
		run_lop3<LO, N / 2>(in);
		run_lop3<LO + N / 2, N - N / 2>(in);
	} else {
		char name[32];

		lop3_lut = LO;
		snprintf(name, sizeof(name), "lop3.b32 lut %#x", LO);
		run_op(name, k_lop3<LO>, ref_lop3, in);
	}
}

int main()
{
	inputs i16 = corner_inputs(int_corners, 16);
	inputs i32 = corner_inputs(int_corners, 32);
	inputs i64 = corner_inputs(int_corners, 64);
	inputs f32 = field_inputs(32), f64 = field_inputs(64);

	RUN(and_b16, i16);
	RUN(and_b32, i32);
	RUN(or_b64, i64);
	RUN(xor_b32, i32);
	RUN(not_b32, i32);
	RUN(not_b64, i64);
	RUN(cnot_b32, i32);
	RUN(cnot_b16, i16);
	RUN(popc_b32, i32);
	RUN(popc_b64, i64);
	RUN(clz_b32, i32);
	RUN(clz_b64, i64);
	RUN(brev_b32, i32);
	RUN(brev_b64, i64);
	RUN(bfe_u32, f32);
	RUN(bfe_u64, f64);
	RUN(bfe_s32, f32);
	RUN(bfe_s64, f64);
	RUN(bfi_b32, bfi_inputs(32));
	RUN(bfi_b64, bfi_inputs(64));
	RUN(bfind_u32, i32);
	RUN(bfind_s32, i32);
	RUN(bfind_u64, i64);
	RUN(bfind_s64, i64);
	RUN(bfind_shiftamt_u32, i32);
	RUN(bfind_shiftamt_s32, i32);
	RUN(bfind_shiftamt_u64, i64);
	RUN(shf_l_wrap, f32);
	RUN(shf_l_clamp, f32);
	RUN(shf_r_wrap, f32);
	RUN(shf_r_clamp, f32);
	RUN(prmt_b32, i32);
	RUN(bmsk_clamp, f32);
	RUN(bmsk_wrap, f32);
	RUN(prmt_f4e, i32);
	RUN(prmt_b4e, i32);
	RUN(prmt_rc8, i32);
	RUN(prmt_ecl, i32);
	RUN(prmt_ecr, i32);
	RUN(prmt_rc16, i32);
	return conf_verdict("int_bits");
}
