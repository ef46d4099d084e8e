/*
 * arena.h - the one owner of a parsed module's memory, and growable arrays
 * that live in it.  Everything the parser builds is carved from an arena, so
 * an error anywhere frees all of it with one call and nothing else to undo.
 */
#ifndef AG_PTX_ARENA_H
#define AG_PTX_ARENA_H

#include <stddef.h>
#include <stdint.h>

struct ptx_arena;

struct ptx_arena *arena_new(void);
void arena_free(struct ptx_arena *a);
/* Zeroed, 8-byte aligned; never NULL (allocation failure aborts). */
void *arena_alloc(struct ptx_arena *a, size_t n);
/* Copies n bytes of s and a NUL. */
char *arena_strndup(struct ptx_arena *a, const char *s, size_t n);

/* An array being built: elements of elsize bytes at data[0..n). */
struct vec {
	void *data;
	uint32_t n, cap;
};

/* Appends one zeroed element and returns it; the pointer is good until the
 * next push on the same vec. */
void *vec_push(struct ptx_arena *a, struct vec *v, size_t elsize);

#endif
