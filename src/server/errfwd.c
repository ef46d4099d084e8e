/*
 * errfwd.c - forwarding a worker's stderr to its client.
 */
#define _GNU_SOURCE /* pipe2 */
#include "server/errfwd.h"
#include "protocol/conn.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct ag_errfwd {
	struct ag_conn *conn;
	int rfd;                /* read end of the pipe that is now fd 2 */
	int saved;              /* the stderr before */
	pthread_t thread;
	pthread_mutex_t lock;   /* one reader of the pipe at a time */
};

/* Reads what is there and sends it; 1 at the end of the pipe. */
static int pass_on(struct ag_errfwd *f)
{
	char buf[4096], err[128];
	ssize_t n;

	pthread_mutex_lock(&f->lock);
	while ((n = read(f->rfd, buf, sizeof(buf))) > 0)
		ag_conn_send(f->conn, AG_OP_STDERR, 0, 0, buf, n, NULL, 0, err, sizeof(err));
	pthread_mutex_unlock(&f->lock);
	return n == 0;
}

static void *errfwd_main(void *arg)
{
	struct ag_errfwd *f = arg;
	struct pollfd pf = { .fd = f->rfd, .events = POLLIN };

	while (poll(&pf, 1, -1) >= 0 || errno == EINTR)
		if (pass_on(f))
			break;
	return NULL;
}

struct ag_errfwd *ag_errfwd_start(struct ag_conn *c)
{
	struct ag_errfwd *f;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->conn = c;
	f->rfd = p[0];
	fflush(stderr);
	f->saved = dup(2);
	if (f->saved < 0 || dup2(p[1], 2) < 0 ||
	    fcntl(f->rfd, F_SETFL, O_NONBLOCK) < 0) {
		close(p[0]);
		close(p[1]);
		if (f->saved >= 0)
			close(f->saved);
		free(f);
		return NULL;
	}
	close(p[1]);
	pthread_mutex_init(&f->lock, NULL);
	if (pthread_create(&f->thread, NULL, errfwd_main, f)) {
		dup2(f->saved, 2);
		close(f->saved);
		close(f->rfd);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return NULL;
	}
	return f;
}

void ag_errfwd_drain(struct ag_errfwd *f)
{
	if (f)
		pass_on(f);
}

void ag_errfwd_stop(struct ag_errfwd *f)
{
	if (!f)
		return;
	fflush(stderr);
	/* The pipe's last write end goes: the thread sends the rest, sees
	 * the end and stops. */
	dup2(f->saved, 2);
	close(f->saved);
	pthread_join(f->thread, NULL);
	close(f->rfd);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
