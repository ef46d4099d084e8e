/*
 * conn.c - framed sends and receives, and socket set-up, for both ends.
 */
#include "protocol/conn.h"
#include "protocol/tls.h"
#include "util/strbuf.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

void ag_conn_init(struct ag_conn *c, int fd)
{
	c->fd = fd;
	c->ssl = NULL;
	c->out = (struct ag_wbuf){ 0 };
	c->in_pos = c->in_len = 0;
	pthread_mutex_init(&c->send_lock, NULL);
	pthread_mutex_init(&c->ssl_lock, NULL);
}

void ag_conn_close(struct ag_conn *c)
{
	ag_wbuf_free(&c->out);
	ag_tls_free(c);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	pthread_mutex_destroy(&c->send_lock);
	pthread_mutex_destroy(&c->ssl_lock);
}

static int send_all(int fd, struct iovec *iov, int n)
{
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = n };

	while (msg.msg_iovlen) {
		ssize_t w = sendmsg(fd, &msg, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		while (msg.msg_iovlen && (size_t)w >= msg.msg_iov->iov_len) {
			w -= msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen) {
			msg.msg_iov->iov_base = (char *)msg.msg_iov->iov_base + w;
			msg.msg_iov->iov_len -= w;
		}
	}
	return 0;
}

static int write_iov(struct ag_conn *c, struct iovec *iov, int n)
{
	return c->ssl ? ag_tls_send(c, iov, n) : send_all(c->fd, iov, n);
}

/* With send_lock held: the queued frames go out first. */
static int flush_locked(struct ag_conn *c)
{
	struct iovec iov = { c->out.p, c->out.len };
	int rc;

	if (!c->out.len)
		return 0;
	rc = write_iov(c, &iov, 1);
	c->out.len = 0;
	return rc;
}

static int send_error(unsigned op, char *err, size_t errlen)
{
	snprintf(err, errlen, "sending %s failed: %s", ag_op_name(op),
		 errno ? strerror(errno) : "peer closed");
	return -1;
}

static int too_large(unsigned op, size_t n, char *err, size_t errlen)
{
	if (n <= AG_PROTO_MAX_PAYLOAD)
		return 0;
	snprintf(err, errlen, "%s frame of %zu bytes is too large", ag_op_name(op), n);
	return 1;
}

int ag_conn_send(struct ag_conn *c, unsigned op, unsigned flags, uint64_t id,
		 const void *a, size_t alen, const void *b, size_t blen,
		 char *err, size_t errlen)
{
	struct ag_frame_hdr h = { .len = (uint32_t)(alen + blen), .op = op,
				  .flags = flags, .id = id };
	uint8_t hdr[AG_PROTO_HDR];
	struct iovec iov[3] = {
		{ hdr, sizeof(hdr) }, { (void *)a, alen }, { (void *)b, blen },
	};
	int rc;

	if (too_large(op, alen + blen, err, errlen))
		return -1;
	ag_hdr_encode(&h, hdr);
	pthread_mutex_lock(&c->send_lock);
	rc = flush_locked(c) || write_iov(c, iov, 3);
	pthread_mutex_unlock(&c->send_lock);
	return rc ? send_error(op, err, errlen) : 0;
}

int ag_conn_queue(struct ag_conn *c, unsigned op, unsigned flags, uint64_t id,
		  const void *a, size_t alen, const void *b, size_t blen,
		  char *err, size_t errlen)
{
	struct ag_frame_hdr h = { .len = (uint32_t)(alen + blen), .op = op,
				  .flags = flags, .id = id };
	uint8_t hdr[AG_PROTO_HDR];
	int rc = 0;

	if (alen + blen > AG_CONN_QUEUE_FRAME)
		return ag_conn_send(c, op, flags, id, a, alen, b, blen, err, errlen);
	if (too_large(op, alen + blen, err, errlen))
		return -1;
	ag_hdr_encode(&h, hdr);
	pthread_mutex_lock(&c->send_lock);
	if (c->out.len + sizeof(hdr) + alen + blen > AG_CONN_QUEUE_MAX)
		rc = flush_locked(c);
	ag_put_bytes(&c->out, hdr, sizeof(hdr));
	ag_put_bytes(&c->out, a, alen);
	ag_put_bytes(&c->out, b, blen);
	pthread_mutex_unlock(&c->send_lock);
	return rc ? send_error(op, err, errlen) : 0;
}

int ag_conn_flush(struct ag_conn *c, char *err, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&c->send_lock);
	rc = flush_locked(c);
	pthread_mutex_unlock(&c->send_lock);
	if (rc)
		snprintf(err, errlen, "send failed: %s", errno ? strerror(errno) : "peer closed");
	return rc;
}

int ag_conn_write_raw(struct ag_conn *c, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };
	int rc;

	pthread_mutex_lock(&c->send_lock);
	rc = flush_locked(c) || write_iov(c, &iov, 1);
	pthread_mutex_unlock(&c->send_lock);
	return rc ? -1 : 0;
}

/* One read: the bytes read, 0 at the end, -1 on an error. */
static ssize_t read_some(struct ag_conn *c, void *p, size_t n)
{
	return c->ssl ? ag_tls_read(c, p, n) : read(c->fd, p, n);
}

/* Reads through c->in; a large read with the buffer empty goes straight
 * to its destination. */
