/*
 * bench_remote.c - the network path's speed, with its own reference: bulk
 * copies through the remote backend against an anygpu serve daemon (cpu
 * backend) on loopback TCP, next to the same bytes over a raw loopback TCP
 * socket in the same run, and asynchronous launches (or, without a kernel
 * image, 4-byte async memsets) per second.
 *
 *   bench_remote [MiB ...]       default: 64 256
 * Environment: AG_BENCH_FATBIN, a fatbin holding extern "C" nop(int).
 */
#include "backend.h"
#include "harness.h"

#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct sink {
	int fd;
	uint64_t n;
};

/* Reads n bytes into a buffer, as a server would, then answers 1 byte. */
static void *sink_main(void *arg)
{
	struct sink *k = arg;
	size_t cap = 4u << 20;
	char *buf = malloc(cap), ok = 1;
	uint64_t got = 0;

	while (got < k->n) {
		ssize_t r = read(k->fd, buf, cap);

		if (r <= 0)
			break;
		got += r;
	}
	if (write(k->fd, &ok, 1) != 1)
		perror("sink");
	free(buf);
	return NULL;
}

/* GB/s of n bytes written on a raw loopback TCP connection and read on the
 * other end, including the final acknowledgement. */
static double raw_tcp(uint64_t n, const char *src)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0);
	struct sink k = { -1, n };
	pthread_t t;
	double t0, t1;
	uint64_t sent = 0;
	char ack;

	bind(l, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(l, (struct sockaddr *)&sa, &len);
	listen(l, 1);
	connect(c, (struct sockaddr *)&sa, sizeof(sa));
	k.fd = accept(l, NULL, NULL);
	pthread_create(&t, NULL, sink_main, &k);
	t0 = now();
	while (sent < n) {
		size_t chunk = n - sent < (4u << 20) ? n - sent : (4u << 20);
		ssize_t w = write(c, src + sent, chunk);

		if (w <= 0)
			break;
		sent += w;
	}
	if (read(c, &ack, 1) != 1)
		perror("raw_tcp");
	t1 = now();
	pthread_join(t, NULL);
	close(c);
	close(k.fd);
	close(l);
	return n / (t1 - t0) / 1e9;
}

static void *echo_main(void *arg)
{
	int fd = *(int *)arg;
	char c;

	while (read(fd, &c, 1) == 1 && write(fd, &c, 1) == 1)
		;
	return NULL;
}

/* Microseconds per 1-byte round trip on a raw loopback TCP connection. */
static double raw_round_trip(int n)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);
	int l = socket(AF_INET, SOCK_STREAM, 0), c = socket(AF_INET, SOCK_STREAM, 0), e, one = 1;
	pthread_t t;
	double t0, t1;
	char b = 1;

	bind(l, (struct sockaddr *)&sa, sizeof(sa));
	getsockname(l, (struct sockaddr *)&sa, &len);
	listen(l, 1);
	connect(c, (struct sockaddr *)&sa, sizeof(sa));
	setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	e = accept(l, NULL, NULL);
	setsockopt(e, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	pthread_create(&t, NULL, echo_main, &e);
	t0 = now();
	for (int i = 0; i < n; i++)
		if (write(c, &b, 1) != 1 || read(c, &b, 1) != 1)
			break;
	t1 = now();
	close(c);
	pthread_join(t, NULL);
	close(e);
	close(l);
	return (t1 - t0) / n * 1e6;
}

/* Microseconds per answered call (an idle stream's query). */
static void latency(const struct ag_backend_ops *ops, struct ag_backend *b)
{
	const int n = 5000;
	double raw = raw_round_trip(n), t0 = now();

	for (int i = 0; i < n; i++)
		ops->stream_query(b, NULL);
	printf("%-8s answered call %.1f us round trip; raw TCP 1-byte ping-pong %.1f us\n",
	       "remote", (now() - t0) / n * 1e6, raw);
}

static double copy_rate(const struct ag_backend_ops *ops, struct ag_backend *b, ag_dptr d,
			char *host, uint64_t n, int to_device)
{
	double t0 = now();
	cudaError_t e = to_device ? ops->copy_htod(b, NULL, d, host, n, AG_HOST_PAGEABLE, 0)
				  : ops->copy_dtoh(b, NULL, host, d, n, AG_HOST_PAGEABLE, 0);

	if (e != cudaSuccess) {
		fprintf(stderr, "copy: error %d: %s\n", (int)e, ops->last_message(b));
		exit(1);
	}
	return n / (now() - t0) / 1e9;
}

static void *read_file(const char *path, long *size)
{
	FILE *f = fopen(path, "rb");
	void *p;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	*size = ftell(f);
	rewind(f);
	p = malloc(*size);
	if (fread(p, 1, *size, f) != (size_t)*size) {
		free(p);
		p = NULL;
	}
	fclose(f);
	return p;
}

