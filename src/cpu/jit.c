/*
 * jit.c - the compile cache: translated PTX, compiled by the host C
 * compiler, kept as <sha256>.so and loaded with dlopen.
 *
 * The key hashes the translated C text (not the PTX: a translator that
 * changes its output without a version bump must not hit stale entries;
 * translating costs milliseconds, compiling seconds) with everything else
 * that decides the machine code: translator version, kernel ABI, compiler
 * path and version line, compiler flags and the CPU model (-march=native).
 * A miss writes <key>.c,
 * compiles it to a temporary name and renames the result into place, so a
 * reader never sees half a file and two processes compiling the same module
 * both succeed.  The .c file stays next to the .so for inspection.
 *
 * Translating still costs a cached load milliseconds (the suite's scan 5,
 * its tiled SGEMM 9) and asking the compiler its version one more, at every
 * start of a program.  So a load also leaves an index entry, <idx>.idx,
 * holding the key, where idx hashes the PTX text with what else decides the
 * C and the compiler without running either: the file that holds this
 * translator (path, inode, size, modification time: any rebuild of anygpu
 * changes it), ANYGPU_CPU_GROUPS, the compiler's path and the file it
 * resolves to, and the CPU model.  A load whose index entry names a key
 * whose .so opens translates nothing; any doubt (no entry, a damaged one,
 * a file that cannot be identified) takes the long way, which rewrites the
 * entry.
 */
#define _GNU_SOURCE	/* pipe2 */
#include "cpu/jit.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu/host.h"
#include "cpu/translate.h"
#include "util/hex.h"

extern char **environ;

/* Generated code never reads errno nor enables floating-point traps:
 * without them sqrtf is an instruction, and conditional float arithmetic
 * may be computed unconditionally, so that loops over threads can run as
 * vector code.  Results are the same (no -ffast-math). */
static const char *const cc_flags[] = {
	"-O3", "-fPIC", "-shared", "-ffp-contract=off", "-fno-strict-aliasing",
	"-fwrapv", "-fno-math-errno", "-fno-trapping-math", "-march=native",
};

/* GCC only: the fast path's thread loops carry range tests that are the
 * same for every thread (affine.c); GCC takes them out of the loop only
 * for loop bodies below this many instructions (50 by default). */
static const char *const gcc_flags[] = {
	"--param=max-unswitch-insns=1000",
};

/* Lines of compiler output quoted in an error message. */
#define ERR_LINES 20

static const char *compiler(void)
{
	const char *cc = getenv("ANYGPU_CC");
	return cc && *cc ? cc : "cc";
}

/* Runs argv (searched in PATH) with stdout and stderr into out.  Returns
 * the exit status, or -1 with errno when it could not be started. */
