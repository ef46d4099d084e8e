/*
 * test_faults.c - what clients do wrong must not hurt the daemon: a client
 * killed in the middle of a large copy, corrupted and hostile frames, a
 * kernel that faults, a client gone while its kernel never ends, 32
 * clients at once.  After each, the daemon serves a
 * new session, and its log shows the old session ended with its memory
 * freed.
 */
#include "backend.h"
#include "protocol/conn.h"
#include "server/server.h"
#include "harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/ag-test-faults-XXXXXX";
static char sock[100], addr[110], logpath[100];
static pid_t server;
static const struct ag_backend_ops *ops;

/* How many lines of the server's log contain text. */
static int log_count(const char *text)
{
	FILE *f = fopen(logpath, "r");
	char line[1024];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		n += strstr(line, text) != NULL;
	fclose(f);
	return n;
}

/* Waits up to 20 s for at least n lines containing text. */
static int wait_log(const char *text, int n)
{
	char cmd[200];

	for (int i = 0; i < 2000; i++) {
		if (log_count(text) >= n)
			return 1;
		usleep(10000);
	}
	fprintf(stderr, "log never had %d lines with '%s'; the log:\n", n, text);
	snprintf(cmd, sizeof(cmd), "cat %s >&2", logpath);
	if (system(cmd))
		fprintf(stderr, "(no log)\n");
	return 0;
}

static int setup(void **state)
{
	struct ag_serve_cfg cfg = { .unix_path = sock, .backend = "cpu", .state_dir = dir };

	if (!mkdtemp(dir))
		return -1;
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(addr, sizeof(addr), "unix:%s", sock);
	snprintf(logpath, sizeof(logpath), "%s/serve.log", dir);
	setenv("ANYGPU_SERVER", addr, 1);
	ops = ag_backend_find("remote");
	server = test_serve(&cfg, logpath);
	return server > 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[200];
	int rc = test_serve_stop(server);

	/* The daemon's log, for when a test failed (ctest shows it then). */
	snprintf(cmd, sizeof(cmd), "cat %s >&2; rm -rf %s", logpath, dir);
	return system(cmd) || rc;
}

