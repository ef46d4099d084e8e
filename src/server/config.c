/*
 * config.c - the server's settings: the INI configuration file (inih), the
 * default state directory, and memory sizes as operators write them.
 */
#include "server/server.h"
#include "util/strbuf.h"

#include <errno.h>
#include <ini.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

struct load_ctx {
	struct ag_serve_cfg *cfg;
	char *err;
	size_t errlen;
	unsigned seen;          /* string settings set so far, by index */
};

/* The settings that are strings, by their names in the file. */
static const struct {
	const char *name;
	size_t off;
} string_settings[] = {
	{ "listen", offsetof(struct ag_serve_cfg, listen) },
	{ "unix", offsetof(struct ag_serve_cfg, unix_path) },
	{ "backend", offsetof(struct ag_serve_cfg, backend) },
	{ "state_dir", offsetof(struct ag_serve_cfg, state_dir) },
	{ "tls", offsetof(struct ag_serve_cfg, tls) },
	{ "cert", offsetof(struct ag_serve_cfg, cert) },
	{ "key", offsetof(struct ag_serve_cfg, key) },
};

#define NSTRINGS (sizeof(string_settings) / sizeof(string_settings[0]))
_Static_assert(NSTRINGS <= sizeof(((struct ag_serve_cfg *)0)->loaded) / sizeof(char *),
	       "struct ag_serve_cfg has room for every string setting");

/* The index of a string setting, or -1. */
static int string_setting(const char *name)
{
	for (size_t i = 0; i < NSTRINGS; i++)
		if (strcmp(name, string_settings[i].name) == 0)
			return (int)i;
	return -1;
}

/* A string setting; one given twice in a file is refused (which value
 * was meant?).  A later file's value replaces an earlier file's. */
static int set_string(struct load_ctx *c, int i, const char *value)
{
	if (c->seen & (1u << i)) {
		snprintf(c->err, c->errlen, "'%s' is set twice", string_settings[i].name);
		return 0;
	}
	c->seen |= 1u << i;
	free(c->cfg->loaded[i]);
	c->cfg->loaded[i] = xstrdup(value);
	*(const char **)((char *)c->cfg + string_settings[i].off) = c->cfg->loaded[i];
	return 1;
}

/* compress = on|off: whether clients may ask for compressed copies. */
static int set_compress(struct load_ctx *c, const char *value)
{
	if (strcmp(value, "on") && strcmp(value, "off")) {
		snprintf(c->err, c->errlen, "compress = %s: want on or off", value);
		return 0;
	}
	c->cfg->no_compress = strcmp(value, "off") == 0;
	return 1;
}

static int on_setting(void *user, const char *section, const char *name, const char *value)
{
	struct load_ctx *c = user;
	struct ag_serve_cfg *cfg = c->cfg;
	int str;
	char *end;

	if (strcmp(section, "serve") != 0) {
		snprintf(c->err, c->errlen, "unknown section [%s]", section);
		return 0;
	}
	str = string_setting(name);
	if (str >= 0) {
		return set_string(c, str, value);
	} else if (strcmp(name, "compress") == 0) {
		return set_compress(c, value);
	} else if (strcmp(name, "device") == 0) {
		cfg->device = (int)strtol(value, &end, 10);
		if (*end || !*value || cfg->device < 0) {
			snprintf(c->err, c->errlen, "device = %s is not a device number", value);
			return 0;
		}
	} else {
		snprintf(c->err, c->errlen, "unknown setting '%s' in [serve]", name);
		return 0;
	}
	return 1;
}

int ag_serve_config_load(const char *path, struct ag_serve_cfg *cfg, char *err, size_t errlen)
{
	struct load_ctx c = { .cfg = cfg };
	char why[200] = "";
	int rc;

	c.err = why;
	c.errlen = sizeof(why);
	rc = ini_parse(path, on_setting, &c);
	if (rc == 0)
		return 0;
	if (rc == -1)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	else
		snprintf(err, errlen, "%s:%d: %s", path, rc, why[0] ? why : "syntax error");
	return -1;
}

void ag_serve_config_free(struct ag_serve_cfg *cfg)
{
	for (size_t i = 0; i < NSTRINGS; i++) {
		free(cfg->loaded[i]);
		cfg->loaded[i] = NULL;
	}
}

/* mkdir -p, for directories the server owns (mode 0700). */
static int make_dirs(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0700) && errno != EEXIST ? -1 : 0;
}

int ag_state_dir(char *out, size_t outlen, char *err, size_t errlen)
{
	const char *env = getenv("ANYGPU_STATE_DIR"), *xdg = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	int n;

	if (env && *env)
		n = snprintf(out, outlen, "%s", env);
	else if (xdg && *xdg)
		n = snprintf(out, outlen, "%s/anygpu", xdg);
	else if (home && *home)
		n = snprintf(out, outlen, "%s/.local/state/anygpu", home);
	else
		n = snprintf(out, outlen, "/var/lib/anygpu");
	if (n < 0 || (size_t)n >= outlen) {
		snprintf(err, errlen, "state directory path too long");
		return -1;
	}
	if (make_dirs(out)) {
		snprintf(err, errlen, "cannot create %s: %s", out, strerror(errno));
		return -1;
	}
	return 0;
}

int ag_parse_size(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; double mul; } units[] = {
		{ "", 1 }, { "b", 1 },
		{ "k", 1024.0 }, { "kb", 1024.0 }, { "kib", 1024.0 },
		{ "m", 1048576.0 }, { "mb", 1048576.0 }, { "mib", 1048576.0 },
		{ "g", 1073741824.0 }, { "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(end, units[i].suffix) == 0) {
			v *= units[i].mul;
			if (v >= 18446744073709551616.0)
				return -1;
			*out = (uint64_t)v;
			return 0;
		}
	}
	return -1;
}
