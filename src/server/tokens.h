/*
 * tokens.h - tenants' access tokens, stored only as salted SHA-256 hashes in
 * a SQLite file (tokens.db) in the server's state directory.
 */
#ifndef AG_SERVER_TOKENS_H
#define AG_SERVER_TOKENS_H

#include <stddef.h>
#include <stdint.h>

struct ag_tokens;

/* Opens (creating when missing) state_dir/tokens.db; NULL with err set. */
struct ag_tokens *ag_tokens_open(const char *state_dir, char *err, size_t errlen);
void ag_tokens_close(struct ag_tokens *tk);

/* Makes a new token for name and writes its text (to be shown once) into
 * out.  0, or -1 with err set (e.g. the name is taken). */
int ag_tokens_create(struct ag_tokens *tk, const char *name, uint64_t mem_limit,
		     char *out, size_t outlen, char *err, size_t errlen);

/* An ag_auth_fn: ctx is the struct ag_tokens.  A store with no tokens at
 * all accepts every client (a private loopback server). */
int ag_tokens_check(void *ctx, const char *token, uint64_t *mem_limit,
		    char *why, size_t whylen);

#endif
