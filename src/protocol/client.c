/*
 * client.c - a client's side of starting a session: connecting to a
 * server's address (through TLS when asked) and the HELLO exchange.  The
 * remote backend and `anygpu bench`'s raw reference both start sessions so.
 */
#include "protocol/conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ag_client_dial(struct ag_conn *c, const char *server, char *err, size_t errlen)
{
	const char *addr = server, *fp = getenv("ANYGPU_TLS_FINGERPRINT");
	const char *ca = getenv("ANYGPU_TLS_CA");
	int tls = strncmp(addr, "tls:", 4) == 0;
	char host[256];
	SSL_CTX *ctx;
	int rc;

	if (tls)
		addr += 4;
	else if (strncmp(addr, "unix:", 5) != 0)
		tls = (fp && *fp) || (ca && *ca);
	ag_conn_init(c, ag_net_connect(addr, err, errlen));
	if (c->fd < 0)
		return -1;
	if (!tls)
		return 0;
	if (ag_net_host(addr, host, sizeof(host))) {
		snprintf(err, errlen, "TLS needs a host:port address");
		return -1;
	}
	ctx = ag_tls_client_ctx(ca && *ca ? ca : NULL, err, errlen);
	if (!ctx)
		return -1;
	rc = ag_conn_tls_connect(c, ctx, host, fp && *fp ? fp : NULL, err, errlen);
	ag_tls_ctx_free(ctx);
	return rc;
}

int ag_client_hello(struct ag_conn *c, const char *token, unsigned compress,
		    unsigned *agreed, char *err, size_t errlen)
{
	struct ag_wbuf w = { 0 };
	struct ag_frame_hdr h;
	struct ag_hello_reply r;
	uint8_t *payload = NULL;
	char why[200];
	int rc = -1;

	ag_put_u32(&w, AG_PROTO_MAGIC);
	ag_put_u32(&w, AG_PROTO_VERSION);
	ag_put_str(&w, token);
	ag_put_u32(&w, compress);
	if (ag_conn_send(c, AG_OP_HELLO, 0, 0, w.p, w.len, NULL, 0, why, sizeof(why)) ||
	    ag_conn_recv(c, &h, &payload, why, sizeof(why))) {
		snprintf(err, errlen, "no answer to hello (a server older than protocol "
			 "version %u ends the session so): %s", AG_PROTO_VERSION, why);
		goto out;
	}
	if (h.op != AG_OP_REPLY || ag_hello_reply_decode(payload, h.len, &r) ||
	    (int)r.error < 0 || r.compress > compress) {
		snprintf(err, errlen, "not an anygpu server");
	} else if (r.error) {
		snprintf(err, errlen, "%s", r.message);
		rc = (int)r.error;
	} else {
		if (agreed)
			*agreed = r.compress;
		rc = 0;
	}
out:
	free(payload);
	ag_wbuf_free(&w);
	return rc;
}
