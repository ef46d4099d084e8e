/*
 * daemon.c - the anygpu serve parent process: listens on TCP and a Unix
 * socket, forks one worker per accepted connection, and logs one line when
 * a session starts and one when it ends, with the worker's own reason (sent
 * up a pipe) or how it died.  The parent never touches a backend, so no
 * client can crash it; SIGTERM ends every worker and then the daemon.
 */
#define _GNU_SOURCE /* accept4, pipe2 */
#include "server/server.h"
#include "server/tokens.h"
#include "protocol/conn.h"
#include "util/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct worker {
	pid_t pid;
	unsigned long id;
	int reason_fd;              /* read end of the worker's reason pipe */
};

struct daemon {
	const struct ag_serve_cfg *cfg;
	const struct ag_backend_ops *ops;
	SSL_CTX *tls;               /* for the TCP listener, when TLS is on */
	int lfd[2];
	int lfd_tls[2];             /* 1: sessions on this listener use TLS */
	int nlfd;
	struct worker *w;
	size_t nw, wcap;
	unsigned long next_id;
};

static volatile sig_atomic_t got_term, got_child;
static int wake_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int saved = errno;
	char c = 0;

	if (sig == SIGCHLD)
		got_child = 1;
	else
		got_term = 1;
	if (write(wake_pipe[1], &c, 1) < 0) {
		/* The pipe is full: poll wakes up anyway. */
	}
	errno = saved;
}

static void log_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void log_line(const char *fmt, ...)
{
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	va_list ap;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "%s anygpu serve: ", when);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

static int set_signals(void (*fn)(int))
{
	struct sigaction sa = { .sa_handler = fn };
	int sigs[] = { SIGTERM, SIGINT, SIGCHLD };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -1;
	signal(SIGPIPE, fn == SIG_DFL ? SIG_DFL : SIG_IGN);
	return 0;
}

static void peer_name(int fd, char *out, size_t len)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	char host[128], port[16];

	if (getpeername(fd, (struct sockaddr *)&sa, &sl) == 0 && sa.ss_family != AF_UNIX &&
	    getnameinfo((struct sockaddr *)&sa, sl, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		snprintf(out, len, "%s:%s", host, port);
	else
		snprintf(out, len, "unix socket");
}

/* In the child: the session's end, its reason up the pipe for the
 * daemon's log. */
static void __attribute__((noreturn)) end_worker(int reason_fd, const char *why, int status)
{
	if (write(reason_fd, why, strlen(why)) < 0) {
		/* The daemon is gone. */
	}
	_exit(status);
}

/* In the child, when the client is gone and its work holds the device:
 * ending the process frees what the session held. */
static void __attribute__((noreturn)) abandon_session(void *ctx, const char *why)
{
	end_worker(*(int *)ctx, why, 1);
}

/* In the child: serve the session and exit, reporting the reason. */
static void __attribute__((noreturn)) run_worker(struct daemon *d, int fd, int reason_fd,
						      int tls)
{
	struct ag_session_args a = { .ops = d->ops, .ordinal = d->cfg->device,
				     .tls = tls ? d->tls : NULL,
				     .no_compress = d->cfg->no_compress,
				     .abandon = abandon_session, .abandon_ctx = &reason_fd };
	struct ag_tokens *tk = NULL;
	char reason[512], err[256];
	int rc;

	set_signals(SIG_DFL);
	for (int i = 0; i < d->nlfd; i++)
		close(d->lfd[i]);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	for (size_t i = 0; i < d->nw; i++)
		close(d->w[i].reason_fd);
	if (d->cfg->state_dir) {
		tk = ag_tokens_open(d->cfg->state_dir, err, sizeof(err));
		if (!tk) {
			snprintf(reason, sizeof(reason), "token store: %s", err);
			end_worker(reason_fd, reason, 2);
		}
		a.auth = ag_tokens_check;
		a.auth_ctx = tk;
	}
	rc = ag_session_run(fd, &a, reason, sizeof(reason));
	ag_tokens_close(tk);
	end_worker(reason_fd, reason, rc ? 1 : 0);
}

static void accept_one(struct daemon *d, int lfd, int tls)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), p[2];
	char peer[160];
	pid_t pid;

	if (fd < 0)
		return;
	ag_net_tune(fd);
	peer_name(fd, peer, sizeof(peer));
	if (pipe2(p, O_CLOEXEC)) {
		log_line("cannot start a session for %s: %s", peer, strerror(errno));
		close(fd);
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		run_worker(d, fd, p[1], tls);
	}
	close(fd);
	close(p[1]);
	if (pid < 0) {
		log_line("cannot start a session for %s: fork: %s", peer, strerror(errno));
		close(p[0]);
		return;
	}
	if (d->nw == d->wcap) {
		d->wcap = d->wcap * 2 + 16;
		d->w = xrealloc(d->w, d->wcap * sizeof(*d->w));
	}
	d->w[d->nw++] = (struct worker){ pid, ++d->next_id, p[0] };
	log_line("session %lu start: %s, worker pid %d", d->next_id, peer, (int)pid);
}

