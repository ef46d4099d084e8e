/*
 * int_bits_prmt_pending.cu - prmt.b32 in its six named modes (.f4e,
 * .b4e, .rc8, .ecl, .ecr, .rc16), which the engine refuses today.  Each
 * mode picks bytes of {b, a} by c & 3 as the ISA's table says
 * (int_bits_ref.h).  Moves into int_bits.cu when it passes.
 */
// pending: prmt.b32.f4e/.b4e/.rc8/.ecl/.ecr/.rc16 are refused ("modifier")
#include "int_bits_ref.h"

#define PRMT(name, text, mode) CONF_OP(name, u32, "r", u32, "r", text, prmt_mode(a, b, c, mode))

PRMT(prmt_f4e, "prmt.b32.f4e %0, %1, %2, %3;", F4E)
PRMT(prmt_b4e, "prmt.b32.b4e %0, %1, %2, %3;", B4E)
PRMT(prmt_rc8, "prmt.b32.rc8 %0, %1, %2, %3;", RC8)
PRMT(prmt_ecl, "prmt.b32.ecl %0, %1, %2, %3;", ECL)
PRMT(prmt_ecr, "prmt.b32.ecr %0, %1, %2, %3;", ECR)
PRMT(prmt_rc16, "prmt.b32.rc16 %0, %1, %2, %3;", RC16)

int main()
{
	inputs in = corner_inputs(int_corners, 32);

	RUN(prmt_f4e, in);
	RUN(prmt_b4e, in);
	RUN(prmt_rc8, in);
	RUN(prmt_ecl, in);
	RUN(prmt_ecr, in);
	RUN(prmt_rc16, in);
	return conf_verdict("int_bits_prmt_pending");
}
