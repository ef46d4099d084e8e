/*
 * int_bits_lop3_pending.cu - lop3.b32 with each of the 256 truth tables,
 * which the engine refuses today ("unsupported instruction 'lop3.b32'").
 * Result bit i is bit (a_i << 2 | b_i << 1 | c_i) of the table.  Moves
 * into int_bits.cu when it passes.
 */
// pending: lop3.b32 is refused by the translator
#include "int_bits_ref.h"

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
	run_lop3<0, 256>(corner_inputs(int_corners, 32, 200));
	return conf_verdict("int_bits_lop3_pending");
}
