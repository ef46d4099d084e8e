/*
 * server.h - anygpu serve: the daemon (listener, one worker process per
 * session) and the session worker (a protocol decoder in front of a local
 * backend).
 */
#ifndef AG_SERVER_H
#define AG_SERVER_H

#include "backend.h"

#include <stddef.h>
#include <stdint.h>

/* Decides whether a HELLO's token may open a session: 0 and the session's
 * memory quota (0: none), or -1 with a reason for the log. */
typedef int (*ag_auth_fn)(void *ctx, const char *token, uint64_t *mem_limit,
			  char *why, size_t whylen);

struct ssl_ctx_st;

struct ag_session_args {
	const struct ag_backend_ops *ops;
	struct ssl_ctx_st *tls;     /* non-NULL: handshake before HELLO */
	int ordinal;                /* device of the local backend */
	ag_auth_fn auth;            /* NULL: any token is accepted */
	void *auth_ctx;
	int no_compress;            /* refuse clients' requests for compression */
	/* Called from the session's reader thread when the client is gone
	 * and the device has kept the session busy for seconds since: it
	 * may end the process (a worker does, after passing on why); when
	 * it returns, or is NULL, the session waits for the device. */
	void (*abandon)(void *ctx, const char *why);
	void *abandon_ctx;
};

/* Serves one client on fd until the session ends, however it ends; closes
 * fd and everything the session opened.  Returns 0 when the client ended
 * it, -1 when it was ended for a fault (malformed frame, failed auth);
 * reason always says which, and what was freed. */
int ag_session_run(int fd, const struct ag_session_args *a, char *reason, size_t len);

struct ag_serve_cfg {
	const char *listen;         /* "host:port" or NULL */
	const char *unix_path;      /* NULL: no Unix socket */
	const char *backend;        /* "cpu", "cuda" */
	int device;
	const char *state_dir;      /* tokens.db (and the TLS pair) live here */
	const char *tls;            /* "on", "off", NULL or "auto": on unless
				     * the TCP address is loopback */
	const char *cert, *key;     /* PEM files; NULL: self-signed in state_dir */
	int no_compress;            /* serve --no-compress, compress = off */
	char *loaded[8];            /* the strings a configuration file set */
};

/* Runs the daemon until SIGTERM or SIGINT; returns the exit status. */
int ag_serve(const struct ag_serve_cfg *cfg);

/* Settings from an INI file ([serve] listen, unix, backend, device,
 * state_dir, tls, cert, key, compress = on|off); the strings are copies
 * that cfg owns until ag_serve_config_free.  0, or -1 with err set (a
 * setting given twice is an error). */
int ag_serve_config_load(const char *path, struct ag_serve_cfg *cfg, char *err, size_t errlen);
void ag_serve_config_free(struct ag_serve_cfg *cfg);

/* The state directory when none is given: $ANYGPU_STATE_DIR, else
 * $XDG_STATE_HOME/anygpu, else ~/.local/state/anygpu; created if missing.
 * 0, or -1 with err set. */
int ag_state_dir(char *out, size_t outlen, char *err, size_t errlen);

/* "512M", "4G", "1.5GiB", "1000000": bytes.  0, or -1 when malformed. */
int ag_parse_size(const char *s, uint64_t *out);

#endif
