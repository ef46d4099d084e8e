/*
 * test_remote.c - the remote backend against a real anygpu serve daemon
 * (cpu backend, Unix socket in a temporary directory), through backend.h
 * only: memory, bulk copies across chunk boundaries, memset, streams,
 * events, host functions, errors of asynchronous calls reported at the next
 * synchronising call, hostile pointers and handles, compression, the
 * order of copies that land straight in device memory, and a lost server.
 */
#include "backend.h"
#include "server/server.h"
#include "server/tokens.h"
#include "protocol/conn.h"
#include "harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char dir[] = "/tmp/ag-test-remote-XXXXXX";
static char sock[100];
static char tcp[64];
static pid_t server;
static pid_t extra;             /* a test's own daemon, stopped even if it fails */
static const struct ag_backend_ops *ops;

static void stop_server(void)
{
	test_serve_stop(server);
	server = 0;
}

static int setup(void **state)
{
	static struct ag_serve_cfg cfg = { .unix_path = sock, .listen = tcp,
					   .backend = "cpu", .state_dir = dir };
	char env[300];

	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(tcp, sizeof(tcp), "127.0.0.1:%d", test_free_port());
	snprintf(env, sizeof(env), "unix:%s", sock);
	setenv("ANYGPU_SERVER", env, 1);
	ops = ag_backend_find("remote");
	server = test_serve(&cfg, NULL);
	return ops && server > 0 ? 0 : -1;
}

