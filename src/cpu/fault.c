/*
 * fault.c - catching memory faults of kernel code on executor threads.
 *
 * A process-wide SIGSEGV/SIGBUS handler runs on a per-thread alternate
 * stack; each launch checks that it is still installed (a program or a test
 * harness may have put its own in meanwhile) and puts it back if not.  When the faulting thread is inside
 * ag_fault_run() it jumps back there (siglongjmp), and the block ends with
 * the fault recorded; anywhere else the fault is handed to whatever handler
 * was installed before, or to the default action (the process dies as it
 * would have without anygpu).  SA_NODEFER keeps the signal unblocked after
 * the jump, so no signal mask has to be saved per block.
 */
#include "cpu/fault.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"

static struct sigaction old_segv, old_bus;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t altstack_key;

static __thread sigjmp_buf *cur_jmp;
static __thread struct ag_fault *cur_fault;

static void chain(int sig, siginfo_t *info, void *uc)
{
	struct sigaction *old = sig == SIGBUS ? &old_bus : &old_segv;
	if (old->sa_flags & SA_SIGINFO) {
		old->sa_sigaction(sig, info, uc);
	} else if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) {
		/* Returning re-runs the faulting instruction, which now gets
		 * the default action. */
		sigaction(sig, old, NULL);
	} else {
		old->sa_handler(sig);
	}
}

static void on_fault(int sig, siginfo_t *info, void *uc)
{
	sigjmp_buf *jb = cur_jmp;
	if (!jb) {
		chain(sig, info, uc);
		return;
	}
	cur_jmp = NULL;
	cur_fault->sig = sig;
	cur_fault->addr = info->si_addr;
	siglongjmp(*jb, 1);
}

static void free_altstack(void *mem)
{
	stack_t off = { .ss_flags = SS_DISABLE };
	sigaltstack(&off, NULL);
	free(mem);
}

static void make_key(void)
{
	pthread_key_create(&altstack_key, free_altstack);
}

/* Installs the handler for sig unless it is there already, keeping the
 * one it replaces for chain(). */
static void install(int sig, struct sigaction *old)
{
	struct sigaction sa, cur;

	if (sigaction(sig, NULL, &cur) == 0 && (cur.sa_flags & SA_SIGINFO) &&
	    cur.sa_sigaction == on_fault)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, old);
}

void ag_fault_arm(void)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&lock);
	install(SIGSEGV, &old_segv);
	install(SIGBUS, &old_bus);
	pthread_mutex_unlock(&lock);
}

static void thread_init(void)
{
	enum { ALT_SIZE = 64 << 10 };

	pthread_once(&key_once, make_key);
	stack_t ss;
	if (pthread_getspecific(altstack_key))
		return;
	/* A thread that has one already (sanitizers give them) keeps it. */
	if (sigaltstack(NULL, &ss) == 0 && !(ss.ss_flags & SS_DISABLE))
		return;
	ss = (stack_t){ .ss_sp = xmalloc(ALT_SIZE), .ss_size = ALT_SIZE };
	if (sigaltstack(&ss, NULL) != 0) {
		free(ss.ss_sp);
		return;
	}
	pthread_setspecific(altstack_key, ss.ss_sp);
}

void ag_fault_run(ag_kernel_fn fn, struct ag_block *b, struct ag_fault *f)
{
	sigjmp_buf jb;

	thread_init();
	f->sig = 0;
	f->addr = NULL;
	cur_fault = f;
	if (sigsetjmp(jb, 0) == 0) {
		cur_jmp = &jb;
		fn(b);
	}
	cur_jmp = NULL;
}
