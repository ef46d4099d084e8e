/*
 * outfwd.h - a session worker's stdout and stderr go to its client: what
 * the backend writes there (device printf through a driver, a device
 * assert's message, a diagnostic) belongs to the program that made the
 * call, as it would with a local device.
 */
#ifndef AG_SERVER_OUTFWD_H
#define AG_SERVER_OUTFWD_H

struct ag_conn;
struct ag_outfwd;

/* Points this process's file descriptor fd (1 or 2) at a pipe whose text
 * a thread sends to the client in frames of operation op.  NULL (fd
 * untouched) if that cannot be set up. */
struct ag_outfwd *ag_outfwd_start(struct ag_conn *c, int fd, unsigned op);
/* Sends what has been written so far: called before each reply, so that
 * the client sees the text before the call that waited for it returns. */
void ag_outfwd_drain(struct ag_outfwd *f);
/* Gives the descriptor back, sends the rest and frees f (NULL is fine). */
void ag_outfwd_stop(struct ag_outfwd *f);

#endif