static void log_end(struct worker *w, int status)
{
	char reason[512];
	ssize_t n = read(w->reason_fd, reason, sizeof(reason) - 1);

	reason[n > 0 ? n : 0] = '\0';
	if (WIFSIGNALED(status))
		log_line("session %lu end: worker %d killed by signal %d (%s)%s%s; its memory "
		      "went with it", w->id, (int)w->pid, WTERMSIG(status),
		      strsignal(WTERMSIG(status)), reason[0] ? " after: " : "", reason);
	else
		log_line("session %lu end: worker %d exit %d: %s", w->id, (int)w->pid,
		      WEXITSTATUS(status), reason[0] ? reason : "no reason given");
	close(w->reason_fd);
}

static void reap(struct daemon *d)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (size_t i = 0; i < d->nw; i++) {
			if (d->w[i].pid != pid)
				continue;
			log_end(&d->w[i], status);
			d->w[i] = d->w[--d->nw];
			break;
		}
	}
}

static void stop_workers(struct daemon *d)
{
	for (size_t i = 0; i < d->nw; i++)
		kill(d->w[i].pid, SIGTERM);
	while (d->nw) {
		int status;
		pid_t pid = waitpid(-1, &status, 0);

		if (pid < 0 && errno != EINTR)
			break;
		for (size_t i = 0; pid > 0 && i < d->nw; i++) {
			if (d->w[i].pid == pid) {
				log_end(&d->w[i], status);
				d->w[i] = d->w[--d->nw];
				break;
			}
		}
	}
}

/* TLS for the TCP listener: "on", "off", or by default on unless the
 * address is loopback. */
static int setup_tls(struct daemon *d)
{
	const char *mode = d->cfg->tls ? d->cfg->tls : "auto";
	char fp[65], err[300];

	if (!d->cfg->listen || strcmp(mode, "off") == 0 ||
	    (strcmp(mode, "auto") == 0 && ag_net_is_local(d->cfg->listen)))
		return 0;
	if (strcmp(mode, "on") != 0 && strcmp(mode, "auto") != 0) {
		log_line("tls = %s: want on, off or auto", mode);
		return -1;
	}
	d->tls = ag_tls_server_ctx(d->cfg->state_dir, d->cfg->cert, d->cfg->key, fp,
				   err, sizeof(err));
	if (!d->tls) {
		log_line("TLS: %s", err);
		return -1;
	}
	log_line("TLS certificate SHA-256 fingerprint %s (clients: ANYGPU_TLS_FINGERPRINT)", fp);
	return 0;
}