/* A new session works end to end. */
static void assert_serves(void)
{
	struct ag_backend *b = NULL;
	int v = 1234, out = 0;
	ag_dptr d;

	assert_int_equal(ops->open(0, NULL, &b), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, sizeof(v), AG_MEM_DEVICE, &d), cudaSuccess);
	assert_int_equal(ops->copy_htod(b, NULL, d, &v, sizeof(v), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(ops->copy_dtoh(b, NULL, &out, d, sizeof(out), AG_HOST_PAGEABLE, 0),
			 cudaSuccess);
	assert_int_equal(out, v);
	assert_int_equal(ops->mem_free(b, d), cudaSuccess);
	ops->close(b);
}

static void test_client_killed_mid_copy(void **state)
{
	const uint64_t n = 96u << 20;
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	if (pid == 0) {
		struct ag_backend *b = NULL;
		char *buf = calloc(1, n);
		ag_dptr d;

		if (ops->open(0, NULL, &b) || ops->mem_alloc(b, n, AG_MEM_DEVICE, &d))
			_exit(1);
		c = 1;
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			ops->copy_htod(b, NULL, d, buf, n, AG_HOST_PAGEABLE, 0);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	usleep(200000);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_true(wait_log("freed 1 allocation (100663296 bytes)", 1));
	assert_serves();
}

/* Opens a raw session: connect and a valid HELLO. */
static int raw_session(void)
{
	uint8_t hello[4 + 4 + 4 + 4];
	uint32_t v[4] = { AG_PROTO_MAGIC, AG_PROTO_VERSION, 0, 0 };
	struct ag_conn c;
	struct ag_frame_hdr h;
	uint8_t *payload;
	char err[128];
	int fd = ag_net_connect(addr, err, sizeof(err));

	assert_true(fd >= 0);
	memcpy(hello, v, sizeof(hello));
	ag_conn_init(&c, fd);
	assert_int_equal(ag_conn_send(&c, AG_OP_HELLO, 0, 1, hello, sizeof(hello), NULL, 0,
				      err, sizeof(err)), 0);
	assert_int_equal(ag_conn_recv(&c, &h, &payload, err, sizeof(err)), 0);
	assert_int_equal(h.op, AG_OP_REPLY);
	free(payload);
	pthread_mutex_destroy(&c.send_lock);
	return fd;
}

/* The server's answer to a HELLO payload of len bytes (0), or -1 when
 * there is none. */
static int hello_reply(const void *hello, size_t len, struct ag_hello_reply *r)
{
	struct ag_conn c;
	struct ag_frame_hdr h;
	uint8_t *payload = NULL;
	char err[128];
	int rc;

	ag_conn_init(&c, ag_net_connect(addr, err, sizeof(err)));
	assert_true(c.fd >= 0);
	rc = ag_conn_send(&c, AG_OP_HELLO, 0, 1, hello, len, NULL, 0, err, sizeof(err)) ||
	     ag_conn_recv(&c, &h, &payload, err, sizeof(err)) || h.op != AG_OP_REPLY ||
	     ag_hello_reply_decode(payload, h.len, r) ? -1 : 0;
	free(payload);
	ag_conn_close(&c);
	return rc;
}

/* Sends raw bytes after HELLO and expects the server to end the session
 * with a log line containing why. */
static void send_garbage(const void *bytes, size_t n, const char *why)
{
	int fd = raw_session(), before = log_count(why);
	char buf[256];

	assert_int_equal(write(fd, bytes, n), (ssize_t)n);
	/* The server closes its end: read returns 0 (or a reset). */
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	assert_true(wait_log(why, before + 1));
}

static void test_corrupted_frames(void **state)
{
	struct ag_frame_hdr h = { .len = 0, .op = 9999, .id = 5 };
	uint8_t f[AG_PROTO_HDR + 64] = { 0 };

	ag_hdr_encode(&h, f);
	send_garbage(f, AG_PROTO_HDR, "unknown operation 9999");

	h = (struct ag_frame_hdr){ .len = 0xffffffffu, .op = AG_OP_MEM_ALLOC };
	ag_hdr_encode(&h, f);
	send_garbage(f, AG_PROTO_HDR, "exceeds");

	/* A MEM_ALLOC whose payload is 3 bytes short. */
	h = (struct ag_frame_hdr){ .len = 9, .op = AG_OP_MEM_ALLOC, .id = 2 };
	ag_hdr_encode(&h, f);
	send_garbage(f, AG_PROTO_HDR + 9, "malformed mem_alloc frame");

	/* A reply is not a request. */
	h = (struct ag_frame_hdr){ .len = 0, .op = AG_OP_REPLY, .id = 2 };
	ag_hdr_encode(&h, f);
	send_garbage(f, AG_PROTO_HDR, "unexpected reply frame");

	/* A compressed chunk in a session that did not ask for compression. */
	h = (struct ag_frame_hdr){ .len = 24, .op = AG_OP_COPY_HTOD_Z, .id = 3 };
	ag_hdr_encode(&h, f);
	send_garbage(f, AG_PROTO_HDR + 24, "compressed copy in a session without compression");

	/* A client of another version is told so. */
	{
		uint32_t v1[3] = { AG_PROTO_MAGIC, 1, 0 };
		struct ag_hello_reply r;
		char want[64];

		snprintf(want, sizeof(want), "protocol version 1, this server speaks %u",
			 AG_PROTO_VERSION);
		assert_int_equal(hello_reply(v1, sizeof(v1), &r), 0);
		assert_int_equal(r.error, cudaErrorInsufficientDriver);
		assert_string_equal(r.message, want);
		assert_int_equal(r.version, AG_PROTO_VERSION);
		assert_true(wait_log("refused: protocol version 1", 1));
	}

	/* Not even a HELLO. */
	{
		char err[128];
		int fd = ag_net_connect(addr, err, sizeof(err)), before;

		before = log_count("no hello: frame of");
		assert_int_equal(write(fd, "GET / HTTP/1.0\r\n\r\n", 18), 18);
		while (read(fd, err, sizeof(err)) > 0)
			;
		close(fd);
		assert_true(wait_log("no hello: frame of", before + 1));
	}
	assert_serves();
}

static void test_32_clients(void **state)
{
	pid_t pids[32];
	int ends = log_count(" end: "), status;

	for (int i = 0; i < 32; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct ag_backend *b = NULL;
			int v[4096], out[4096];
			ag_dptr d;

			for (int k = 0; k < 4096; k++)
				v[k] = i * 100000 + k;
			if (ops->open(0, NULL, &b) ||
			    ops->mem_alloc(b, sizeof(v), AG_MEM_DEVICE, &d) ||
			    ops->copy_htod(b, NULL, d, v, sizeof(v), AG_HOST_PAGEABLE, 0) ||
			    ops->copy_dtoh(b, NULL, out, d, sizeof(out), AG_HOST_PAGEABLE, 0) ||
			    memcmp(v, out, sizeof(v)))
				_exit(1);
			ops->close(b);
			_exit(0);
		}
	}
	for (int i = 0; i < 32; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_true(wait_log(" end: ", ends + 32));
	assert_serves();
}

/* Opens a session with 64 bytes of device memory at *p; a float texture
 * over 16 of them is then valid. */
static struct ag_backend *texture_session(ag_dptr *p, struct ag_tex_desc *d)
{
	struct ag_backend *b = NULL;

	assert_int_equal(ops->open(0, NULL, &b), cudaSuccess);
	assert_int_equal(ops->mem_alloc(b, 64, AG_MEM_DEVICE, p), cudaSuccess);
	*d = (struct ag_tex_desc){ .kind = AG_TEX_TEXTURE, .res = AG_RES_LINEAR, .base = *p,
				   .width = 16, .pitch = 64, .dims = 1, .channels = 1,
				   .bits = 32, .format = cudaChannelFormatKindFloat };
	return b;
}

/* The remote backend forwards texture descriptors and handles as given
 * (the runtime checks them first); the server ends a session that sends
 * a bad descriptor, one over memory it does not own, or a handle it did
 * not create, and goes on serving. */
static void test_hostile_textures(void **state)
{
	static const char *const why[] = {
		"tex_create: bad channel format", "outside this session's memory",
		"not an object of this session",
	};
	struct ag_tex_desc d;
	struct ag_backend *b;
	uint64_t h;
	ag_dptr p;
	int before;

	b = texture_session(&p, &d);
	assert_int_equal(ops->tex_create(b, &d, &h), cudaSuccess);
	assert_int_equal(ops->tex_destroy(b, h), cudaSuccess);
	ops->close(b);
	for (int i = 0; i < 3; i++) {
		before = log_count(why[i]);
		b = texture_session(&p, &d);
		d.channels = i == 0 ? 3 : 1;
		d.base = i == 1 ? p + 16 : p;
		if (i == 2)
			assert_int_not_equal(ops->tex_destroy(b, 0x1000), cudaSuccess);
		else
			assert_int_not_equal(ops->tex_create(b, &d, &h), cudaSuccess);
		ops->close(b);
		assert_true(wait_log(why[i], before + 1));
	}
	assert_serves();
}

/* The fatbin of fault_kernel.cu; skips the test when nvcc was not there
 * to build it. */
static const char *fault_fatbin(void)
{
	const char *path = getenv("AG_FAULT_FATBIN");

	if (!path) {
		print_message("AG_FAULT_FATBIN not set (no nvcc): skipped\n");
		skip();
	}
	return path;
}

/* The fault kernels' module in a new session. */
static struct ag_module *load_fault_kernels(const char *path, struct ag_backend **b)
{
	struct ag_module *m = NULL;
	cudaError_t e;
	FILE *fp;
	long size;
	void *image;

	fp = fopen(path, "rb");
	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	size = ftell(fp);
	rewind(fp);
	image = malloc(size);
	assert_int_equal(fread(image, 1, size, fp), (size_t)size);
	fclose(fp);
	assert_int_equal(ops->open(0, NULL, b), cudaSuccess);
	e = ops->module_load(*b, image, size, &m);
	if (e != cudaSuccess)
		print_message("module_load: %s\n", ops->last_message(*b));
	assert_int_equal(e, cudaSuccess);
	free(image);
	return m;
}

static void test_kernel_fault(void **state)
{
	struct ag_backend *b = NULL;
	struct ag_module *m = load_fault_kernels(fault_fatbin(), &b);
	struct ag_func *f;
	const struct ag_func_info *fi;
	struct ag_launch_cfg cfg = { { 1, 1, 1 }, { 32, 1, 1 }, 0, 0 };
	uint64_t wild = 0x10;
	int ends = log_count(" end: ");
	cudaError_t e;

	assert_int_equal(ops->module_func(b, m, "wild_write", &f, &fi), cudaSuccess);
	assert_int_equal(fi->param_bytes, 8);
	assert_int_equal(ops->launch(b, NULL, f, &cfg, &wild, sizeof(wild)), cudaSuccess);
	e = ops->synchronize(b);
	print_message("the faulting kernel: error %d: %s\n", (int)e, ops->last_message(b));
	assert_true(e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure ||
		    e == cudaErrorDevicesUnavailable);
	ops->close(b);
	assert_true(wait_log(" end: ", ends + 1));
	assert_serves();
}

/* A client dies while its kernel never ends: the worker gives up on the
 * device some seconds later and ends, saying why, freeing what it held. */
static void test_client_gone_kernel_hangs(void **state)
{
	struct ag_launch_cfg cfg = { { 1, 1, 1 }, { 32, 1, 1 }, 0, 0 };
	int busy = log_count("device was still busy");
	const char *path = fault_fatbin();
	pid_t pid;
	int status;

	pid = fork();
	if (pid == 0) {
		struct ag_backend *b = NULL;
		struct ag_module *m = load_fault_kernels(path, &b);
		struct ag_func *f;
		const struct ag_func_info *fi;
		ag_dptr flag;
		int zero = 0;

		if (ops->module_func(b, m, "spin", &f, &fi) ||
		    ops->mem_alloc(b, sizeof(zero), AG_MEM_DEVICE, &flag) ||
		    ops->copy_htod(b, NULL, flag, &zero, sizeof(zero), AG_HOST_PAGEABLE, 0) ||
		    ops->launch(b, NULL, f, &cfg, &flag, sizeof(flag)) ||
		    ops->stream_query(b, NULL) != cudaErrorNotReady)
			_exit(1);
		_exit(0);       /* the connection dies with the process */
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_true(wait_log("device was still busy", busy + 1));
	assert_serves();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_killed_mid_copy),
		cmocka_unit_test(test_corrupted_frames),
		cmocka_unit_test(test_32_clients),
		cmocka_unit_test(test_kernel_fault),
		cmocka_unit_test(test_client_gone_kernel_hangs),
		cmocka_unit_test(test_hostile_textures),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