static int run_capture(char *const argv[], struct strbuf *out)
{
	int fd[2], status;
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char buf[4096];
	ssize_t n;

	if (pipe2(fd, O_CLOEXEC) != 0)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	if (rc != 0) {
		close(fd[0]);
		errno = rc;
		return -1;
	}
	while ((n = read(fd[0], buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && out->len < (1u << 16))
			sb_add(out, buf, (size_t)n);
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first line of "cc --version", remembered per compiler path. */
static void compiler_identity(const char *cc, struct strbuf *out)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static char *path, *line;

	pthread_mutex_lock(&lock);
	if (!path || strcmp(path, cc) != 0) {
		struct strbuf sb = STRBUF_INIT;
		char *argv[] = { (char *)cc, "--version", NULL };
		run_capture(argv, &sb);
		free(path);
		free(line);
		path = xstrdup(cc);
		line = xstrdup(sb.buf ? sb.buf : "");
		line[strcspn(line, "\n")] = '\0';
		sb_free(&sb);
	}
	sb_adds(out, line);
	pthread_mutex_unlock(&lock);
}

/* SHA-256 in hex of the n fields, each with its NUL, then of len bytes of
 * text: the cache's key and its index's names. */
static void digest(const char *const *fields, size_t n, const char *text, size_t len,
		   char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen = 0;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	for (size_t i = 0; i < n; i++)
		EVP_DigestUpdate(ctx, fields[i], strlen(fields[i]) + 1);
	EVP_DigestUpdate(ctx, text, len);
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	ag_hex_encode(hex, md, 32);
}

/* The compiler one load uses, found once: its path, its --version line
 * and its flags (gcc_flags unless it is clang). */
enum { NFLAGS = sizeof(cc_flags) / sizeof(cc_flags[0]) + sizeof(gcc_flags) / sizeof(gcc_flags[0]) };

struct cc {
	const char *path;
	struct strbuf ident;
	const char *flags[NFLAGS];
	size_t nflags;
};

static void cc_init(struct cc *c)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->path = compiler();
	compiler_identity(c->path, &c->ident);
	for (i = 0; i < sizeof(cc_flags) / sizeof(cc_flags[0]); i++)
		c->flags[c->nflags++] = cc_flags[i];
	if (!strstr(c->ident.buf ? c->ident.buf : "", "clang"))
		for (i = 0; i < sizeof(gcc_flags) / sizeof(gcc_flags[0]); i++)
			c->flags[c->nflags++] = gcc_flags[i];
}

/* Which file path is, as "path dev inode size mtime": -1 when it cannot
 * be told. */
static int file_identity(const char *path, struct strbuf *out)
{
	struct stat st;

	if (!path || stat(path, &st) != 0)
		return -1;
	sb_addf(out, "%s %llu %llu %lld %lld.%09ld\n", path, (unsigned long long)st.st_dev,
		(unsigned long long)st.st_ino, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		st.st_mtim.tv_nsec);
	return 0;
}

/* The file that holds this code, as file_identity says: the mapping of
 * /proc/self/maps that holds ag_jit_load names it by its absolute path,
 * and stat must still find there the inode that was mapped (a file since
 * replaced says nothing of the code running). */
static int self_identity(struct strbuf *out)
{
	const uintptr_t at = (uintptr_t)ag_jit_load;
	FILE *f = fopen("/proc/self/maps", "re");
	char line[4096], path[4096];
	unsigned long long lo, hi, ino;
	struct stat st;
	int rc = -1;

	while (f && rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %*s %*s %*s %llu %4095s", &lo, &hi, &ino, path) == 4 &&
		    at >= lo && at < hi)
			rc = path[0] == '/' && stat(path, &st) == 0 && st.st_ino == ino ?
				file_identity(path, out) : -2;
	if (f)
		fclose(f);
	return rc ? -1 : 0;
}

/* What decides a module's machine code, besides its C and the compiler,
 * for the life of the process: the CPU model (it is built with
 * -march=native) and the file that holds this translator (NULL when it
 * cannot be told).  Found once, not at every load. */
struct process_facts {
	char cpu[256];
	const char *self;
};

static struct process_facts facts;

static void find_facts(void)
{
	struct strbuf self = STRBUF_INIT;

	ag_host_cpuinfo("model name", facts.cpu, sizeof(facts.cpu));
	if (self_identity(&self) == 0)
		facts.self = sb_detach(&self);
	sb_free(&self);
}

static const struct process_facts *process_facts(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, find_facts);
	return &facts;
}

static void cache_key(const struct cc *cc, const char *csrc, size_t len, char key[65])
{
	const char *fields[NFLAGS + 6];
	char abi[16];
	size_t n = 0;

	snprintf(abi, sizeof(abi), "%u", AG_KERNEL_ABI);
	fields[n++] = "anygpu-jit";
	fields[n++] = AG_TRANSLATOR_VERSION;
	fields[n++] = abi;
	fields[n++] = cc->path;
	fields[n++] = cc->ident.buf ? cc->ident.buf : "";
	for (size_t i = 0; i < cc->nflags; i++)
		fields[n++] = cc->flags[i];
	fields[n++] = process_facts()->cpu;
	digest(fields, n, csrc, len, key);
}

/* mkdir -p, new directories 0700. */
static int make_dirs(char *path)
{
	for (char *p = path + 1; ; p++) {
		if (*p && *p != '/')
			continue;
		char c = *p;
		*p = '\0';
		int rc = mkdir(path, 0700);
		*p = c;
		if (rc != 0 && errno != EEXIST)
			return -1;
		if (!c)
			return 0;
	}
}

int ag_jit_cache_dir(struct strbuf *dir, struct strbuf *err)
{
	const char *env = getenv("ANYGPU_CACHE_DIR");
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");

	if (env && *env)
		sb_adds(dir, env);
	else if (xdg && *xdg)
		sb_addf(dir, "%s/anygpu", xdg);
	else if (home && *home)
		sb_addf(dir, "%s/.cache/anygpu", home);
	else {
		sb_adds(err, "no cache directory: set ANYGPU_CACHE_DIR or HOME");
		return -1;
	}
	if (make_dirs(dir->buf) != 0) {
		sb_addf(err, "cannot create cache directory %s: %s", dir->buf, strerror(errno));
		return -1;
	}
	return 0;
}

/* A name no other thread or process will use for a temporary file. */
static void temp_name(struct strbuf *out, const char *path)
{
	static atomic_uint counter;
	sb_addf(out, "%s.tmp.%ld.%u", path, (long)getpid(), atomic_fetch_add(&counter, 1));
}