static int open_listeners(struct daemon *d)
{
	const char *addrs[2] = { d->cfg->listen, NULL };
	char unix_addr[600], err[256];

	if (d->cfg->unix_path) {
		snprintf(unix_addr, sizeof(unix_addr), "unix:%s", d->cfg->unix_path);
		addrs[1] = unix_addr;
	}
	for (int i = 0; i < 2; i++) {
		if (!addrs[i])
			continue;
		d->lfd[d->nlfd] = ag_net_listen(addrs[i], err, sizeof(err));
		if (d->lfd[d->nlfd] < 0) {
			log_line("%s", err);
			return -1;
		}
		d->lfd_tls[d->nlfd] = i == 0 && d->tls;
		d->nlfd++;
		log_line("listening on %s (backend %s, device %d%s)", addrs[i], d->ops->name,
		      d->cfg->device, i == 0 && d->tls ? ", TLS" : "");
	}
	if (!d->nlfd) {
		log_line("nothing to listen on: give --listen or --unix");
		return -1;
	}
	return 0;
}

static void serve_loop(struct daemon *d)
{
	struct pollfd pf[3];

	while (!got_term) {
		int n = 0;

		for (int i = 0; i < d->nlfd; i++)
			pf[n++] = (struct pollfd){ .fd = d->lfd[i], .events = POLLIN };
		pf[n++] = (struct pollfd){ .fd = wake_pipe[0], .events = POLLIN };
		if (poll(pf, n, -1) < 0 && errno != EINTR)
			break;
		if (pf[n - 1].revents) {
			char buf[64];

			while (read(wake_pipe[0], buf, sizeof(buf)) > 0)
				;
		}
		if (got_child) {
			got_child = 0;
			reap(d);
		}
		for (int i = 0; i < d->nlfd && !got_term; i++)
			if (pf[i].revents & POLLIN)
				accept_one(d, pf[i].fd, d->lfd_tls[i]);
	}
}

/* ops->probe() in a child process: the NVIDIA driver cannot be used in a
 * process forked after it was initialised, and every worker is forked
 * from this one, so the parent must never load it.  The count, or -1 when
 * the child died, and the probe's message come back up a pipe. */
static int probe_apart(const struct ag_backend_ops *ops, char *msg, size_t msglen)
{
	struct { int n; char msg[256]; } r = { -1, "" };
	int p[2], status;
	ssize_t got;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC)) {
		snprintf(msg, msglen, "the device probe failed (pipe: %s)", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		r.n = ops->probe(r.msg, sizeof(r.msg));
		_exit(write(p[1], &r, sizeof(r)) != (ssize_t)sizeof(r));
	}
	close(p[1]);
	got = pid < 0 ? -1 : read(p[0], &r, sizeof(r));
	close(p[0]);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (got != (ssize_t)sizeof(r)) {
		snprintf(msg, msglen, "the device probe failed (%s)",
			 pid < 0 ? strerror(errno) : "its process died");
		return -1;
	}
	snprintf(msg, msglen, "%s", r.msg);
	return r.n;
}

int ag_serve(const struct ag_serve_cfg *cfg)
{
	struct daemon d = { .cfg = cfg };
	char msg[256] = "";
	int rc = 1;

	d.ops = ag_backend_find(cfg->backend);
	if (!d.ops) {
		log_line("no backend named '%s' in this build", cfg->backend);
		return 1;
	}
	if (probe_apart(d.ops, msg, sizeof(msg)) <= cfg->device) {
		log_line("backend %s has no device %d%s%s", cfg->backend, cfg->device,
		      msg[0] ? ": " : "", msg);
		return 1;
	}
	if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) || set_signals(on_signal)) {
		log_line("cannot set up signals: %s", strerror(errno));
		return 1;
	}
	if (setup_tls(&d) == 0 && open_listeners(&d) == 0) {
		serve_loop(&d);
		rc = 0;
	}
	for (int i = 0; i < d.nlfd; i++)
		close(d.lfd[i]);
	if (cfg->unix_path)
		unlink(cfg->unix_path);
	stop_workers(&d);
	free(d.w);
	ag_tls_ctx_free(d.tls);
	close(wake_pipe[0]);
	close(wake_pipe[1]);
	log_line("stopped");
	return rc;
}
