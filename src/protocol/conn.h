/*
 * conn.h - one protocol connection: framed sends and receives on a socket.
 *
 * Sends are serialised by a lock, so several threads (a host thread making
 * a call, a backend thread forwarding printf text) can share a connection;
 * receives belong to one reader thread.  Also the socket helpers both ends
 * need: parsing "host:port" or "unix:PATH", connecting and listening.
 */
#ifndef AG_CONN_H
#define AG_CONN_H

#include "protocol/proto.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ssl_st SSL;
typedef struct ssl_ctx_st SSL_CTX;

/* Bytes read ahead by the receiving thread: a burst of small frames
 * (launches) costs one system call, not two per frame. */
#define AG_CONN_READ_AHEAD (16u << 10)

struct ag_conn {
	int fd;
	pthread_mutex_t send_lock;
	SSL *ssl;                   /* NULL: plain socket */
	struct ag_wbuf out;         /* frames queued, not yet sent */
	pthread_mutex_t ssl_lock;   /* one thread at a time inside OpenSSL */
	size_t in_pos, in_len;      /* in[in_pos, in_len): read, not yet taken */
	uint8_t in[AG_CONN_READ_AHEAD];
};

void ag_conn_init(struct ag_conn *c, int fd);
/* Closes the socket; the caller owns c itself. */
void ag_conn_close(struct ag_conn *c);

/* Sends one frame whose payload is a then b (either may be empty).
 * 0, or -1 with err set (the peer is gone). */
int ag_conn_send(struct ag_conn *c, unsigned op, unsigned flags, uint64_t id,
		 const void *a, size_t alen, const void *b, size_t blen,
		 char *err, size_t errlen);

/* Like ag_conn_send, but a small frame may wait in the connection's queue
 * until ag_conn_flush, the queue fills, or the next ag_conn_send, which
 * sends the queue first: order is kept, and many small asynchronous
 * requests cost one system call. */
#define AG_CONN_QUEUE_FRAME (64u << 10)
#define AG_CONN_QUEUE_MAX (256u << 10)
int ag_conn_queue(struct ag_conn *c, unsigned op, unsigned flags, uint64_t id,
		  const void *a, size_t alen, const void *b, size_t blen,
		  char *err, size_t errlen);
int ag_conn_flush(struct ag_conn *c, char *err, size_t errlen);

/* A frame in two steps, for a reader that knows where a payload should
 * land: the header (0, 1 at a clean end, -1), then n bytes of payload. */
int ag_conn_recv_hdr(struct ag_conn *c, struct ag_frame_hdr *h, char *err, size_t errlen);
int ag_conn_recv_body(struct ag_conn *c, const struct ag_frame_hdr *h, void *p, size_t n,
		      char *err, size_t errlen);

/* Bytes with no framing, for an AG_OP_RAW exchange (raw.c): the queue is
 * sent first.  0, or -1 when the peer is gone or failed. */
int ag_conn_write_raw(struct ag_conn *c, const void *p, size_t n);
int ag_conn_read_raw(struct ag_conn *c, void *p, size_t n);

/* Receives one frame; *payload is malloc'd (h->len bytes, may be NULL when
 * empty) and the caller frees it.  0 on a frame, 1 when the peer closed the
 * connection between frames, -1 with err set on anything else. */
int ag_conn_recv(struct ag_conn *c, struct ag_frame_hdr *h, uint8_t **payload,
		 char *err, size_t errlen);

/* A client's side of starting a session (client.c).  ag_client_dial
 * connects c to server: "host:port", "[v6]:port", "unix:PATH" or
 * "tls:host:port", and through TLS for any TCP address when
 * ANYGPU_TLS_FINGERPRINT (a pinned certificate) or ANYGPU_TLS_CA is set;
 * 0, or -1 with err set (c is then closed with ag_conn_close all the same).
 * ag_client_hello greets the server with token (may be NULL), asking for
 * compressed copies at Zstandard level compress (0: none): 0 when the
 * session is accepted, with the level the server agreed to in *agreed
 * (agreed may be NULL when compress is 0), -1 when the peer gave no valid
 * answer, else the server's refusal (a cudaError_t); err says why. */
int ag_client_dial(struct ag_conn *c, const char *server, char *err, size_t errlen);
int ag_client_hello(struct ag_conn *c, const char *token, unsigned compress,
		    unsigned *agreed, char *err, size_t errlen);

/* Both ends of an AG_OP_RAW exchange (raw.c).  ag_raw_run sends the
 * request, moves the bytes (buf holds n for a sink or a source, NULL for an
 * echo) and reads the reply: 0, or -1 with err set.  ag_raw_serve answers
 * the request whose payload is given, in the thread that reads c, moving a
 * sink's or a source's bytes through rb (zeroed at first, grown as needed,
 * kept for the session's next exchanges, given back by ag_raw_buf_free):
 * 0, or -1 with err set, after which the session must end. */
struct ag_raw_buf {
	char *p;
	size_t size;
};
int ag_raw_run(struct ag_conn *c, uint64_t id, enum ag_raw_mode mode, uint64_t n, void *buf,
	       char *err, size_t errlen);
int ag_raw_serve(struct ag_conn *c, struct ag_raw_buf *rb, const struct ag_frame_hdr *h,
		 const uint8_t *payload, char *err, size_t errlen);
void ag_raw_buf_free(struct ag_raw_buf *rb);

/* TLS (tls.c).  The server's context uses cert and key, or a self-signed
 * pair it generates into state_dir on first use; fingerprint receives the
 * certificate's SHA-256 as 64 hex digits for clients to pin.  NULL with err
 * set on failure. */
SSL_CTX *ag_tls_server_ctx(const char *state_dir, const char *cert, const char *key,
			   char fingerprint[65], char *err, size_t errlen);
/* A client checks the server against a CA file, or, when fingerprint is
 * set, against that pinned certificate alone. */
SSL_CTX *ag_tls_client_ctx(const char *ca_file, char *err, size_t errlen);
void ag_tls_ctx_free(SSL_CTX *ctx);
/* Handshakes on c's socket; from then on c's frames are encrypted.
 * 0, or -1 with err set. */
int ag_conn_tls_accept(struct ag_conn *c, SSL_CTX *ctx, char *err, size_t errlen);
int ag_conn_tls_connect(struct ag_conn *c, SSL_CTX *ctx, const char *host,
			const char *fingerprint, char *err, size_t errlen);

/* addr is "host:port", "[v6]:port" or "unix:PATH".  Return a socket, or -1
 * with err set. */
int ag_net_connect(const char *addr, char *err, size_t errlen);
int ag_net_listen(const char *addr, char *err, size_t errlen);
/* Socket options for a protocol connection (the accepting side's too). */
void ag_net_tune(int fd);
/* The host part of "host:port" / "[v6]:port"; 0, or -1 when malformed. */
int ag_net_host(const char *addr, char *host, size_t hostlen);
/* 1 when addr names a loopback interface or a Unix socket. */
int ag_net_is_local(const char *addr);

#endif