/* Asynchronous operations per second: N posted, then one synchronize. */
static void async_rate(const struct ag_backend_ops *ops, struct ag_backend *b, ag_dptr d)
{
	const char *path = getenv("AG_BENCH_FATBIN");
	const int n = 200000;
	struct ag_launch_cfg cfg = { { 1, 1, 1 }, { 1, 1, 1 }, 0, 0 };
	struct ag_module *m;
	struct ag_func *f = NULL;
	const struct ag_func_info *fi;
	long size = 0;
	void *image = path ? read_file(path, &size) : NULL;
	int arg = 0;
	double t0, t1;

	if (image && (ops->module_load(b, image, size, &m) ||
		      ops->module_func(b, m, "nop", &f, &fi)))
		f = NULL;
	free(image);
	t0 = now();
	for (int i = 0; i < n; i++) {
		cudaError_t e = f ? ops->launch(b, NULL, f, &cfg, &arg, sizeof(arg))
				  : ops->memset(b, NULL, d, 0, 4, 1);
		if (e != cudaSuccess) {
			fprintf(stderr, "async: error %d\n", (int)e);
			exit(1);
		}
	}
	t1 = now();
	if (ops->synchronize(b) != cudaSuccess) {
		fprintf(stderr, "synchronize: %s\n", ops->last_message(b));
		exit(1);
	}
	printf("%-8s async %s: %.0f/s issued, %.0f/s completed (%d, then synchronize)\n",
	       "remote", f ? "empty-kernel launches" : "4-byte memsets", n / (t1 - t0),
	       n / (now() - t0), n);
}

/* One size: raw TCP, then both directions through the remote backend. */
static void copy_figures(const struct ag_backend_ops *ops, struct ag_backend *b, uint64_t mib)
{
	uint64_t n = mib << 20;
	char *host = malloc(n);
	double raw, htod, dtoh;
	ag_dptr d;

	memset(host, 0x5a, n);
	if (ops->mem_alloc(b, n, AG_MEM_DEVICE, &d) != cudaSuccess) {
		fprintf(stderr, "mem_alloc: %s\n", ops->last_message(b));
		exit(1);
	}
	copy_rate(ops, b, d, host, n, 1);	/* warm: the pages exist */
	/* Best of five, interleaved, so that a busy machine's noise hits the
	 * reference and the remote path alike. */
	raw = htod = dtoh = 0;
	for (int i = 0; i < 5; i++) {
		raw = fmax(raw, raw_tcp(n, host));
		htod = fmax(htod, copy_rate(ops, b, d, host, n, 1));
		dtoh = fmax(dtoh, copy_rate(ops, b, d, host, n, 0));
	}
	printf("%4llu MiB: raw TCP %.2f GB/s; remote HtoD %.2f GB/s (%.0f%%), "
	       "DtoH %.2f GB/s (%.0f%%)\n", (unsigned long long)mib, raw, htod,
	       100 * htod / raw, dtoh, 100 * dtoh / raw);
	ops->mem_free(b, d);
	free(host);
}

int main(int argc, char **argv)
{
	static char *defaults[] = { "bench_remote", "64", "256", NULL };
	char dir[] = "/tmp/ag-bench-remote-XXXXXX", sock[100], tcp[64], env[80];
	struct ag_serve_cfg cfg = { .unix_path = sock, .listen = tcp, .backend = "cpu",
				    .state_dir = dir, .tls = "off" };
	const struct ag_backend_ops *ops = ag_backend_find("remote");
	struct ag_backend *b = NULL;
	pid_t pid;

	signal(SIGPIPE, SIG_IGN);
	if (!mkdtemp(dir))
		return 1;
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(tcp, sizeof(tcp), "127.0.0.1:%d", test_free_port());
	snprintf(env, sizeof(env), "%s", tcp);
	setenv("ANYGPU_SERVER", env, 1);
	pid = test_serve(&cfg, "/dev/null");
	if (pid < 0 || ops->open(0, NULL, &b) != cudaSuccess) {
		fprintf(stderr, "bench_remote: no server\n");
		return 1;
	}
	if (argc < 2) {
		argv = defaults;
		argc = 3;
	}
	for (int i = 1; i < argc; i++)
		copy_figures(ops, b, strtoull(argv[i], NULL, 10));
	{
		ag_dptr d;

		ops->mem_alloc(b, 4, AG_MEM_DEVICE, &d);
		async_rate(ops, b, d);
		latency(ops, b);
	}
	ops->close(b);
	test_serve_stop(pid);
	snprintf(env, sizeof(env), "rm -rf %s", dir);
	return system(env);
}
