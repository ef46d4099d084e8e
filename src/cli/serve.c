/*
 * serve.c - `anygpu serve`: options and configuration file, then the
 * daemon of src/server.
 */
#include "cli/cli.h"
#include "server/server.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
	"usage: anygpu serve [--listen HOST:PORT] [--unix PATH] [--backend cpu|cuda]\n"
	"                    [--device N] [--state-dir DIR] [--config FILE]\n"
	"                    [--tls on|off|auto] [--cert PEM] [--key PEM] [--no-compress]\n"
	"Serves this machine's device to remote clients (ANYGPU_SERVER=HOST:PORT).\n"
	"Without --listen or --unix it listens on 127.0.0.1:7355.  TLS is on for a\n"
	"TCP address that is not loopback unless --tls off; without --cert a\n"
	"self-signed pair is made in the state directory and its fingerprint logged\n"
	"(clients pin it with ANYGPU_TLS_FINGERPRINT, or trust a CA with\n"
	"ANYGPU_TLS_CA).  Tokens (`anygpu token create`) are required once one\n"
	"exists.  Options given on the command line override the [serve] section\n"
	"of --config.  The state directory (tokens, certificate) defaults to\n"
	"$ANYGPU_STATE_DIR, else $XDG_STATE_HOME/anygpu, else ~/.local/state/anygpu.\n"
	"Clients may ask for Zstandard-compressed copies (anygpu run --compress);\n"
	"--no-compress (or compress = off in the file) refuses that, to spare this\n"
	"machine's CPU.\n";

/* Command-line settings win over the configuration file's. */
static void override(struct ag_serve_cfg *cfg, const struct ag_serve_cfg *cli)
{
	const char **dst[] = { &cfg->listen, &cfg->unix_path, &cfg->backend,
			       &cfg->state_dir, &cfg->tls, &cfg->cert, &cfg->key };
	const char *const src[] = { cli->listen, cli->unix_path, cli->backend,
				    cli->state_dir, cli->tls, cli->cert, cli->key };

	for (size_t i = 0; i < sizeof(src) / sizeof(src[0]); i++)
		if (src[i])
			*dst[i] = src[i];
	if (cli->device >= 0)
		cfg->device = cli->device;
	if (cli->no_compress)
		cfg->no_compress = 1;
}

/* The daemon with the command line's settings over the file's, and the
 * defaults for what neither gave. */
static int serve_with(struct ag_serve_cfg *cfg, const struct ag_serve_cfg *cli)
{
	char state[4096], err[512];

	override(cfg, cli);
	if (!cfg->listen && !cfg->unix_path)
		cfg->listen = "127.0.0.1:7355";
	if (!cfg->state_dir) {
		if (ag_state_dir(state, sizeof(state), err, sizeof(err)))
			return cli_error("serve", "%s", err);
		cfg->state_dir = state;
	}
	return ag_serve(cfg);
}

static int serve_run(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "unix", required_argument, NULL, 'u' },
		{ "backend", required_argument, NULL, 'b' },
		{ "device", required_argument, NULL, 'd' },
		{ "state-dir", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "tls", required_argument, NULL, 't' },
		{ "cert", required_argument, NULL, 'C' },
		{ "key", required_argument, NULL, 'K' },
		{ "no-compress", no_argument, NULL, 'Z' },
		{ 0 },
	};
	struct ag_serve_cfg cfg = { .backend = "cpu" }, cli = { .device = -1 };
	char err[512];
	int c, rc, bad = 0;

	optind = 1;
	while (!bad && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': cli.listen = optarg; break;
		case 'u': cli.unix_path = optarg; break;
		case 'b': cli.backend = optarg; break;
		case 'd': cli.device = atoi(optarg); break;
		case 's': cli.state_dir = optarg; break;
		case 't': cli.tls = optarg; break;
		case 'C': cli.cert = optarg; break;
		case 'K': cli.key = optarg; break;
		case 'Z': cli.no_compress = 1; break;
		case 'c':
			if (ag_serve_config_load(optarg, &cfg, err, sizeof(err))) {
				ag_serve_config_free(&cfg);
				return cli_error("serve", "%s", err);
			}
			break;
		default:
			bad = 1;
			break;
		}
	}
	if (bad || optind < argc) {
		fputs(usage, stderr);
		rc = 2;
	} else {
		rc = serve_with(&cfg, &cli);
	}
	ag_serve_config_free(&cfg);
	return rc;
}

const struct command cmd_serve = {
	.name = "serve",
	.summary = "serve this machine's device to remote clients",
	.usage = usage,
	.run = serve_run,
};
