/*
 * tls.h - conn.c's encrypted transport, inside src/protocol only.
 */
#ifndef AG_PROTOCOL_TLS_H
#define AG_PROTOCOL_TLS_H

#include "protocol/conn.h"

#include <sys/types.h>
#include <sys/uio.h>

/* Like send_all / read on the plain socket; ag_tls_read returns the bytes
 * read, 0 at a clean end, -1 on an error. */
int ag_tls_send(struct ag_conn *c, const struct iovec *iov, int n);
ssize_t ag_tls_read(struct ag_conn *c, void *p, size_t n);
void ag_tls_free(struct ag_conn *c);

#endif
