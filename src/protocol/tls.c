/*
 * tls.c - TLS for protocol connections (OpenSSL): contexts for both ends,
 * a self-signed certificate generated for a server that has none, pinning
 * by SHA-256 fingerprint, and the encrypted reads and writes of conn.c.
 *
 * A connection's reader thread and its senders share one SSL object, which
 * OpenSSL allows only one thread into at a time: every call holds ssl_lock,
 * the socket is non-blocking, and a thread that must wait for the socket
 * waits in poll() without the lock.
 */
#include "protocol/tls.h"
#include "util/hex.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static void ssl_error(char *err, size_t errlen, const char *what)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "unknown error";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	snprintf(err, errlen, "%s: %s", what, buf);
	ERR_clear_error();
}

static int write_pem(const char *path, int key, void *obj, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, key ? 0600 : 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	int ok;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ok = key ? PEM_write_PrivateKey(f, obj, NULL, NULL, 0, NULL, NULL)
		 : PEM_write_X509(f, obj);
	if (fclose(f) || !ok) {
		snprintf(err, errlen, "cannot write %s", path);
		return -1;
	}
	return 0;
}

/* A P-256 key and a ten-year self-signed certificate for "anygpu serve". */
static int make_self_signed(const char *cert, const char *key, char *err, size_t errlen)
{
	EVP_PKEY *pk = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *name;
	unsigned char serial[16];
	BIGNUM *bn = NULL;
	int rc = -1;

	if (!pk || !x || RAND_bytes(serial, sizeof(serial)) != 1) {
		ssl_error(err, errlen, "generating a TLS key");
		goto out;
	}
	serial[0] &= 0x7f;
	bn = BN_bin2bn(serial, sizeof(serial), NULL);
	name = X509_get_subject_name(x);
	if (!bn || !X509_set_version(x, 2) ||
	    !BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) ||
	    !X509_gmtime_adj(X509_getm_notBefore(x), 0) ||
	    !X509_gmtime_adj(X509_getm_notAfter(x), 10L * 365 * 24 * 3600) ||
	    !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
					(const unsigned char *)"anygpu serve", -1, -1, 0) ||
	    !X509_set_issuer_name(x, name) || !X509_set_pubkey(x, pk) ||
	    !X509_sign(x, pk, EVP_sha256())) {
		ssl_error(err, errlen, "making a self-signed certificate");
		goto out;
	}
	if (write_pem(key, 1, pk, err, errlen) == 0 && write_pem(cert, 0, x, err, errlen) == 0)
		rc = 0;
out:
	BN_free(bn);
	X509_free(x);
	EVP_PKEY_free(pk);
	return rc;
}

static void fingerprint_of(X509 *x, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;

	out[0] = '\0';
	if (!X509_digest(x, EVP_sha256(), md, &len))
		return;
	ag_hex_encode(out, md, len < 32 ? len : 32);
}

SSL_CTX *ag_tls_server_ctx(const char *state_dir, const char *cert, const char *key,
			   char fingerprint[65], char *err, size_t errlen)
{
	struct strbuf cpath = STRBUF_INIT, kpath = STRBUF_INIT;
	SSL_CTX *ctx = NULL;
	struct stat st;

	if (!cert) {
		sb_addf(&cpath, "%s/tls-cert.pem", state_dir);
		sb_addf(&kpath, "%s/tls-key.pem", state_dir);
		cert = cpath.buf;
		key = kpath.buf;
		if (stat(cert, &st) && make_self_signed(cert, key, err, errlen))
			goto out;
	}
	ctx = SSL_CTX_new(TLS_server_method());
	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, key ? key : cert, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		ssl_error(err, errlen, cert);
		SSL_CTX_free(ctx);
		ctx = NULL;
		goto out;
	}
	fingerprint_of(SSL_CTX_get0_certificate(ctx), fingerprint);
out:
	sb_free(&cpath);
	sb_free(&kpath);
	return ctx;
}

SSL_CTX *ag_tls_client_ctx(const char *ca_file, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    (ca_file && SSL_CTX_load_verify_locations(ctx, ca_file, NULL) != 1) ||
	    (!ca_file && SSL_CTX_set_default_verify_paths(ctx) != 1)) {
		ssl_error(err, errlen, ca_file ? ca_file : "TLS client");
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

void ag_tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

static int set_nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* The socket BIO writes with write(), and a write to a peer that has
 * gone raises SIGPIPE, which kills a CUDA program at its exit (its last
 * words to a server that already closed).  This one is the socket BIO
 * but for its writes, which are send(MSG_NOSIGNAL): EPIPE, an error the
 * caller sees, as plain connections have it (conn.c). */
static int write_nosignal(BIO *b, const char *p, int n)
{
	int fd = -1;
	ssize_t w;

	BIO_get_fd(b, &fd);
	BIO_clear_retry_flags(b);
	w = send(fd, p, (size_t)n, MSG_NOSIGNAL);
	if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_write(b);
	return (int)w;
}

static BIO_METHOD *socket_nosignal;
static pthread_once_t socket_nosignal_once = PTHREAD_ONCE_INIT;

static void make_socket_nosignal(void)
{
	const BIO_METHOD *s = BIO_s_socket();
	BIO_METHOD *m = BIO_meth_new(BIO_TYPE_SOCKET, "socket without SIGPIPE");

	if (!m)
		return;
	BIO_meth_set_write(m, write_nosignal);
	BIO_meth_set_read(m, BIO_meth_get_read(s));
	BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(s));
	BIO_meth_set_create(m, BIO_meth_get_create(s));
	BIO_meth_set_destroy(m, BIO_meth_get_destroy(s));
	socket_nosignal = m;
}

