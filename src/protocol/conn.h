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

struct ag_conn {
	int fd;
	pthread_mutex_t send_lock;
};

void ag_conn_init(struct ag_conn *c, int fd);
/* Closes the socket; the caller owns c itself. */
void ag_conn_close(struct ag_conn *c);

/* Sends one frame whose payload is a then b (either may be empty).
 * 0, or -1 with err set (the peer is gone). */
int ag_conn_send(struct ag_conn *c, unsigned op, unsigned flags, uint64_t id,
		 const void *a, size_t alen, const void *b, size_t blen,
		 char *err, size_t errlen);

/* Receives one frame; *payload is malloc'd (h->len bytes, may be NULL when
 * empty) and the caller frees it.  0 on a frame, 1 when the peer closed the
 * connection between frames, -1 with err set on anything else. */
int ag_conn_recv(struct ag_conn *c, struct ag_frame_hdr *h, uint8_t **payload,
		 char *err, size_t errlen);

/* addr is "host:port", "[v6]:port" or "unix:PATH".  Return a socket, or -1
 * with err set. */
int ag_net_connect(const char *addr, char *err, size_t errlen);
int ag_net_listen(const char *addr, char *err, size_t errlen);
/* 1 when addr names a loopback interface or a Unix socket. */
int ag_net_is_local(const char *addr);

#endif
