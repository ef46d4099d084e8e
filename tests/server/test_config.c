/*
 * test_config.c - anygpu serve's configuration file: the settings it
 * knows, compress = on|off, and the mistakes it refuses (a setting given
 * twice, an unknown one, a bad value) with the line that has them.
 */
#include "server/server.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Loads text as a configuration file into cfg: load's result, err set. */
static int load(const char *text, struct ag_serve_cfg *cfg, char *err, size_t errlen)
{
	char path[] = "/tmp/ag-test-config-XXXXXX";
	int fd = mkstemp(path), rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	rc = ag_serve_config_load(path, cfg, err, errlen);
	unlink(path);
	return rc;
}

static void test_settings(void **state)
{
	struct ag_serve_cfg cfg = { .backend = "cpu" };
	char err[300] = "";

	assert_int_equal(load("[serve]\nlisten = 0.0.0.0:7355\nbackend = cuda\ndevice = 1\n"
			      "compress = off\n", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.listen, "0.0.0.0:7355");
	assert_string_equal(cfg.backend, "cuda");
	assert_int_equal(cfg.device, 1);
	assert_int_equal(cfg.no_compress, 1);
	/* A second file's value replaces the first's. */
	assert_int_equal(load("[serve]\ncompress = on\nlisten = 127.0.0.1:1\n", &cfg, err,
			      sizeof(err)), 0);
	assert_int_equal(cfg.no_compress, 0);
	assert_string_equal(cfg.listen, "127.0.0.1:1");
	ag_serve_config_free(&cfg);
	assert_null(cfg.loaded[0]);
}

static void test_mistakes(void **state)
{
	struct ag_serve_cfg cfg = { 0 };
	char err[300] = "";

	assert_int_equal(load("[serve]\nlisten = a:1\nlisten = b:2\n", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":3: 'listen' is set twice"));
	assert_int_equal(load("[serve]\ncompress = maybe\n", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "compress = maybe: want on or off"));
	assert_int_equal(load("[serve]\nport = 1\n", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown setting 'port'"));
	assert_int_equal(load("[other]\nlisten = a:1\n", &cfg, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown section [other]"));
	ag_serve_config_free(&cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_mistakes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
