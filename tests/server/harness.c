/*
 * harness.c - a real daemon for the server tests.
 */
#include "harness.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int can_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0), ok;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/* The test framework's handlers for faults must not run in the daemon. */
static void fresh_signals(void)
{
	int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE };

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
}

pid_t test_serve(const struct ag_serve_cfg *cfg, const char *log)
{
	pid_t pid = fork();

	if (pid == 0) {
		/* The daemon goes when the test goes, however it goes. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		fresh_signals();
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);

			dup2(fd, 2);
			close(fd);
		}
		_exit(ag_serve(cfg));
	}
	for (int i = 0; i < 500; i++) {
		if (can_connect(cfg->unix_path))
			return pid;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

int test_serve_stop(pid_t pid)
{
	int status;

	if (pid <= 0)
		return -1;
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

int test_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port = 0;

	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
		port = ntohs(sa.sin_port);
	close(fd);
	return port;
}
