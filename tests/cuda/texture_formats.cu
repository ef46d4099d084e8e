/*
 * texture_formats: what a texture returns for each kind of format and
 * resource.  8- and 16-bit integers read as normalized floats (unsigned
 * v/255 and v/65535, signed max(-1, v/127) and max(-1, v/32767)), point
 * and linear; integers read as elements (sign-extended); half floats;
 * tex1Dfetch on linear memory (in range, and 0 past the end); a 2D
 * texture over pitched memory with linear filtering; tex2Dgather (tld4)
 * of each component; and the descriptors cudaGetTextureObject*Desc give
 * back.
 */
#include "check.h"
#include "texture_ref.h"

#include <cuda_fp16.h>
#include <vector>

__global__ void read_norm2d(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex2D<float4>(t, c[i].x, c[i].y);
}

__global__ void read_norm1d(cudaTextureObject_t t, const float *c, float2 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = tex1D<float2>(t, c[i]);
}

__global__ void read_uchar4(cudaTextureObject_t t, uchar4 *out, int w, int h)
{
	int x = threadIdx.x, y = blockIdx.x;
	if (x < w && y < h)
		out[y * w + x] = tex2D<uchar4>(t, x + 0.5f, y + 0.5f);
}

__global__ void read_short2(cudaTextureObject_t t, short2 *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex1D<short2>(t, i + 0.5f);
}

__global__ void read_half(cudaTextureObject_t t, float *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex1D<float>(t, i + 0.5f);
}

__global__ void fetch_float(cudaTextureObject_t t, float *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex1Dfetch<float>(t, i - 2);
}

__global__ void fetch_int4(cudaTextureObject_t t, int4 *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex1Dfetch<int4>(t, i);
}

__global__ void fetch_uchar_norm(cudaTextureObject_t t, float *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = tex1Dfetch<float>(t, i);
}

__global__ void gather(cudaTextureObject_t t, const float2 *c, float4 *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[4 * i + 0] = tex2Dgather<float4>(t, c[i].x, c[i].y, 0);
		out[4 * i + 1] = tex2Dgather<float4>(t, c[i].x, c[i].y, 1);
		out[4 * i + 2] = tex2Dgather<float4>(t, c[i].x, c[i].y, 2);
		out[4 * i + 3] = tex2Dgather<float4>(t, c[i].x, c[i].y, 3);
	}
}

static cudaTextureDesc tex_desc(cudaTextureAddressMode m, bool linear, cudaTextureReadMode rm,
				bool normalized)
{
	cudaTextureDesc td = {};
	for (int i = 0; i < 3; i++)
		td.addressMode[i] = m;
	td.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
	td.readMode = rm;
	td.normalizedCoords = normalized;
	return td;
}

static cudaTextureObject_t array_tex(cudaArray_t a, const cudaTextureDesc &td)
{
	cudaResourceDesc rd = {};
	cudaTextureObject_t t;
	rd.resType = cudaResourceTypeArray;
	rd.res.array.array = a;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	return t;
}

static cudaTextureObject_t linear_tex(void *p, size_t bytes, cudaChannelFormatDesc f,
				      cudaTextureReadMode rm)
{
	cudaResourceDesc rd = {};
	cudaTextureDesc td = tex_desc(cudaAddressModeClamp, false, rm, false);
	cudaTextureObject_t t;
	rd.resType = cudaResourceTypeLinear;
	rd.res.linear.devPtr = p;
	rd.res.linear.desc = f;
	rd.res.linear.sizeInBytes = bytes;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	return t;
}

/* uchar4 read as normalized floats, point and linear, normalized
 * coordinates with wrap. */
