/*
 * test_tokens.c - the token store on its own: processes that open a store
 * that does not exist yet, all at once, as the workers of a new daemon's
 * first sessions do, every one of them gets it.
 */
#include "server/tokens.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OPENERS = 8, ROUNDS = 10 };

/* In a child: waits until the pipe's write end closes, opens the store,
 * exits 0 when that worked. */
static void __attribute__((noreturn)) open_when_released(int release, const char *dir)
{
	char c, err[256];
	struct ag_tokens *tk;

	if (read(release, &c, 1) < 0)
		_exit(2);
	tk = ag_tokens_open(dir, err, sizeof(err));
	if (!tk) {
		fprintf(stderr, "%s\n", err);
		_exit(1);
	}
	ag_tokens_close(tk);
	_exit(0);
}

/* OPENERS processes open a new store in dir at the same moment; how many
 * of them failed. */
static int open_together(const char *dir)
{
	pid_t pids[OPENERS];
	int p[2], failed = 0, status;

	assert_int_equal(pipe(p), 0);
	for (int i = 0; i < OPENERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(p[1]);
			open_when_released(p[0], dir);
		}
	}
	close(p[0]);
	close(p[1]);
	for (int i = 0; i < OPENERS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	return failed;
}

static void test_new_store_opened_at_once(void **state)
{
	char cmd[100];

	for (int r = 0; r < ROUNDS; r++) {
		char dir[] = "/tmp/ag-test-tokens-XXXXXX";

		assert_non_null(mkdtemp(dir));
		assert_int_equal(open_together(dir), 0);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_store_opened_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
