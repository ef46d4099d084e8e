/*
 * errfwd.h - a session worker's stderr goes to its client: what the backend
 * writes there (a device assert's message, a diagnostic) belongs to the
 * program that made the call, as it would with a local device.
 */
#ifndef AG_SERVER_ERRFWD_H
#define AG_SERVER_ERRFWD_H

struct ag_conn;
struct ag_errfwd;

/* Points this process's stderr at a pipe whose text a thread sends to the
 * client as STDERR frames.  NULL (stderr untouched) if that cannot be set
 * up. */
struct ag_errfwd *ag_errfwd_start(struct ag_conn *c);
/* Sends what has been written so far: called before each reply, so that
 * the client sees the text before the call that waited for it returns. */
void ag_errfwd_drain(struct ag_errfwd *f);
/* Gives stderr back, sends the rest and frees f (NULL is fine). */
void ag_errfwd_stop(struct ag_errfwd *f);

#endif