/* Writes data to path atomically (temporary file, then rename). */
static int write_file(const char *path, const char *data, size_t len, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int ok = 0;

	temp_name(&tmp, path);
	int fd = open(tmp.buf, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		size_t done = 0;
		while (done < len) {
			ssize_t n = write(fd, data + done, len - done);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			done += (size_t)n;
		}
		ok = close(fd) == 0 && done == len && rename(tmp.buf, path) == 0;
	}
	if (!ok) {
		sb_addf(err, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp.buf);
	}
	sb_free(&tmp);
	return ok ? 0 : -1;
}

/* The first ERR_LINES lines of text. */
static void add_head(struct strbuf *err, const char *text)
{
	const char *p = text;
	for (int i = 0; i < ERR_LINES && *p; i++) {
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	sb_add(err, text, (size_t)(p - text));
}

static int compile(const struct cc *cc, const char *cfile, const char *sofile,
		   struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT, out = STRBUF_INIT;
	char *argv[NFLAGS + 6];
	size_t i;
	int n = 0, rc;

	temp_name(&tmp, sofile);
	argv[n++] = (char *)cc->path;
	for (i = 0; i < cc->nflags; i++)
		argv[n++] = (char *)cc->flags[i];
	argv[n++] = "-o";
	argv[n++] = tmp.buf;
	argv[n++] = (char *)cfile;
	argv[n++] = "-lm";
	argv[n] = NULL;
	rc = run_capture(argv, &out);
	if (rc < 0)
		sb_addf(err, "cannot run the C compiler '%s': %s (set ANYGPU_CC)",
			cc->path, strerror(errno));
	else if (rc != 0) {
		sb_addf(err, "the C compiler '%s' failed (exit %d) on %s:\n", cc->path, rc, cfile);
		add_head(err, out.buf ? out.buf : "");
	} else if (rename(tmp.buf, sofile) != 0) {
		sb_addf(err, "cannot rename %s to %s: %s", tmp.buf, sofile, strerror(errno));
		rc = -1;
	}
	if (rc != 0)
		unlink(tmp.buf);
	sb_free(&out);
	sb_free(&tmp);
	return rc == 0 ? 0 : -1;
}

/* ANYGPU_CPU_GROUPS: auto (or unset), all or off (translate.h). */
static int groups_setting(enum ag_groups *g, struct strbuf *err)
{
	const char *v = getenv("ANYGPU_CPU_GROUPS");

	if (!v || !*v || !strcmp(v, "auto"))
		*g = AG_GROUPS_AUTO;
	else if (!strcmp(v, "all"))
		*g = AG_GROUPS_ALL;
	else if (!strcmp(v, "off"))
		*g = AG_GROUPS_OFF;
	else {
		sb_addf(err, "ANYGPU_CPU_GROUPS is '%s'; it must be auto, all or off", v);
		return -1;
	}
	return 0;
}

static int translate(const struct ptx_module *m, enum ag_groups groups, struct strbuf *c,
		     struct strbuf *err)
{
	struct ptx_error perr = { 0 };

	if (ag_translate(m, groups, c, &perr) == 0)
		return 0;
	if (perr.line)
		sb_addf(err, "PTX line %d: %s", perr.line, perr.msg);
	else
		sb_addf(err, "PTX: %s", perr.msg);
	return -1;
}

/* Writes <key>.c and compiles it into sofile. */
static int build(const struct cc *cc, const struct strbuf *c, const char *dir,
		 const char *key, const char *sofile, struct strbuf *err)
{
	struct strbuf cfile = STRBUF_INIT;
	int rc = -1;

	sb_addf(&cfile, "%s/%s.c", dir, key);
	if (write_file(cfile.buf, c->buf ? c->buf : "", c->len, err) == 0)
		rc = compile(cc, cfile.buf, sofile, err);
	sb_free(&cfile);
	return rc;
}

static int open_so(const char *sofile, struct ag_jit_module *out, struct strbuf *err)
{
	void *dl = dlopen(sofile, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		sb_addf(err, "dlopen: %s", dlerror());
		return -1;
	}
	const unsigned *abi = dlsym(dl, "ag_module_abi");
	const struct ag_kernel_desc *kernels = dlsym(dl, "ag_module_kernels");
	const struct ag_var_desc *vars = dlsym(dl, "ag_module_vars");
	if (!abi || *abi != AG_KERNEL_ABI || !kernels || !vars) {
		sb_addf(err, "%s: not a module of kernel ABI %u (ag_module_abi %s)", sofile,
			AG_KERNEL_ABI, abi ? "differs" : "missing");
		dlclose(dl);
		return -1;
	}
	out->dl = dl;
	out->kernels = kernels;
	out->vars = vars;
	return 0;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The file cmd runs, searched in PATH as posix_spawnp does. */
static int command_identity(const char *cmd, struct strbuf *out)
{
	const char *path = getenv("PATH"), *p, *end;
	int rc = -1;

	if (strchr(cmd, '/'))
		return file_identity(cmd, out);
	for (p = path ? path : "/usr/bin:/bin"; rc != 0; p = end + 1) {
		struct strbuf full = STRBUF_INIT;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		sb_addf(&full, "%.*s/%s", (int)(end - p), end > p ? p : ".", cmd);
		if (access(full.buf, X_OK) == 0)
			rc = file_identity(full.buf, out);
		sb_free(&full);
		if (!*end)
			break;
	}
	return rc;
}

/* The index entry of the PTX text (the header comment says what else it
 * hashes): "<dir>/<idx>.idx", or -1 when something cannot be identified. */
static int index_path(const char *dir, const char *ptx, size_t len, enum ag_groups groups,
		      struct strbuf *out)
{
	const struct process_facts *f = process_facts();
	struct strbuf cc = STRBUF_INIT;
	char num[32], hex[65];
	int rc = -1;

	if (f->self && command_identity(compiler(), &cc) == 0) {
		const char *fields[] = { "anygpu-jit-index", AG_TRANSLATOR_VERSION, num, f->self,
					 cc.buf, compiler(), f->cpu };

		snprintf(num, sizeof(num), "%u %d", AG_KERNEL_ABI, (int)groups);
		digest(fields, sizeof(fields) / sizeof(fields[0]), ptx, len, hex);
		sb_addf(out, "%s/%s.idx", dir, hex);
		rc = 0;
	}
	sb_free(&cc);
	return rc;
}

/* Opens the .so that the index entry names: 0, or -1 when there is none. */
static int load_indexed(const char *dir, const char *index, struct ag_jit_module *out)
{
	struct strbuf sofile = STRBUF_INIT, ignored = STRBUF_INIT;
	char key[66];
	ssize_t n = -1;
	int fd = open(index, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd >= 0) {
		n = read(fd, key, sizeof(key));
		close(fd);
	}
	if (n == 65 && key[64] == '\n' && strspn(key, "0123456789abcdef") == 64) {
		key[64] = '\0';
		sb_addf(&sofile, "%s/%s.so", dir, key);
		if (open_so(sofile.buf, out, &ignored) == 0) {
			memcpy(out->key, key, sizeof(out->key));
			rc = 0;
		}
	}
	sb_free(&sofile);
	sb_free(&ignored);
	return rc;
}

/* Translates m and opens its .so, compiling it on a miss. */
static int load_translated(const struct ptx_module *m, enum ag_groups groups, const char *dir,
			   struct ag_jit_module *out, struct strbuf *err)
{
	struct strbuf sofile = STRBUF_INIT, ignored = STRBUF_INIT, c = STRBUF_INIT;
	struct cc cc = { .ident = STRBUF_INIT };
	int rc = -1;

	if (translate(m, groups, &c, err) != 0)
		goto out;
	cc_init(&cc);
	cache_key(&cc, c.buf ? c.buf : "", c.len, out->key);
	sb_addf(&sofile, "%s/%s.so", dir, out->key);
	/* A damaged cache entry is rebuilt, not reported. */
	if (access(sofile.buf, R_OK) == 0 && open_so(sofile.buf, out, &ignored) == 0) {
		rc = 0;
		goto out;
	}
	double t0 = now_ms();
	if (build(&cc, &c, dir, out->key, sofile.buf, err) != 0)
		goto out;
	out->compile_ms = now_ms() - t0;
	rc = open_so(sofile.buf, out, err);
out:
	sb_free(&cc.ident);
	sb_free(&c);
	sb_free(&ignored);
	sb_free(&sofile);
	return rc;
}

int ag_jit_load(const char *ptx, size_t len, const struct ptx_module *m,
		struct ag_jit_module *out, struct strbuf *err)
{
	struct strbuf dir = STRBUF_INIT, index = STRBUF_INIT, ignored = STRBUF_INIT;
	enum ag_groups groups;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (ag_jit_cache_dir(&dir, err) != 0 || groups_setting(&groups, err) != 0)
		goto out;
	if (index_path(dir.buf, ptx, len, groups, &index) == 0 &&
	    load_indexed(dir.buf, index.buf, out) == 0) {
		out->indexed = 1;
		rc = 0;
		goto out;
	}
	rc = load_translated(m, groups, dir.buf, out, err);
	if (rc == 0 && index.len) {
		char line[66];

		snprintf(line, sizeof(line), "%s\n", out->key);
		write_file(index.buf, line, 65, &ignored);
	}
out:
	sb_free(&ignored);
	sb_free(&index);
	sb_free(&dir);
	return rc;
}

void ag_jit_unload(struct ag_jit_module *jm)
{
	if (jm->dl)
		dlclose(jm->dl);
	memset(jm, 0, sizeof(*jm));
}