static int start(struct ag_conn *c, SSL_CTX *ctx, char *err, size_t errlen)
{
	BIO *bio = NULL;

	pthread_once(&socket_nosignal_once, make_socket_nosignal);
	c->ssl = SSL_new(ctx);
	if (c->ssl && socket_nosignal)
		bio = BIO_new(socket_nosignal);
	if (!bio) {
		ssl_error(err, errlen, "TLS");
		return -1;
	}
	BIO_set_fd(bio, c->fd, BIO_NOCLOSE);
	SSL_set_bio(c->ssl, bio, bio);
	return 0;
}

int ag_conn_tls_accept(struct ag_conn *c, SSL_CTX *ctx, char *err, size_t errlen)
{
	if (start(c, ctx, err, errlen))
		return -1;
	if (SSL_accept(c->ssl) != 1) {
		ssl_error(err, errlen, "TLS handshake");
		return -1;
	}
	return set_nonblocking(c->fd);
}

int ag_conn_tls_connect(struct ag_conn *c, SSL_CTX *ctx, const char *host,
			const char *fingerprint, char *err, size_t errlen)
{
	char got[65];
	X509 *peer;

	if (start(c, ctx, err, errlen))
		return -1;
	/* A pinned certificate is checked by its fingerprint below; else the
	 * chain and the host name must verify. */
	SSL_set_verify(c->ssl, fingerprint ? SSL_VERIFY_NONE : SSL_VERIFY_PEER, NULL);
	if (!fingerprint && host && SSL_set1_host(c->ssl, host) != 1) {
		ssl_error(err, errlen, "TLS host name");
		return -1;
	}
	SSL_set_tlsext_host_name(c->ssl, host);
	if (SSL_connect(c->ssl) != 1) {
		ssl_error(err, errlen, "TLS handshake");
		return -1;
	}
	if (fingerprint) {
		peer = SSL_get1_peer_certificate(c->ssl);
		if (!peer) {
			snprintf(err, errlen, "TLS: the server sent no certificate");
			return -1;
		}
		fingerprint_of(peer, got);
		X509_free(peer);
		if (strcasecmp(got, fingerprint) != 0) {
			snprintf(err, errlen, "TLS: server certificate fingerprint %s is not the "
				 "pinned %s", got, fingerprint);
			return -1;
		}
	}
	return set_nonblocking(c->fd);
}

void ag_tls_free(struct ag_conn *c)
{
	SSL_free(c->ssl);
	c->ssl = NULL;
}

/* After a failed call, with the lock held: the poll() events to wait for,
 * 0 at a clean end of the connection, -1 on an error. */
static int wanted(struct ag_conn *c, int ret)
{
	switch (SSL_get_error(c->ssl, ret)) {
	case SSL_ERROR_WANT_READ:
		return POLLIN;
	case SSL_ERROR_WANT_WRITE:
		return POLLOUT;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	}
	return -1;
}

/* Without the lock.  The wait is bounded: another thread may change what
 * the SSL object needs meanwhile. */
static void wait_socket(struct ag_conn *c, int events)
{
	struct pollfd pf = { .fd = c->fd, .events = (short)events };

	poll(&pf, 1, 100);
}

static int write_all(struct ag_conn *c, const void *p, size_t n)
{
	while (n) {
		int len = n > (1u << 30) ? 1 << 30 : (int)n, r, want = 0;

		pthread_mutex_lock(&c->ssl_lock);
		r = SSL_write(c->ssl, p, len);
		if (r <= 0)
			want = wanted(c, r);
		pthread_mutex_unlock(&c->ssl_lock);
		if (r > 0) {
			p = (const char *)p + r;
			n -= r;
		} else if (want > 0) {
			wait_socket(c, want);
		} else {
			return -1;
		}
	}
	return 0;
}

int ag_tls_send(struct ag_conn *c, const struct iovec *iov, int n)
{
	uint8_t small[4096];
	size_t used = 0;

	/* Small pieces (header, fields) go out as one record. */
	for (int i = 0; i < n; i++) {
		if (!iov[i].iov_len)
			continue;
		if (used + iov[i].iov_len <= sizeof(small)) {
			memcpy(small + used, iov[i].iov_base, iov[i].iov_len);
			used += iov[i].iov_len;
			continue;
		}
		if (write_all(c, small, used) || write_all(c, iov[i].iov_base, iov[i].iov_len))
			return -1;
		used = 0;
	}
	return write_all(c, small, used);
}

ssize_t ag_tls_read(struct ag_conn *c, void *p, size_t n)
{
	int len = n > (1u << 30) ? 1 << 30 : (int)n;

	for (;;) {
		int r, want = 0;

		pthread_mutex_lock(&c->ssl_lock);
		r = SSL_read(c->ssl, p, len);
		if (r <= 0)
			want = wanted(c, r);
		pthread_mutex_unlock(&c->ssl_lock);
		if (r > 0)
			return r;
		if (want == 0)
			return 0;
		if (want < 0) {
			errno = ECONNRESET;
			return -1;
		}
		wait_socket(c, want);
	}
}
