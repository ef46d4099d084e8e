/*
 * fuzz_protocol.c - libFuzzer target for the protocol decoder: the input
 * is a byte stream as a hostile peer would send it, cut into frames by the
 * header decoder; every request is checked against its layout, and every
 * payload is also read as device info, as a reply (error, message), as a
 * HELLO and its answer (the compression negotiation), and compressed
 * chunks (COPY_HTOD_Z, DATA_Z) go through the decompressor as the server
 * and the client run it.  Nothing may read or write out of bounds,
 * whatever the bytes.
 */
#include "protocol/proto.h"
#include "protocol/zchunk.h"
#include "backend.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* A compressed chunk's fields as its receiver reads them (skip: the bytes
 * before the length), then the decompression into exactly that many
 * bytes. */
static void decompress_chunk(const uint8_t *p, size_t n, size_t skip)
{
	static ZSTD_DCtx *dx;
	struct ag_rbuf r;
	uint32_t len;
	size_t zn;
	const void *z;
	uint8_t *out;

	if (!dx)
		dx = ZSTD_createDCtx();
	ag_rbuf_init(&r, p, n);
	ag_get_bytes(&r, skip);
	len = ag_get_u32(&r);
	zn = ag_rbuf_left(&r);
	z = ag_get_bytes(&r, zn);
	if (r.bad || !len || len > AG_PROTO_CHUNK)
		return;
	out = malloc(len);
	ag_zchunk_decompress(dx, out, len, z, zn);
	free(out);
}

static void read_payload(const struct ag_frame_hdr *h, const uint8_t *p, size_t n)
{
	static struct ag_hello hello;
	static struct ag_hello_reply reply;
	struct ag_device_info d;
	struct ag_rbuf r;
	char err[256], msg[AG_PROTO_MAX_STR + 1];

	if (h->op < AG_OP_REQUEST_END)
		ag_request_check(h, p, err, sizeof(err));
	ag_rbuf_init(&r, p, n);
	ag_get_info(&r, &d);
	ag_rbuf_done(&r);
	ag_rbuf_init(&r, p, n);
	ag_get_u32(&r);
	ag_get_str(&r, msg, sizeof(msg));
	ag_get_bytes(&r, ag_rbuf_left(&r));
	ag_hello_decode(p, n, &hello);
	ag_hello_reply_decode(p, n, &reply);
	if (h->op == AG_OP_COPY_HTOD_Z)
		decompress_chunk(p, n, 16);
	else if (h->op == AG_OP_DATA_Z)
		decompress_chunk(p, n, 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	while (size >= AG_PROTO_HDR) {
		struct ag_frame_hdr h;
		uint8_t *copy;
		size_t n;

		if (ag_hdr_decode(data, &h, err, sizeof(err)))
			return 0;
		data += AG_PROTO_HDR;
		size -= AG_PROTO_HDR;
		if (h.len > size)
			return 0;
		n = h.len;
		/* The decoder gets its own copy, exactly n bytes long, so
		 * that ASan sees any read past the payload. */
		copy = malloc(n ? n : 1);
		memcpy(copy, data, n);
		read_payload(&h, copy, n);
		free(copy);
		data += n;
		size -= n;
	}
	return 0;
}
