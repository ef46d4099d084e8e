/*
 * spin.h - waits that poll a little before they sleep.  The cpu backend's
 * threads wait for one another at every launch: the stream's thread for
 * the host's next command, the pool's workers for the next launch, the
 * launching thread for its workers, the host for the stream.  Woken
 * through a futex, a sleeping thread runs again 10 to 20 us later on a
 * virtual machine, where most of these waits end within a few: a
 * synchronous launch of a small grid took 56 us, three quarters of it
 * wake-ups.  So a waiter first polls its condition for up to AG_SPIN_NS,
 * giving its core to any thread ready to run there at each turn (as
 * CUDA's cudaDeviceScheduleYield does), and only then sleeps.
 */
#ifndef AG_CPU_SPIN_H
#define AG_CPU_SPIN_H

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#define AG_SPIN_NS 50000

static inline uint64_t ag_spin_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether ready(arg) came true within AG_SPIN_NS. */
static inline int ag_spin(int (*ready)(const void *), const void *arg)
{
	const uint64_t end = ag_spin_clock() + AG_SPIN_NS;

	for (;;) {
		if (ready(arg))
			return 1;
		if (ag_spin_clock() >= end)
			return 0;
		sched_yield();
	}
}

/* With lock held: unless ready(arg) comes true while it polls without the
 * lock, sleeps on cv.  Like pthread_cond_wait, it may return before the
 * caller's own condition holds; ready must hold once whoever signals cv
 * has made its change (under lock, before the signal). */
static inline void ag_spin_wait(pthread_mutex_t *lock, pthread_cond_t *cv,
				int (*ready)(const void *), const void *arg)
{
	pthread_mutex_unlock(lock);
	int soon = ag_spin(ready, arg);
	pthread_mutex_lock(lock);
	if (!soon && !ready(arg))
		pthread_cond_wait(cv, lock);
}

#endif