static int stop_extra(void **state)
{
	test_serve_stop(extra);
	extra = 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[300];

	stop_server();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

/* Stops a test's own daemon, points the client back at the shared one and
 * removes the daemon's directory. */
static void end_extra(const char *extra_dir)
{
	char cmd[300];

	assert_int_equal(test_serve_stop(extra), 0);
	extra = 0;
	snprintf(cmd, sizeof(cmd), "unix:%s", sock);
	setenv("ANYGPU_SERVER", cmd, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", extra_dir);
	assert_int_equal(system(cmd), 0);
}

static struct ag_backend *open_remote(void)
{
	struct ag_backend *b = NULL;

	assert_int_equal(ops->open(0, NULL, &b), cudaSuccess);
	return b;
}

static void test_probe_and_info(void **state)
{
	char msg[256];
	struct ag_device_info d;
	uint64_t free_b, total;
	struct ag_backend *b;

	assert_int_equal(ops->probe(msg, sizeof(msg)), 1);
	b = open_remote();
	assert_int_equal(ops->info(b, &d), cudaSuccess);
	assert_true(d.name[0] != '\0');
	assert_int_equal(d.warp_size, 32);
	assert_int_equal(ops->mem_info(b, &free_b, &total), cudaSuccess);
	assert_true(total > 0 && free_b <= total);
	assert_null(ops->host_ptr(b, 0));
	ops->close(b);
}

/* 10 MiB + 3 bytes crosses the 4 MiB chunks both ways. */
static void test_copies_roundtrip(void **state)
{
	const uint64_t n = (10u << 20) + 3;
	unsigned char *src = malloc(n), *dst = malloc(n);
	struct ag_backend *b = open_remote();
	ag_dptr d1, d2;

	for (uint64_t i = 0; i < n; i++)
		src[i] = (unsigned char)(i * 7 + (i >> 13));
	assert_int_equal(ops->mem_alloc(b, n, AG_MEM_DEVICE, &d1), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, n, AG_MEM_DEVICE, &d2), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d1, src, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtod(b, NULL, d2, d1, n, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d2, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(src, dst, n);

	assert_int_equal(ops->memset(b, NULL, d2 + 5, 0xab, 100, 1), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d2, 200, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(dst, src, 5);
	for (int i = 5; i < 105; i++)
		assert_int_equal(dst[i], 0xab);
	assert_memory_equal(dst + 105, src + 105, 95);

	assert_int_equal(ops->mem_free(b, d1), cudaSuccess);
	assert_int_equal(ops->mem_free(b, d2), cudaSuccess);
	ops->close(b);
	free(src);
	free(dst);
}

static void set_flag(void *p)
{
	__atomic_store_n((int *)p, 1, __ATOMIC_SEQ_CST);
}

static void test_streams_events_hostfn(void **state)
{
	struct ag_backend *b = open_remote();
	struct ag_stream *s;
	struct ag_event *e0, *e1;
	int data[1024], out[1024], flag = 0, flag2 = 0;
	ag_dptr d;
	float ms = -1;

	for (int i = 0; i < 1024; i++)
		data[i] = i * i;
	assert_int_equal(ops->mem_alloc(b, sizeof(data), AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->stream_create(b, cudaStreamNonBlocking, 0, &s), cudaSuccess);
	assert_int_equal(ops->event_create(b, cudaEventDefault, &e0), cudaSuccess);
	assert_int_equal(ops->event_create(b, cudaEventDefault, &e1), cudaSuccess);
	assert_int_equal(ops->event_record(b, e0, s), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, s, d, data, sizeof(data), AG_HOST_PAGEABLE, 1),
			 cudaSuccess);
	assert_int_equal(ops->host_func(b, s, set_flag, &flag), cudaSuccess);
	assert_int_equal(ops->event_record(b, e1, s), cudaSuccess);
	assert_int_equal(ops->stream_sync(b, s), cudaSuccess);
	assert_int_equal(flag, 1);
	assert_int_equal(ops->stream_query(b, s), cudaSuccess);
	assert_int_equal(ops->event_sync(b, e1), cudaSuccess);
	assert_int_equal(ops->event_query(b, e1), cudaSuccess);
	assert_int_equal(ops->event_elapsed(b, e0, e1, &ms), cudaSuccess);
	assert_true(ms >= 0);
	assert_int_equal(ops->copy_dtoh(b, s, out, d, sizeof(out), AG_HOST_PAGEABLE, 1),
			 cudaSuccess);
	assert_memory_equal(data, out, sizeof(data));

	/* A host function runs when the stream reaches it, with no call
	 * waiting on this side. */
	assert_int_equal(ops->host_func(b, s, set_flag, &flag2), cudaSuccess);
	for (int i = 0; i < 500 && !__atomic_load_n(&flag2, __ATOMIC_SEQ_CST); i++)
		usleep(10000);
	assert_int_equal(flag2, 1);

	assert_int_equal(ops->stream_wait_event(b, NULL, e1), cudaSuccess);
	assert_int_equal(ops->synchronize(b), cudaSuccess);
	assert_int_equal(ops->event_destroy(b, e0), cudaSuccess);
	assert_int_equal(ops->event_destroy(b, e1), cudaSuccess);
	assert_int_equal(ops->stream_destroy(b, s), cudaSuccess);
	assert_int_equal(ops->stream_sync(b, s), cudaErrorInvalidResourceHandle);
	ops->close(b);
}

/* Pointers outside the session's allocations never reach the backend;
 * errors of unanswered calls come back at the next synchronising call,
 * once. */
static void test_hostile_pointers_and_deferred_errors(void **state)
{
	struct ag_backend *b = open_remote();
	char buf[64] = { 0 };
	ag_dptr d;

	assert_int_equal(ops->mem_alloc(b, 64, AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d + 1, buf, 64, AG_HOST_PAGEABLE, 0),
			 cudaErrorInvalidValue);
	assert_non_null(strstr(ops->last_message(b), "not inside an allocation"));
	assert_int_equal(ops->copy_dtoh(b, NULL, buf, 0x1000, 8, AG_HOST_PAGEABLE, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(ops->copy_dtod(b, NULL, d, d + 32, 64, 0), cudaErrorInvalidValue);
	assert_int_equal(ops->mem_free(b, d + 8), cudaErrorInvalidDevicePointer);
	/* A chunk large enough to be read by the executor itself: its bytes
	 * are taken off the connection all the same, and the session goes on. */
	{
		const size_t big = 1u << 20;
		char *p = calloc(1, big);

		assert_int_equal(ops->copy_htod(b, NULL, d, p, big, AG_HOST_PAGEABLE, 0),
				 cudaErrorInvalidValue);
		assert_int_equal(ops->copy_htod(b, (struct ag_stream *)(uintptr_t)99, d, p, big,
						AG_HOST_PAGEABLE, 0), cudaErrorInvalidResourceHandle);
		assert_int_equal(ops->copy_htod(b, NULL, d, buf, 64, AG_HOST_PAGEABLE, 0),
				 cudaSuccess);
		free(p);
	}

	/* Asynchronous: accepted now, reported at the next synchronize. */
	assert_int_equal(ops->memset(b, NULL, 0xdead0000, 0, 16, 1), cudaSuccess);
	assert_int_equal(ops->event_record(b, (struct ag_event *)(uintptr_t)77, NULL),
			 cudaSuccess);
	assert_int_equal(ops->synchronize(b), cudaErrorInvalidValue);
	assert_int_equal(ops->synchronize(b), cudaSuccess);

	assert_int_equal(ops->mem_free(b, d), cudaSuccess);
	assert_int_equal(ops->mem_free(b, d), cudaErrorInvalidDevicePointer);
	ops->close(b);
}

/* Two sessions at once see only their own memory. */
static void test_sessions_isolated(void **state)
{
	struct ag_backend *a = open_remote(), *b = open_remote();
	ag_dptr d;
	int v = 42, out = 0;

	assert_int_equal(ops->mem_alloc(a, sizeof(v), AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(a, NULL, d, &v, sizeof(v), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, &out, d, sizeof(out), AG_HOST_PAGEABLE, 0),
			 cudaErrorInvalidValue);
	assert_int_equal(out, 0);
	ops->close(a);
	ops->close(b);
}

/* Each listed server is one device; TCP and the Unix socket alike. */
static void test_tcp_and_two_devices(void **state)
{
	char env[300], msg[256];
	struct ag_backend *t = NULL, *u = NULL, *none = NULL;
	const uint64_t n = 9u << 20;
	unsigned char *src = malloc(n), *dst = calloc(1, n);
	ag_dptr d;

	snprintf(env, sizeof(env), "%s,unix:%s", tcp, sock);
	setenv("ANYGPU_SERVER", env, 1);
	assert_int_equal(ops->probe(msg, sizeof(msg)), 2);
	assert_int_equal(ops->open(0, NULL, &t), cudaSuccess);
	assert_int_equal(ops->open(1, NULL, &u), cudaSuccess);
	assert_int_equal(ops->open(2, NULL, &none), cudaErrorInvalidDevice);
	for (uint64_t i = 0; i < n; i++)
		src[i] = (unsigned char)(i ^ (i >> 11));
	assert_int_equal(ops->mem_alloc(t, n, AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(t, NULL, d, src, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(t, NULL, dst, d, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(src, dst, n);
	ops->close(t);
	ops->close(u);
	snprintf(env, sizeof(env), "unix:%s", sock);
	setenv("ANYGPU_SERVER", env, 1);
	free(src);
	free(dst);
}

/* TLS on TCP: a pinned fingerprint connects and carries data; a wrong one,
 * or a plain client, does not. */
static void test_tls(void **state)
{
	char tdir[] = "/tmp/ag-test-tls-XXXXXX", tsock[100], taddr[64];
	char fp[65], err[300];
	struct ag_serve_cfg cfg = { .unix_path = tsock, .listen = taddr, .backend = "cpu",
				    .state_dir = tdir, .tls = "on" };
	struct ag_backend *b = NULL;
	const uint64_t n = (5u << 20) + 7;
	unsigned char *src = malloc(n), *dst = calloc(1, n);
	SSL_CTX *ctx;
	ag_dptr d;

	assert_non_null(mkdtemp(tdir));
	snprintf(tsock, sizeof(tsock), "%s/sock", tdir);
	snprintf(taddr, sizeof(taddr), "127.0.0.1:%d", test_free_port());
	extra = test_serve(&cfg, NULL);
	assert_true(extra > 0);
	/* The server made its self-signed pair: read its fingerprint. */
	ctx = ag_tls_server_ctx(tdir, NULL, NULL, fp, err, sizeof(err));
	assert_non_null(ctx);
	ag_tls_ctx_free(ctx);
	setenv("ANYGPU_SERVER", taddr, 1);

	assert_int_equal(ops->open(0, NULL, &b), cudaErrorDevicesUnavailable);
	setenv("ANYGPU_TLS_FINGERPRINT", "00", 1);
	assert_int_equal(ops->open(0, NULL, &b), cudaErrorDevicesUnavailable);
	setenv("ANYGPU_TLS_FINGERPRINT", fp, 1);
	assert_int_equal(ops->open(0, NULL, &b), cudaSuccess);
	for (uint64_t i = 0; i < n; i++)
		src[i] = (unsigned char)(i * 13 + (i >> 9));
	assert_int_equal(ops->mem_alloc(b, n, AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d, src, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(src, dst, n);
	ops->close(b);

	unsetenv("ANYGPU_TLS_FINGERPRINT");
	end_extra(tdir);
	free(src);
	free(dst);
}

/* A server with tokens refuses unknown ones, and holds a tenant to its
 * quota, which is also the memory its device reports and the most heap
 * its kernels may ask for. */
static void test_tokens_and_quota(void **state)
{
	char adir[] = "/tmp/ag-test-auth-XXXXXX", asock[100], env[120], token[128], err[256];
	struct ag_serve_cfg cfg = { .unix_path = asock, .backend = "cpu", .state_dir = adir };
	struct ag_tokens *tk;
	struct ag_backend *b = NULL;
	struct ag_device_info d;
	uint64_t free_b, total;
	ag_dptr p1, p2;

	assert_non_null(mkdtemp(adir));
	snprintf(asock, sizeof(asock), "%s/sock", adir);
	tk = ag_tokens_open(adir, err, sizeof(err));
	assert_non_null(tk);
	assert_int_equal(ag_tokens_create(tk, "alice", 1u << 20, token, sizeof(token),
					  err, sizeof(err)), 0);
	assert_int_equal(ag_tokens_create(tk, "alice", 0, env, sizeof(env), err, sizeof(err)), -1);
	ag_tokens_close(tk);
	extra = test_serve(&cfg, NULL);
	assert_true(extra > 0);
	snprintf(env, sizeof(env), "unix:%s", asock);
	setenv("ANYGPU_SERVER", env, 1);

	setenv("ANYGPU_TOKEN", "agt_0000", 1);
	assert_int_equal(ops->open(0, NULL, &b), cudaErrorNotPermitted);
	unsetenv("ANYGPU_TOKEN");
	assert_int_equal(ops->open(0, NULL, &b), cudaErrorNotPermitted);
	setenv("ANYGPU_TOKEN", token, 1);
	assert_int_equal(ops->open(0, NULL, &b), cudaSuccess);
	assert_int_equal(ops->info(b, &d), cudaSuccess);
	assert_int_equal(d.total_mem, 1u << 20);
	assert_int_equal(ops->mem_info(b, &free_b, &total), cudaSuccess);
	assert_int_equal(total, 1u << 20);
	assert_int_equal(ops->mem_alloc(b, 600u << 10, AG_MEM_DEVICE, &p1), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, 600u << 10, AG_MEM_DEVICE, &p2),
			 cudaErrorMemoryAllocation);
	assert_int_equal(ops->mem_free(b, p1), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, 600u << 10, AG_MEM_DEVICE, &p2), cudaSuccess);
	/* The malloc heap is device memory too; limits reach the server. */
	assert_int_equal(ops->set_limit(b, cudaLimitMallocHeapSize, 2u << 20),
			 cudaErrorMemoryAllocation);
	assert_non_null(strstr(ops->last_message(b), "quota"));
	assert_int_equal(ops->set_limit(b, cudaLimitMallocHeapSize, 512u << 10), cudaSuccess);
	assert_int_equal(ops->set_limit(b, (enum cudaLimit)0x40, 1), cudaErrorUnsupportedLimit);
	ops->close(b);

	unsetenv("ANYGPU_TOKEN");
	end_extra(adir);
}

/* Half a pattern zstd shrinks, half bytes it cannot: chunks of both kinds. */
static void fill_mixed(unsigned char *p, uint64_t n)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t i = 0; i < n / 2; i++)
		p[i] = (unsigned char)(i % 251 < 40 ? i : 0);
	for (uint64_t i = n / 2; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (unsigned char)x;
	}
}

/* The level a HELLO asking for level gets from the server at addr. */
static unsigned agreed_level(const char *addr, unsigned level)
{
	struct ag_conn c;
	unsigned agreed = 99;
	char err[300];

	assert_int_equal(ag_client_dial(&c, addr, err, sizeof(err)), 0);
	assert_int_equal(ag_client_hello(&c, NULL, level, &agreed, err, sizeof(err)), 0);
	ag_conn_close(&c);
	return agreed;
}

/* Copies both ways, synchronous and on a stream, across chunks. */
static void roundtrip_mixed(void)
{
	const uint64_t n = (10u << 20) + 3;
	unsigned char *src = malloc(n), *dst = calloc(1, n);
	struct ag_backend *b = open_remote();
	struct ag_stream *s;
	ag_dptr d;

	fill_mixed(src, n);
	assert_int_equal(ops->mem_alloc(b, n, AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d, src, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(src, dst, n);
	assert_int_equal(ops->stream_create(b, cudaStreamNonBlocking, 0, &s), cudaSuccess);
	assert_int_equal(ops->memset(b, s, d, 0, n, 1), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, s, d, src + 1, n - 1, AG_HOST_PAGEABLE, 1),
			 cudaSuccess);
	memset(dst, 0, n);
	assert_int_equal(ops->copy_dtoh(b, s, dst, d, n - 1, AG_HOST_PAGEABLE, 1), cudaSuccess);
	assert_int_equal(ops->stream_sync(b, s), cudaSuccess);
	assert_memory_equal(src + 1, dst, n - 1);
	ops->close(b);
	free(src);
	free(dst);
}

/* ANYGPU_COMPRESS: negotiated at HELLO (a level above the highest gets
 * the highest), the data arrives whole whichever chunks shrink, a server
 * may refuse, and a bad level is an error that says why. */
static void test_compression(void **state)
{
	char cdir[] = "/tmp/ag-test-nozstd-XXXXXX", csock[100], env[120], why[300] = "";
	struct ag_serve_cfg cfg = { .unix_path = csock, .backend = "cpu", .no_compress = 1 };
	struct ag_open_args args = { .error = why, .error_len = sizeof(why) };
	struct ag_backend *b = NULL;

	snprintf(env, sizeof(env), "unix:%s", sock);
	assert_int_equal(agreed_level(env, 0), 0);
	assert_int_equal(agreed_level(env, 3), 3);
	assert_int_equal(agreed_level(env, 1000), 19);
	setenv("ANYGPU_COMPRESS", "3", 1);
	roundtrip_mixed();
	setenv("ANYGPU_COMPRESS", "fast", 1);
	assert_int_equal(ops->open(0, &args, &b), cudaErrorInvalidValue);
	assert_non_null(strstr(why, "ANYGPU_COMPRESS=fast"));

	assert_non_null(mkdtemp(cdir));
	cfg.state_dir = cdir;
	snprintf(csock, sizeof(csock), "%s/sock", cdir);
	extra = test_serve(&cfg, NULL);
	assert_true(extra > 0);
	snprintf(env, sizeof(env), "unix:%s", csock);
	assert_int_equal(agreed_level(env, 3), 0);
	setenv("ANYGPU_SERVER", env, 1);
	setenv("ANYGPU_COMPRESS", "3", 1);
	roundtrip_mixed();
	unsetenv("ANYGPU_COMPRESS");
	end_extra(cdir);
}

static void sleep_then_set(void *p)
{
	usleep(100000);
	set_flag(p);
}

/* A synchronous copy's bytes land in device memory only once the stream
 * has reached the copy: after an earlier memset of the same memory, and
 * after a host function that the client runs (whose answer comes after
 * the copy's bytes on the connection). */
static void test_sync_copy_ordering(void **state)
{
	const uint64_t n = 9u << 20;
	unsigned char *src = malloc(n), *dst = calloc(1, n);
	struct ag_backend *b = open_remote();
	int flag = 0;
	ag_dptr d;

	fill_mixed(src, n);
	assert_int_equal(ops->mem_alloc(b, n, AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->memset(b, NULL, d, 0x5a, n, 1), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d, src, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(src, dst, n);

	assert_int_equal(ops->host_func(b, NULL, sleep_then_set, &flag), cudaSuccess);
	assert_int_equal(ops->memset(b, NULL, d, 0, n, 1), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d, src, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_int_equal(flag, 1);
	memset(dst, 0, n);
	assert_int_equal(ops->copy_dtoh(b, NULL, dst, d, n, AG_HOST_PAGEABLE, 0), cudaSuccess);
	assert_memory_equal(src, dst, n);
	ops->close(b);
	free(src);
	free(dst);
}

/* A device that cannot be opened says why to the opener, which prints it. */
static void test_open_message(void **state)
{
	char env[160], why[300] = "";
	struct ag_open_args args = { .error = why, .error_len = sizeof(why) };
	struct ag_backend *b = NULL;

	snprintf(env, sizeof(env), "unix:%s/nobody", dir);
	setenv("ANYGPU_SERVER", env, 1);
	assert_int_equal(ops->open(0, &args, &b), cudaErrorDevicesUnavailable);
	assert_null(b);
	assert_non_null(strstr(why, env));
	snprintf(env, sizeof(env), "unix:%s", sock);
	setenv("ANYGPU_SERVER", env, 1);
}

/* Last: the server goes away under an open session. */
static void test_server_lost(void **state)
{
	struct ag_backend *b = open_remote();

	stop_server();
	assert_int_equal(ops->synchronize(b), cudaErrorDevicesUnavailable);
	assert_non_null(strstr(ops->last_message(b), sock));
	assert_int_equal(ops->memset(b, NULL, 0, 0, 1, 1), cudaErrorDevicesUnavailable);
	ops->close(b);
	b = NULL;
	assert_int_equal(ops->open(0, NULL, &b), cudaErrorDevicesUnavailable);
	assert_null(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_and_info),
		cmocka_unit_test(test_copies_roundtrip),
		cmocka_unit_test(test_streams_events_hostfn),
		cmocka_unit_test(test_hostile_pointers_and_deferred_errors),
		cmocka_unit_test(test_sessions_isolated),
		cmocka_unit_test(test_tcp_and_two_devices),
		cmocka_unit_test_teardown(test_tokens_and_quota, stop_extra),
		cmocka_unit_test_teardown(test_tls, stop_extra),
		cmocka_unit_test_teardown(test_compression, stop_extra),
		cmocka_unit_test(test_sync_copy_ordering),
		cmocka_unit_test(test_open_message),
		cmocka_unit_test(test_server_lost),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
