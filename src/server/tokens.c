/*
 * tokens.c - the token store: create, and check a presented token.
 *
 * A token is "agt_" and 64 hex digits of randomness.  Only SHA-256(salt ||
 * token) is stored, with a per-token random salt; checking a token hashes it
 * with each tenant's salt and compares in constant time.
 */
#include "server/tokens.h"
#include "util/hex.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SALT_LEN 16
#define SECRET_LEN 32
#define HASH_LEN 32

struct ag_tokens {
	sqlite3 *db;
};

static const char schema[] =
	"PRAGMA journal_mode=WAL;"
	"CREATE TABLE IF NOT EXISTS tokens ("
	" name TEXT PRIMARY KEY, salt BLOB NOT NULL, hash BLOB NOT NULL,"
	" mem_limit INTEGER NOT NULL, created INTEGER NOT NULL);";

/* Opening the store, which may create it, is one process at a time:
 * SQLite refuses a second connection's switch of a new file to WAL at once
 * ("database is locked", without waiting out the busy timeout), which ended
 * the sessions of a new daemon's first clients arriving together.  The
 * lock is an flock on the state directory; closing the fd releases it. */
static int lock_state_dir(const char *state_dir, char *err, size_t errlen)
{
	int fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", state_dir, strerror(errno));
		return -1;
	}
	while ((rc = flock(fd, LOCK_EX)) && errno == EINTR)
		;
	if (rc) {
		snprintf(err, errlen, "cannot lock %s: %s", state_dir, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct ag_tokens *ag_tokens_open(const char *state_dir, char *err, size_t errlen)
{
	struct ag_tokens *tk;
	char *path, *msg = NULL;
	struct strbuf sb = STRBUF_INIT;
	int lock;

	if (mkdir(state_dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", state_dir, strerror(errno));
		return NULL;
	}
	lock = lock_state_dir(state_dir, err, errlen);
	if (lock < 0)
		return NULL;
	sb_addf(&sb, "%s/tokens.db", state_dir);
	path = sb_detach(&sb);
	tk = xcalloc(1, sizeof(*tk));
	if (sqlite3_open(path, &tk->db) != SQLITE_OK ||
	    sqlite3_busy_timeout(tk->db, 5000) != SQLITE_OK ||
	    sqlite3_exec(tk->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, msg ? msg : sqlite3_errmsg(tk->db));
		sqlite3_free(msg);
		ag_tokens_close(tk);
		tk = NULL;
	}
	close(lock);
	free(path);
	return tk;
}

void ag_tokens_close(struct ag_tokens *tk)
{
	if (!tk)
		return;
	sqlite3_close(tk->db);
	free(tk);
}

/* SHA-256(salt || token) into out; -1 when OpenSSL fails. */
static int hash_token(const unsigned char *salt, const char *token, unsigned char *out)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL) &&
		 EVP_DigestUpdate(c, salt, SALT_LEN) &&
		 EVP_DigestUpdate(c, token, strlen(token)) &&
		 EVP_DigestFinal_ex(c, out, NULL);

	EVP_MD_CTX_free(c);
	return ok ? 0 : -1;
}

int ag_tokens_create(struct ag_tokens *tk, const char *name, uint64_t mem_limit,
		     char *out, size_t outlen, char *err, size_t errlen)
{
	unsigned char secret[SECRET_LEN], salt[SALT_LEN], hash[HASH_LEN];
	sqlite3_stmt *st;
	int rc;

	if (outlen < 5 + 2 * SECRET_LEN || RAND_bytes(secret, sizeof(secret)) != 1 ||
	    RAND_bytes(salt, sizeof(salt)) != 1) {
		snprintf(err, errlen, "no randomness for a token");
		return -1;
	}
	strcpy(out, "agt_");
	ag_hex_encode(out + 4, secret, SECRET_LEN);
	if (hash_token(salt, out, hash)) {
		snprintf(err, errlen, "hashing the token failed");
		return -1;
	}
	if (sqlite3_prepare_v2(tk->db, "INSERT INTO tokens VALUES (?, ?, ?, ?, ?)", -1, &st,
			       NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(tk->db));
		return -1;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, salt, sizeof(salt), SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, hash, sizeof(hash), SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)mem_limit);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)time(NULL));
	rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		snprintf(err, errlen, rc == SQLITE_CONSTRAINT ? "a token named '%s' exists" : "%s",
			 rc == SQLITE_CONSTRAINT ? name : sqlite3_errmsg(tk->db));
	sqlite3_finalize(st);
	OPENSSL_cleanse(secret, sizeof(secret));
	return rc == SQLITE_DONE ? 0 : -1;
}

int ag_tokens_check(void *ctx, const char *token, uint64_t *mem_limit,
		    char *why, size_t whylen)
{
	struct ag_tokens *tk = ctx;
	sqlite3_stmt *st;
	unsigned char hash[HASH_LEN];
	int rows = 0, found = 0;

	if (sqlite3_prepare_v2(tk->db, "SELECT name, salt, hash, mem_limit FROM tokens", -1,
			       &st, NULL) != SQLITE_OK) {
		snprintf(why, whylen, "token store: %s", sqlite3_errmsg(tk->db));
		return -1;
	}
	while (!found && sqlite3_step(st) == SQLITE_ROW) {
		const void *salt = sqlite3_column_blob(st, 1);
		const void *stored = sqlite3_column_blob(st, 2);

		rows++;
		if (!salt || !stored || sqlite3_column_bytes(st, 1) != SALT_LEN ||
		    sqlite3_column_bytes(st, 2) != HASH_LEN)
			continue;
		if (hash_token(salt, token, hash) == 0 &&
		    CRYPTO_memcmp(hash, stored, HASH_LEN) == 0) {
			found = 1;
			*mem_limit = (uint64_t)sqlite3_column_int64(st, 3);
			snprintf(why, whylen, "tenant %s", (const char *)sqlite3_column_text(st, 0));
		}
	}
	sqlite3_finalize(st);
	if (found || rows == 0)
		return 0;
	snprintf(why, whylen, token[0] ? "unknown token" : "a token is required (ANYGPU_TOKEN)");
	return -1;
}
