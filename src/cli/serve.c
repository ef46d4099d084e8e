/*
 * serve.c - `anygpu serve`: options and configuration file, then the
 * daemon of src/server.
 */
#include "cli/cli.h"
#include "protocol/conn.h"
#include "server/server.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: anygpu serve [--listen HOST:PORT] [--unix PATH] [--backend cpu|cuda]\n"
	"                    [--device N] [--state-dir DIR] [--config FILE]\n"
	"Serves this machine's device to remote clients (ANYGPU_SERVER=HOST:PORT).\n"
	"Without --listen or --unix it listens on 127.0.0.1:7355.  Options given on\n"
	"the command line override the [serve] section of --config.\n";

static int serve_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "unix", required_argument, NULL, 'u' },
		{ "backend", required_argument, NULL, 'b' },
		{ "device", required_argument, NULL, 'd' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ 0 },
	};
	struct ag_serve_cfg cfg = { .backend = "cpu" }, cli = { .device = -1 };
	char state[4096], err[512];
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': cli.listen = optarg; break;
		case 'u': cli.unix_path = optarg; break;
		case 'b': cli.backend = optarg; break;
		case 'd': cli.device = atoi(optarg); break;
		case 's': cli.state_dir = optarg; break;
		case 'c':
			if (ag_serve_config_load(optarg, &cfg, err, sizeof(err)))
				return cli_error("serve", "%s", err);
			break;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fputs(usage, stderr);
		return 2;
	}
	if (cli.listen)
		cfg.listen = cli.listen;
	if (cli.unix_path)
		cfg.unix_path = cli.unix_path;
	if (cli.backend)
		cfg.backend = cli.backend;
	if (cli.device >= 0)
		cfg.device = cli.device;
	if (cli.state_dir)
		cfg.state_dir = cli.state_dir;
	if (!cfg.listen && !cfg.unix_path)
		cfg.listen = "127.0.0.1:7355";
	if (!cfg.state_dir) {
		if (ag_state_dir(state, sizeof(state), err, sizeof(err)))
			return cli_error("serve", "%s", err);
		cfg.state_dir = state;
	}
	if (cfg.listen && !ag_net_is_local(cfg.listen))
		fprintf(stderr, "anygpu serve: warning: TLS is not implemented yet: traffic on "
			"%s travels unencrypted\n", cfg.listen);
	return ag_serve(&cfg);
}

const struct command cmd_serve = {
	.name = "serve",
	.summary = "serve this machine's device to remote clients",
	.usage = usage,
	.run = serve_run,
};
