/*
 * cli.h - what each `anygpu` command provides to the dispatcher in anygpu.c.
 *
 * A command is one file defining one struct command, plus one line in
 * anygpu.c's COMMANDS list.  The dispatcher answers `anygpu CMD --help` and
 * `anygpu help CMD` from the usage text, so run() sees only real work.
 */
#ifndef AG_CLI_H
#define AG_CLI_H

struct command {
	const char *name;
	const char *summary;    /* one line for `anygpu --help` */
	const char *usage;      /* the full `anygpu CMD --help` text */
	/* argv[0] is the command's name; returns the exit status. */
	int (*run)(int argc, char **argv);
};

/* Print "anygpu CMD: message" on stderr and return the exit status: 1 for
 * a failure, 2 for a usage error. */
int cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The value of option name (e.g. "--backend") at argv[*i], given as
 * "--backend=X" or "--backend X" (then *i moves past X).  NULL when argv[*i]
 * is another option; *missing is set when the value is absent. */
const char *cli_option(int argc, char **argv, int *i, const char *name, int *missing);

struct strbuf;

/* The first executable file named name in a PATH directory, as execvp(3)
 * would run it, into path.  Returns 0, or -1 when there is none. */
int cli_which(const char *name, struct strbuf *path);

/* The directory of the running anygpu executable, into dir (appended).
 * 0, or -1 with errno set. */
int cli_self_dir(struct strbuf *dir);

#endif
