/*
 * tex_abi.h - a texture or surface object as the cpu backend keeps it
 * (texture.c) and generated kernels read it (translate_tex.h).  The handle
 * a kernel receives is the address of one of these.  The translator embeds
 * this text after translate_rt.h, so it holds plain declarations only; the
 * AG_TEX_* constants have the values of the CUDA enums they mirror
 * (texture.c checks that at compile time).
 */
#ifndef AG_TEX_ABI_H
#define AG_TEX_ABI_H

#define AG_TEX_MAGIC 0x74657830u        /* "tex0": a live object */

/* cudaTextureAddressMode */
#define AG_TEX_WRAP 0u
#define AG_TEX_CLAMP 1u
#define AG_TEX_MIRROR 2u
#define AG_TEX_BORDER 3u

/* cudaChannelFormatKind */
#define AG_TEX_SIGNED 0u
#define AG_TEX_UNSIGNED 1u
#define AG_TEX_FLOAT 2u

struct ag_texobj {
	unsigned magic;
	unsigned surface;               /* 1: a surface object */
	unsigned char *base;            /* element (0, 0, 0) */
	long long size[3];              /* elements per dimension; 1 where absent */
	unsigned layers;                /* a layered array's layers (slices); 0: not layered */
	long long pitch, slice;         /* bytes per row, per slice */
	unsigned dims;                  /* 1, 2 or 3 */
	unsigned linear_mem;            /* cudaResourceTypeLinear: out of range reads 0 */
	unsigned channels, bits;        /* 1, 2 or 4 channels of 8, 16 or 32 bits */
	unsigned format;                /* AG_TEX_SIGNED, _UNSIGNED or _FLOAT */
	unsigned elem;                  /* bytes per element */
	unsigned address[3];            /* AG_TEX_WRAP ... per dimension */
	unsigned filter_linear;         /* cudaFilterModeLinear */
	unsigned read_float;            /* integers read as normalized floats */
	unsigned norm_coords;           /* coordinates in [0, 1) */
	float border[4];
};

#endif