static ssize_t read_buffered(struct ag_conn *c, void *p, size_t n)
{
	size_t k;

	if (c->in_pos == c->in_len) {
		ssize_t r;

		if (n >= sizeof(c->in))
			return read_some(c, p, n);
		r = read_some(c, c->in, sizeof(c->in));
		if (r <= 0)
			return r;
		c->in_pos = 0;
		c->in_len = r;
	}
	k = c->in_len - c->in_pos < n ? c->in_len - c->in_pos : n;
	memcpy(p, c->in + c->in_pos, k);
	c->in_pos += k;
	return k;
}

/* 0 when n bytes were read, 1 on end of file before the first byte, -1 on
 * an error or an end of file in the middle. */
static int recv_all(struct ag_conn *c, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read_buffered(c, (char *)p + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 && got == 0)
			return 1;
		if (r <= 0) {
			if (r == 0)
				errno = ECONNRESET;
			return -1;
		}
		got += r;
	}
	return 0;
}

int ag_conn_read_raw(struct ag_conn *c, void *p, size_t n)
{
	return recv_all(c, p, n) ? -1 : 0;
}

int ag_conn_recv_hdr(struct ag_conn *c, struct ag_frame_hdr *h, char *err, size_t errlen)
{
	uint8_t hdr[AG_PROTO_HDR];
	int rc = recv_all(c, hdr, sizeof(hdr));

	if (rc == 1)
		return 1;
	if (rc < 0) {
		snprintf(err, errlen, "receive failed: %s", strerror(errno));
		return -1;
	}
	return ag_hdr_decode(hdr, h, err, errlen);
}

int ag_conn_recv_body(struct ag_conn *c, const struct ag_frame_hdr *h, void *p, size_t n,
		      char *err, size_t errlen)
{
	if (recv_all(c, p, n) == 0)
		return 0;
	snprintf(err, errlen, "connection lost inside a %s frame", ag_op_name(h->op));
	return -1;
}

int ag_conn_recv(struct ag_conn *c, struct ag_frame_hdr *h, uint8_t **payload,
		 char *err, size_t errlen)
{
	int rc;

	*payload = NULL;
	rc = ag_conn_recv_hdr(c, h, err, errlen);
	if (rc || !h->len)
		return rc;
	*payload = xmalloc(h->len);
	if (ag_conn_recv_body(c, h, *payload, h->len, err, errlen)) {
		free(*payload);
		*payload = NULL;
		return -1;
	}
	return 0;
}

/* Splits "host:port" / "[v6]:port" into its parts (host may be empty). */
static int split_host_port(const char *addr, char *host, size_t hostlen,
			   char *port, size_t portlen)
{
	const char *colon;
	size_t hl;

	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');

		if (!end || end[1] != ':')
			return -1;
		hl = end - addr - 1;
		addr++;
		colon = end + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon)
			return -1;
		hl = colon - addr;
	}
	if (hl >= hostlen || strlen(colon + 1) >= portlen || !colon[1])
		return -1;
	memcpy(host, addr, hl);
	host[hl] = '\0';
	strcpy(port, colon + 1);
	return 0;
}

static int unix_addr(const char *path, struct sockaddr_un *sa, char *err, size_t errlen)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path)) {
		snprintf(err, errlen, "unix socket path too long: %s", path);
		return -1;
	}
	strcpy(sa->sun_path, path);
	return 0;
}

static int open_unix(const char *path, int listening, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	int fd;

	if (unix_addr(path, &sa, err, errlen))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "socket: %s", strerror(errno));
		return -1;
	}
	if (listening) {
		struct stat st;

		/* A stale socket from an earlier run would make bind fail. */
		if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode))
			unlink(path);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 64) == 0)
			return fd;
	} else if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		return fd;
	}
	snprintf(err, errlen, "%s unix:%s: %s", listening ? "listen on" : "connect to",
		 path, strerror(errno));
	close(fd);
	return -1;
}

void ag_net_tune(int fd)
{
	int one = 1;

	/* Requests and replies are small and answered at once: no Nagle.
	 * (Fails harmlessly on a Unix socket.) */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static int open_tcp(const char *addr, int listening, char *err, size_t errlen)
{
	char host[256], port[32];
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1, rc, saved = 0;

	if (split_host_port(addr, host, sizeof(host), port, sizeof(port))) {
		snprintf(err, errlen, "bad address '%s' (want host:port or unix:PATH)", addr);
		return -1;
	}
	hints.ai_flags = listening ? AI_PASSIVE : 0;
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "%s: %s", addr, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		int one = 1;

		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (listening) {
			setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, 64) == 0)
				break;
		} else if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			ag_net_tune(fd);
			break;
		}
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		snprintf(err, errlen, "%s %s: %s", listening ? "listen on" : "connect to",
			 addr, strerror(saved ? saved : ENOENT));
	return fd;
}

int ag_net_connect(const char *addr, char *err, size_t errlen)
{
	if (strncmp(addr, "unix:", 5) == 0)
		return open_unix(addr + 5, 0, err, errlen);
	return open_tcp(addr, 0, err, errlen);
}

int ag_net_listen(const char *addr, char *err, size_t errlen)
{
	if (strncmp(addr, "unix:", 5) == 0)
		return open_unix(addr + 5, 1, err, errlen);
	return open_tcp(addr, 1, err, errlen);
}

int ag_net_host(const char *addr, char *host, size_t hostlen)
{
	char port[32];

	return split_host_port(addr, host, hostlen, port, sizeof(port));
}

int ag_net_is_local(const char *addr)
{
	char host[256], port[32];

	if (strncmp(addr, "unix:", 5) == 0)
		return 1;
	if (split_host_port(addr, host, sizeof(host), port, sizeof(port)))
		return 0;
	return strcmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
	       strcmp(host, "::1") == 0;
}
