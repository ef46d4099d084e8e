/*
 * graph_user_objects: user objects and their references: the program's,
 * a graph's (retained, moved in, released), a clone's, a child graph
 * node's copy, and an executable graph's, which it keeps until its last
 * launch has completed.  Destructors run asynchronously, so the test
 * waits (up to 10 s) for them; that a destructor has not run is checked
 * after giving a wrong one 0.2 s.
 */
#include <atomic>
#include <chrono>
#include <thread>
#include "check.h"

static std::atomic<int> destroyed[3];
static std::atomic<int> release;

static void CUDART_CB destroy(void *p)
{
	destroyed[(int)(intptr_t)p].fetch_add(1);
}

/* Holds the stream until released (gives up after 10 s). */
static void CUDART_CB hold(void *)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (!release.load() && std::chrono::steady_clock::now() < end)
		;
}

/* Waits up to ms milliseconds for object k's destructor; its count. */
static int wait_destroyed(int k, int ms)
{
	for (int i = 0; i < ms && destroyed[k].load() == 0; i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	return destroyed[k].load();
}

static cudaUserObject_t make(int k, unsigned refs)
{
	cudaUserObject_t o;

	CK(cudaUserObjectCreate(&o, (void *)(intptr_t)k, destroy, refs,
				cudaUserObjectNoDestructorSync));
	return o;
}

/* The program's own references. */
static void caller_refs(void)
{
	cudaUserObject_t o = make(0, 1), bad;

	CK_EXPECT(cudaUserObjectCreate(&bad, NULL, destroy, 1, 0), cudaErrorInvalidValue);
	CK_EXPECT(cudaUserObjectCreate(&bad, NULL, destroy, 0, cudaUserObjectNoDestructorSync),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaUserObjectCreate(&bad, NULL, NULL, 1, cudaUserObjectNoDestructorSync),
		  cudaErrorInvalidValue);
	CK_EXPECT(cudaUserObjectRetain(o, 0), cudaErrorInvalidValue);
	CK(cudaUserObjectRetain(o, 2));
	CK(cudaUserObjectRelease(o, 2));
	check(wait_destroyed(0, 200) == 0, "destroyed with a reference left");
	CK(cudaUserObjectRelease(o, 1));
	check(wait_destroyed(0, 10000) == 1, "destructor ran %d times, want 1",
	      destroyed[0].load());
}

/* Graphs, a clone, a child node's copy and an executable graph. */
static void graph_refs(void)
{
	cudaGraph_t g, clone, parent;
	cudaGraphExec_t x;
	cudaGraphNode_t node;
	cudaStream_t s;
	cudaUserObject_t o = make(1, 1);

	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphAddEmptyNode(&node, g, NULL, 0));
	CK(cudaGraphRetainUserObject(g, o, 1, cudaGraphUserObjectMove));   /* ours, moved */
	CK(cudaGraphRetainUserObject(g, o, 2, 0));
	CK(cudaGraphReleaseUserObject(g, o, 2));
	CK_EXPECT(cudaGraphReleaseUserObject(g, o, 2), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphRetainUserObject(g, o, 1, 4), cudaErrorInvalidValue);
	CK_EXPECT(cudaGraphRetainUserObject(NULL, o, 1, 0), cudaErrorInvalidValue);

	CK(cudaGraphClone(&clone, g));
	CK(cudaGraphCreate(&parent, 0));
	CK(cudaGraphAddChildGraphNode(&node, parent, NULL, 0, g));
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphDestroy(g));
	CK(cudaGraphDestroy(clone));
	CK(cudaGraphDestroy(parent));
	check(wait_destroyed(1, 200) == 0, "destroyed while an executable graph holds it");

	/* The executable graph's last launch is held: its references stay
	 * after it is destroyed, until the launch completes. */
	CK(cudaLaunchHostFunc(s, hold, NULL));
	CK(cudaGraphLaunch(x, s));
	CK(cudaGraphExecDestroy(x));
	check(wait_destroyed(1, 200) == 0, "destroyed before the last launch completed");
	release.store(1);
	CK(cudaStreamSynchronize(s));
	check(wait_destroyed(1, 10000) == 1, "destructor after the launch ran %d times",
	      destroyed[1].load());

	/* An executable graph never launched gives its references back at once. */
	cudaUserObject_t o2 = make(2, 1);
	CK(cudaGraphCreate(&g, 0));
	CK(cudaGraphRetainUserObject(g, o2, 1, cudaGraphUserObjectMove));
	CK(cudaGraphInstantiate(&x, g, 0));
	CK(cudaGraphDestroy(g));
	CK(cudaGraphExecDestroy(x));
	check(wait_destroyed(2, 10000) == 1, "destructor of an unlaunched graph's object");
	CK(cudaStreamDestroy(s));
}

int main()
{
	caller_refs();
	graph_refs();
	return verdict("graph_user_objects");
}
