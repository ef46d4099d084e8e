/*
 * token.c - `anygpu token create`: makes a tenant's access token, prints it
 * once, and stores only its salted hash in the server's state directory.
 */
#include "cli/cli.h"
#include "server/server.h"
#include "server/tokens.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: anygpu token create --name NAME [--mem-limit SIZE] [--state-dir DIR]\n"
	"Prints a new token for `anygpu serve` clients (ANYGPU_TOKEN) once; SIZE\n"
	"such as 8G caps the tenant's device memory.  DIR is the server's state\n"
	"directory (default as for `anygpu serve`).\n";

static int token_create(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "mem-limit", required_argument, NULL, 'm' },
		{ "state-dir", required_argument, NULL, 's' },
		{ 0 },
	};
	const char *name = NULL, *dir = NULL;
	char state[4096], err[512], token[128];
	uint64_t limit = 0;
	struct ag_tokens *tk;
	int c, rc;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': name = optarg; break;
		case 's': dir = optarg; break;
		case 'm':
			if (ag_parse_size(optarg, &limit) == 0)
				break;
			cli_error("token", "bad size '%s' (e.g. 512M, 8G)", optarg);
			return 2;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (!name || !*name || optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (!dir) {
		if (ag_state_dir(state, sizeof(state), err, sizeof(err)))
			return cli_error("token", "%s", err);
		dir = state;
	}
	tk = ag_tokens_open(dir, err, sizeof(err));
	if (!tk)
		return cli_error("token", "%s", err);
	rc = ag_tokens_create(tk, name, limit, token, sizeof(token), err, sizeof(err));
	ag_tokens_close(tk);
	if (rc)
		return cli_error("token", "%s", err);
	printf("%s\n", token);
	return 0;
}

static int token_run(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "create") == 0)
		return token_create(argc - 1, argv + 1);
	fputs(usage, stderr);
	return 2;
}

const struct command cmd_token = {
	.name = "token",
	.summary = "create access tokens for anygpu serve's tenants",
	.usage = usage,
	.run = token_run,
};