static void test_uchar4_normalized(void)
{
	const int W = 8, H = 8, N = 256;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<uchar4>();
	std::vector<uchar4> texels(W * H);
	std::vector<float4> as_float(W * H), got(N), want(N);
	std::vector<float2> c(N);
	cudaArray_t a;
	float2 *dc;
	float4 *dout;

	for (int i = 0; i < W * H; i++) {
		texels[i] = make_uchar4(i * 4, 255 - i, (i * 37) & 255, i & 1 ? 255 : 0);
		as_float[i] = make_float4(texels[i].x / 255.0f, texels[i].y / 255.0f,
					  texels[i].z / 255.0f, texels[i].w / 255.0f);
	}
	for (int k = 0; k < N; k++)
		c[k] = make_float2(-0.75f + k * (2.5f / N), 1.25f - k * (1.75f / N));
	CK(cudaMallocArray(&a, &f, W, H));
	CK(cudaMemcpy2DToArray(a, 0, 0, texels.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
	CK(cudaMalloc(&dc, N * sizeof(float2)));
	CK(cudaMalloc(&dout, N * sizeof(float4)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
	for (int lin = 0; lin < 2; lin++) {
		cudaTextureObject_t t = array_tex(a, tex_desc(cudaAddressModeWrap, lin,
							      cudaReadModeNormalizedFloat, true));
		read_norm2d<<<N / 64, 64>>>(t, dc, dout, N);
		CK(cudaGetLastError());
		CK(cudaMemcpy(got.data(), dout, N * sizeof(float4), cudaMemcpyDeviceToHost));
		CK(cudaDestroyTextureObject(t));
		ref_tex r = { as_float.data(), W, H, 1, 2,
			      { cudaAddressModeWrap, cudaAddressModeWrap, cudaAddressModeWrap },
			      lin != 0, true, make_float4(0, 0, 0, 0) };
		for (int k = 0; k < N; k++)
			want[k] = ref_sample(r, c[k].x, c[k].y);
		check_array(lin ? "uchar4 normalized linear" : "uchar4 normalized point",
			    (const float *)got.data(), (const float *)want.data(), 4 * N, 1e-5);
	}

	/* the same array read as elements */
	std::vector<uchar4> back(W * H);
	uchar4 *dback;
	CK(cudaMalloc(&dback, W * H * sizeof(uchar4)));
	cudaTextureObject_t t = array_tex(a, tex_desc(cudaAddressModeClamp, false,
						      cudaReadModeElementType, false));
	read_uchar4<<<H, W>>>(t, dback, W, H);
	CK(cudaGetLastError());
	CK(cudaMemcpy(back.data(), dback, W * H * sizeof(uchar4), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	check_array("uchar4 elements", (const unsigned char *)back.data(),
		    (const unsigned char *)texels.data(), 4 * W * H);
	CK(cudaFree(dback));
	CK(cudaFree(dc));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

/* Signed 8-bit and 16-bit two-channel formats as normalized floats,
 * -128 and -32768 reading as -1; and short2 read as elements. */
static void test_signed(void)
{
	const int W = 16, N = 64;
	std::vector<float> c(N);
	std::vector<float2> got(N), want(N);
	std::vector<float4> ref(W);
	float *dc;
	float2 *dout;

	for (int k = 0; k < N; k++)
		c[k] = -1.0f + k * ((W + 2.0f) / N);
	CK(cudaMalloc(&dc, N * sizeof(float)));
	CK(cudaMalloc(&dout, N * sizeof(float2)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float), cudaMemcpyHostToDevice));
	for (int bits = 8; bits <= 16; bits += 8) {
		cudaChannelFormatDesc f = cudaCreateChannelDesc(bits, bits, 0, 0,
								cudaChannelFormatKindSigned);
		std::vector<short> v16(2 * W);
		std::vector<signed char> v8(2 * W);
		float scale = bits == 8 ? 127.0f : 32767.0f;
		for (int i = 0; i < W; i++) {
			int lo = bits == 8 ? -128 : -32768, x = lo + i * (bits == 8 ? 17 : 4369);
			int y = -x - 1;
			v8[2 * i] = (signed char)x;
			v8[2 * i + 1] = (signed char)y;
			v16[2 * i] = (short)x;
			v16[2 * i + 1] = (short)y;
			ref[i] = make_float4(fmaxf(-1.0f, x / scale), fmaxf(-1.0f, y / scale), 0, 1);
		}
		cudaArray_t a;
		CK(cudaMallocArray(&a, &f, W));
		CK(cudaMemcpy2DToArray(a, 0, 0, bits == 8 ? (void *)v8.data() : (void *)v16.data(),
				       W * bits / 4, W * bits / 4, 1, cudaMemcpyHostToDevice));
		for (int lin = 0; lin < 2; lin++) {
			cudaTextureObject_t t = array_tex(a, tex_desc(cudaAddressModeClamp, lin,
								      cudaReadModeNormalizedFloat,
								      false));
			read_norm1d<<<1, N>>>(t, dc, dout, N);
			CK(cudaGetLastError());
			CK(cudaMemcpy(got.data(), dout, N * sizeof(float2), cudaMemcpyDeviceToHost));
			CK(cudaDestroyTextureObject(t));
			ref_tex r = { ref.data(), W, 1, 1, 1,
				      { cudaAddressModeClamp, cudaAddressModeClamp,
					cudaAddressModeClamp }, lin != 0, false,
				      make_float4(0, 0, 0, 0) };
			for (int k = 0; k < N; k++) {
				float4 s = ref_sample(r, c[k]);
				want[k] = make_float2(s.x, s.y);
			}
			char what[64];
			snprintf(what, sizeof(what), "s%d x2 normalized %s", bits,
				 lin ? "linear" : "point");
			check_array(what, (const float *)got.data(), (const float *)want.data(),
				    2 * N, 1e-5);
		}
		if (bits == 16) {
			std::vector<short2> back(W);
			short2 *dback;
			CK(cudaMalloc(&dback, W * sizeof(short2)));
			cudaTextureObject_t t = array_tex(a, tex_desc(cudaAddressModeClamp, false,
								      cudaReadModeElementType,
								      false));
			read_short2<<<1, W>>>(t, dback, W);
			CK(cudaGetLastError());
			CK(cudaMemcpy(back.data(), dback, W * sizeof(short2),
				      cudaMemcpyDeviceToHost));
			CK(cudaDestroyTextureObject(t));
			check_array("short2 elements", (const short *)back.data(), v16.data(), 2 * W);
			CK(cudaFree(dback));
		}
		CK(cudaFreeArray(a));
	}
	CK(cudaFree(dc));
	CK(cudaFree(dout));
}

/* Unsigned 16-bit normalized and half floats, 1D point reads. */
static void test_16bit(void)
{
	const int W = 32;
	std::vector<unsigned short> u(W);
	std::vector<__half> h(W);
	std::vector<float> got(W), want_u(W), want_h(W);
	float *dout;
	cudaArray_t a;

	for (int i = 0; i < W; i++) {
		u[i] = (unsigned short)(i * 2113);
		want_u[i] = u[i] / 65535.0f;
		want_h[i] = (i - 16) * 0.375f;
		h[i] = __float2half(want_h[i]);
	}
	CK(cudaMalloc(&dout, W * sizeof(float)));
	cudaChannelFormatDesc fu = cudaCreateChannelDesc<unsigned short>();
	CK(cudaMallocArray(&a, &fu, W));
	CK(cudaMemcpy2DToArray(a, 0, 0, u.data(), W * 2, W * 2, 1, cudaMemcpyHostToDevice));
	cudaTextureObject_t t = array_tex(a, tex_desc(cudaAddressModeClamp, false,
						      cudaReadModeNormalizedFloat, false));
	read_half<<<1, W>>>(t, dout, W);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	CK(cudaFreeArray(a));
	check_array("u16 normalized", got.data(), want_u.data(), W, 1e-6);

	cudaChannelFormatDesc fh = cudaCreateChannelDescHalf();
	CK(cudaMallocArray(&a, &fh, W));
	CK(cudaMemcpy2DToArray(a, 0, 0, h.data(), W * 2, W * 2, 1, cudaMemcpyHostToDevice));
	t = array_tex(a, tex_desc(cudaAddressModeClamp, false, cudaReadModeElementType, false));
	read_half<<<1, W>>>(t, dout, W);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, W * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	CK(cudaFreeArray(a));
	check_array("half", got.data(), want_h.data(), W);
	CK(cudaFree(dout));
}

/* tex1Dfetch on linear memory: float (indices -2.. past the end read 0),
 * int4 elements, and unsigned bytes as normalized floats. */
static void test_fetch(void)
{
	const int N = 40, M = 48;
	std::vector<float> f(N), got(M), want(M);
	std::vector<int4> v(N), vgot(N);
	std::vector<unsigned char> b(N);
	float *df, *dout;
	int4 *dv, *dvout;
	unsigned char *db;

	for (int i = 0; i < N; i++) {
		f[i] = i * 1.5f - 7;
		v[i] = make_int4(i, -i, i * 1000000, -7 - i);
		b[i] = (unsigned char)(i * 6);
	}
	for (int k = 0; k < M; k++)
		want[k] = k - 2 >= 0 && k - 2 < N ? f[k - 2] : 0.0f;
	CK(cudaMalloc(&df, N * sizeof(float)));
	CK(cudaMalloc(&dout, M * sizeof(float)));
	CK(cudaMalloc(&dv, N * sizeof(int4)));
	CK(cudaMalloc(&dvout, N * sizeof(int4)));
	CK(cudaMalloc(&db, N));
	CK(cudaMemcpy(df, f.data(), N * sizeof(float), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dv, v.data(), N * sizeof(int4), cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, b.data(), N, cudaMemcpyHostToDevice));

	cudaTextureObject_t t = linear_tex(df, N * sizeof(float), cudaCreateChannelDesc<float>(),
					   cudaReadModeElementType);
	fetch_float<<<1, M>>>(t, dout, M);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, M * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	check_array("tex1Dfetch float", got.data(), want.data(), M);

	t = linear_tex(dv, N * sizeof(int4), cudaCreateChannelDesc<int4>(), cudaReadModeElementType);
	fetch_int4<<<1, N>>>(t, dvout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(vgot.data(), dvout, N * sizeof(int4), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	check_array("tex1Dfetch int4", (const int *)vgot.data(), (const int *)v.data(), 4 * N);

	t = linear_tex(db, N, cudaCreateChannelDesc<unsigned char>(), cudaReadModeNormalizedFloat);
	fetch_uchar_norm<<<1, N>>>(t, dout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, N * sizeof(float), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	for (int i = 0; i < N; i++)
		want[i] = b[i] / 255.0f;
	check_array("tex1Dfetch uchar normalized", got.data(), want.data(), N, 1e-6);
	CK(cudaFree(df));
	CK(cudaFree(dout));
	CK(cudaFree(dv));
	CK(cudaFree(dvout));
	CK(cudaFree(db));
}

/* A 2D texture over cudaMallocPitch memory, linear filtering, border;
 * and the descriptors read back. */
static void test_pitch2d(void)
{
	const int W = 19, H = 7, N = 128;
	std::vector<float> host(W * H);
	std::vector<float4> ref(W * H), got(N), want(N);
	std::vector<float2> c(N);
	float *dp;
	size_t pitch;
	float2 *dc;
	float4 *dout;

	for (int i = 0; i < W * H; i++) {
		host[i] = (float)((i * 7919) % 101) / 8;
		ref[i] = make_float4(host[i], 0, 0, 1);
	}
	for (int k = 0; k < N; k++)
		c[k] = make_float2(-1.0f + k * 0.173f, 8.0f - k * 0.0731f);
	CK(cudaMallocPitch(&dp, &pitch, W * sizeof(float), H));
	CK(cudaMemcpy2D(dp, pitch, host.data(), W * sizeof(float), W * sizeof(float), H,
			cudaMemcpyHostToDevice));
	cudaResourceDesc rd = {}, rd_back;
	rd.resType = cudaResourceTypePitch2D;
	rd.res.pitch2D.devPtr = dp;
	rd.res.pitch2D.desc = cudaCreateChannelDesc<float>();
	rd.res.pitch2D.width = W;
	rd.res.pitch2D.height = H;
	rd.res.pitch2D.pitchInBytes = pitch;
	cudaTextureDesc td = tex_desc(cudaAddressModeBorder, true, cudaReadModeElementType, false),
			td_back;
	td.borderColor[0] = 9.0f;
	cudaTextureObject_t t;
	CK(cudaCreateTextureObject(&t, &rd, &td, NULL));
	CK(cudaGetTextureObjectResourceDesc(&rd_back, t));
	CK(cudaGetTextureObjectTextureDesc(&td_back, t));
	check(rd_back.resType == cudaResourceTypePitch2D && rd_back.res.pitch2D.devPtr == dp &&
	      rd_back.res.pitch2D.width == W && rd_back.res.pitch2D.pitchInBytes == pitch,
	      "cudaGetTextureObjectResourceDesc");
	check(td_back.filterMode == cudaFilterModeLinear &&
	      td_back.addressMode[1] == cudaAddressModeBorder && td_back.borderColor[0] == 9.0f,
	      "cudaGetTextureObjectTextureDesc");

	CK(cudaMalloc(&dc, N * sizeof(float2)));
	CK(cudaMalloc(&dout, N * sizeof(float4)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
	read_norm2d<<<N / 64, 64>>>(t, dc, dout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, N * sizeof(float4), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	ref_tex r = { ref.data(), W, H, 1, 2,
		      { cudaAddressModeBorder, cudaAddressModeBorder, cudaAddressModeBorder }, true,
		      false, make_float4(9.0f, 0, 0, 0) };
	std::vector<float> gx(N), wx(N);
	for (int k = 0; k < N; k++) {
		gx[k] = got[k].x;
		wx[k] = ref_sample(r, c[k].x, c[k].y).x;
	}
	check_array("pitch2D linear border", gx.data(), wx.data(), N, 1e-5);
	CK(cudaFree(dp));
	CK(cudaFree(dc));
	CK(cudaFree(dout));
}

/* tex2Dgather: component comp of the four texels around (x, y) - 0.5,
 * counter-clockwise from (i, j+1). */
static void test_gather(void)
{
	const int W = 6, H = 5, N = 64;
	cudaChannelFormatDesc f = cudaCreateChannelDesc<float4>();
	std::vector<float4> texels(W * H), got(4 * N), want(4 * N);
	std::vector<float2> c(N);
	cudaArray_t a;
	float2 *dc;
	float4 *dout;

	for (int i = 0; i < W * H; i++)
		texels[i] = make_float4(i, 100 + i, -i, 0.5f * i);
	for (int k = 0; k < N; k++)
		c[k] = make_float2(-0.5f + k * 0.11f, 6.0f - k * 0.093f);
	CK(cudaMallocArray(&a, &f, W, H, cudaArrayTextureGather));
	CK(cudaMemcpy2DToArray(a, 0, 0, texels.data(), W * sizeof(float4), W * sizeof(float4), H,
			       cudaMemcpyHostToDevice));
	cudaTextureObject_t t = array_tex(a, tex_desc(cudaAddressModeClamp, false,
						      cudaReadModeElementType, false));
	CK(cudaMalloc(&dc, N * sizeof(float2)));
	CK(cudaMalloc(&dout, 4 * N * sizeof(float4)));
	CK(cudaMemcpy(dc, c.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
	gather<<<1, N>>>(t, dc, dout, N);
	CK(cudaGetLastError());
	CK(cudaMemcpy(got.data(), dout, 4 * N * sizeof(float4), cudaMemcpyDeviceToHost));
	CK(cudaDestroyTextureObject(t));
	ref_tex r = { texels.data(), W, H, 1, 2,
		      { cudaAddressModeClamp, cudaAddressModeClamp, cudaAddressModeClamp }, false,
		      false, make_float4(0, 0, 0, 0) };
	for (int k = 0; k < N; k++) {
		long i = (long)floorf(c[k].x - 0.5f), j = (long)floorf(c[k].y - 0.5f);
		float4 q[4] = { ref_texel(r, i, j + 1, 0), ref_texel(r, i + 1, j + 1, 0),
				ref_texel(r, i + 1, j, 0), ref_texel(r, i, j, 0) };
		for (int comp = 0; comp < 4; comp++) {
			float v[4];
			for (int n = 0; n < 4; n++)
				v[n] = comp == 0 ? q[n].x : comp == 1 ? q[n].y : comp == 2 ? q[n].z :
					q[n].w;
			want[4 * k + comp] = make_float4(v[0], v[1], v[2], v[3]);
		}
	}
	check_array("tex2Dgather", (const float *)got.data(), (const float *)want.data(), 16 * N);
	CK(cudaFree(dc));
	CK(cudaFree(dout));
	CK(cudaFreeArray(a));
}

int main(void)
{
	test_uchar4_normalized();
	test_signed();
	test_16bit();
	test_fetch();
	test_pitch2d();
	test_gather();
	return verdict("texture_formats");
}
