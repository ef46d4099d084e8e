/*
 * harness.h - starting and stopping a real anygpu serve daemon inside a
 * test: a forked child runs ag_serve() with the signal handling of a fresh
 * process.
 */
#ifndef AG_TEST_HARNESS_H
#define AG_TEST_HARNESS_H

#include "server/server.h"

#include <sys/types.h>

/* Starts the daemon (stderr to log when not NULL) and waits until its
 * Unix socket (cfg->unix_path, required) accepts.  The pid, or -1. */
pid_t test_serve(const struct ag_serve_cfg *cfg, const char *log);
/* SIGTERM, then waits: the daemon's exit status, or -1 if it was killed. */
int test_serve_stop(pid_t pid);
/* A loopback TCP port nobody listens on now. */
int test_free_port(void);

#endif
