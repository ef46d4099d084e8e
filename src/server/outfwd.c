/*
 * outfwd.c - forwarding a worker's stdout or stderr to its client.
 */
#define _GNU_SOURCE /* pipe2 */
#include "server/outfwd.h"
#include "protocol/conn.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct ag_outfwd {
	struct ag_conn *conn;
	unsigned op;            /* AG_OP_PRINT or AG_OP_STDERR */
	int fd;                 /* 1 or 2 */
	FILE *stream;           /* stdout or stderr, flushed before reading */
	int rfd;                /* read end of the pipe that is now fd */
	int saved;              /* what fd was before */
	pthread_t thread;
	pthread_mutex_t lock;   /* one reader of the pipe at a time */
};

/* Reads what is there and sends it; 1 at the end of the pipe. */
static int pass_on(struct ag_outfwd *f)
{
	char buf[4096], err[128];
	ssize_t n;

	pthread_mutex_lock(&f->lock);
	while ((n = read(f->rfd, buf, sizeof(buf))) > 0)
		ag_conn_send(f->conn, f->op, 0, 0, buf, n, NULL, 0, err, sizeof(err));
	pthread_mutex_unlock(&f->lock);
	return n == 0;
}

static void *outfwd_main(void *arg)
{
	struct ag_outfwd *f = arg;
	struct pollfd pf = { .fd = f->rfd, .events = POLLIN };

	while (poll(&pf, 1, -1) >= 0 || errno == EINTR)
		if (pass_on(f))
			break;
	return NULL;
}

struct ag_outfwd *ag_outfwd_start(struct ag_conn *c, int fd, unsigned op)
{
	struct ag_outfwd *f;
	int p[2];

	if (pipe2(p, O_CLOEXEC))
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->conn = c;
	f->op = op;
	f->fd = fd;
	f->stream = fd == 1 ? stdout : stderr;
	f->rfd = p[0];
	fflush(f->stream);
	f->saved = dup(fd);
	if (f->saved < 0 || dup2(p[1], fd) < 0 ||
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
	if (pthread_create(&f->thread, NULL, outfwd_main, f)) {
		dup2(f->saved, fd);
		close(f->saved);
		close(f->rfd);
		pthread_mutex_destroy(&f->lock);
		free(f);
		return NULL;
	}
	return f;
}

void ag_outfwd_drain(struct ag_outfwd *f)
{
	if (!f)
		return;
	fflush(f->stream);
	pass_on(f);
}

void ag_outfwd_stop(struct ag_outfwd *f)
{
	if (!f)
		return;
	fflush(f->stream);
	/* The pipe's last write end goes: the thread sends the rest, sees
	 * the end and stops. */
	dup2(f->saved, f->fd);
	close(f->saved);
	pthread_join(f->thread, NULL);
	close(f->rfd);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
