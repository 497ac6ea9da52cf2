/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsctl: command-line tool for /dev/wsched; declarations shared by its
 * source files.
 */
#ifndef WSCTL_H
#define WSCTL_H

#include <stdio.h>
#include <wsched.h>

#define WSCTL_STATS_MAXCOLS	32
#define WSCTL_STATS_ROOT	"/sys/kernel/debug/wsched"

/* One reading of /sys/kernel/debug/wsched/<pool>/stats. */
struct wsctl_stats {
	int nr_cols;
	char names[WSCTL_STATS_MAXCOLS][32];
	int nr_rows;
	int *cpu;				/* [nr_rows] */
	unsigned long long *row;		/* [nr_rows * nr_cols] */
	unsigned long long total[WSCTL_STATS_MAXCOLS];
	double when;				/* CLOCK_MONOTONIC, seconds */
};

/* stats.c */
int wsctl_stats_read(const char *pool, struct wsctl_stats *st, char *err,
		     size_t errlen);
void wsctl_stats_free(struct wsctl_stats *st);
int wsctl_stats_col(const struct wsctl_stats *st, const char *name);
void wsctl_stats_print_delta(FILE *f, const struct wsctl_stats *a,
			     const struct wsctl_stats *b);
int cmd_stats(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* graph.c */
int cmd_run(int argc, char **argv);

/* wsctl.c */
extern const char *wsctl_prog;
void wsctl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
double wsctl_now(void);
const char *wsctl_errname(int err);
int wsctl_errno_parse(const char *s, int *err);
int wsctl_open_ring(struct wsched_ring *ring, unsigned int entries);
void wsctl_hex(const unsigned char *p, size_t n, char *out);

#endif /* WSCTL_H */
