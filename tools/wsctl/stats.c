// SPDX-License-Identifier: GPL-2.0
/*
 * wsctl stats, wsctl top: the per-CPU scheduler counters of
 * /sys/kernel/debug/wsched/<pool>/stats.
 *
 * Format (kmod/debugfs.c): a header "cpu <name>...", one line per possible
 * CPU "<cpu> <number>...", then "total <number>...".  Columns are taken
 * from the header, so new counters show up without changes here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "wsctl.h"

/* The counters "wsctl top" shows unless -a: the debugfs contract columns. */
static const char *const top_default_cols[] = {
	"spawned", "executed", "bypassed", "popped", "stolen", "steal_failed",
	"injected", "sleeps", "wakeups",
};

static int split(char *line, char **w, int max)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t\n", &save); tok; tok = strtok_r(NULL, " \t\n", &save)) {
		if (n == max)
			return max + 1;
		w[n++] = tok;
	}
	return n;
}

static int parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -1 : 0;
}

void wsctl_stats_free(struct wsctl_stats *st)
{
	free(st->cpu);
	free(st->row);
	st->cpu = NULL;
	st->row = NULL;
}

int wsctl_stats_read(const char *pool, struct wsctl_stats *st, char *err,
		     size_t errlen)
{
	char path[512], line[4096], *w[WSCTL_STATS_MAXCOLS + 2];
	int lineno = 0, have_total = 0, room = 0, n, i;
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), "%s/%s/stats", WSCTL_STATS_ROOT, pool);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s%s", path, strerror(errno),
			 errno == ENOENT ? " (wsched loaded? debugfs mounted?)" : "");
		return -1;
	}
	st->when = wsctl_now();
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		n = split(line, w, WSCTL_STATS_MAXCOLS + 1);
		if (!n)
			continue;
		if (!st->nr_cols) {
			if (strcmp(w[0], "cpu") || n < 2 || n > WSCTL_STATS_MAXCOLS + 1)
				goto bad;
			st->nr_cols = n - 1;
			for (i = 0; i < st->nr_cols; i++)
				snprintf(st->names[i], sizeof(st->names[i]), "%s", w[i + 1]);
			continue;
		}
		if (n != st->nr_cols + 1 || have_total)
			goto bad;
		if (!strcmp(w[0], "total")) {
			for (i = 0; i < st->nr_cols; i++)
				if (parse_u64(w[i + 1], &st->total[i]))
					goto bad;
			have_total = 1;
			continue;
		}
		if (st->nr_rows == room) {
			int *c;
			unsigned long long *r;

			room = room ? 2 * room : 64;
			c = realloc(st->cpu, room * sizeof(*c));
			if (c)
				st->cpu = c;
			r = realloc(st->row, (size_t)room * st->nr_cols * sizeof(*r));
			if (r)
				st->row = r;
			if (!c || !r) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		}
		{
			unsigned long long cpu;

			if (parse_u64(w[0], &cpu) || cpu > 1U << 20)
				goto bad;
			st->cpu[st->nr_rows] = (int)cpu;
		}
		for (i = 0; i < st->nr_cols; i++)
			if (parse_u64(w[i + 1], &st->row[st->nr_rows * st->nr_cols + i]))
				goto bad;
		st->nr_rows++;
	}
	fclose(f);
	if (!have_total) {
		snprintf(err, errlen, "%s: %s", path, lineno ? "no total line" : "empty");
		wsctl_stats_free(st);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: unexpected format at line %d", path, lineno);
fail:
	fclose(f);
	wsctl_stats_free(st);
	return -1;
}

int wsctl_stats_col(const struct wsctl_stats *st, const char *name)
{
	int i;

	for (i = 0; i < st->nr_cols; i++)
		if (!strcmp(st->names[i], name))
			return i;
	return -1;
}

/* "name +delta" for every counter that changed between @a and @b. */
void wsctl_stats_print_delta(FILE *f, const struct wsctl_stats *a,
			     const struct wsctl_stats *b)
{
	int i, any = 0, j;

	for (i = 0; i < b->nr_cols; i++) {
		j = wsctl_stats_col(a, b->names[i]);
		if (j < 0 || b->total[i] == a->total[j])
			continue;
		fprintf(f, "%s %s +%llu", any ? "," : "", b->names[i],
			b->total[i] - a->total[j]);
		any = 1;
	}
	fprintf(f, "%s\n", any ? "" : " (no change)");
}

static int num_width(unsigned long long v)
{
	int w = 1;

	while (v >= 10) {
		v /= 10;
		w++;
	}
	return w;
}

/* Pools that have a stats file, sorted; returns the count (names malloc'ed). */
static int list_pools(char ***names)
{
	struct dirent **ents;
	int n, i, k = 0;

	n = scandir(WSCTL_STATS_ROOT, &ents, NULL, alphasort);
	if (n < 0)
		return -errno;
	*names = calloc(n ? n : 1, sizeof(char *));
	for (i = 0; i < n; i++) {
		char path[512];

		snprintf(path, sizeof(path), "%s/%s/stats", WSCTL_STATS_ROOT, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.' && *names && !access(path, R_OK))
			(*names)[k++] = strdup(ents[i]->d_name);
		free(ents[i]);
	}
	free(ents);
	return *names ? k : -ENOMEM;
}

static void print_table(const struct wsctl_stats *st)
{
	int width[WSCTL_STATS_MAXCOLS], r, i;

	for (i = 0; i < st->nr_cols; i++) {
		width[i] = (int)strlen(st->names[i]);
		if (num_width(st->total[i]) > width[i])
			width[i] = num_width(st->total[i]);
	}
	printf("%-6s", "cpu");
	for (i = 0; i < st->nr_cols; i++)
		printf(" %*s", width[i], st->names[i]);
	putchar('\n');
	for (r = 0; r < st->nr_rows; r++) {
		printf("%-6d", st->cpu[r]);
		for (i = 0; i < st->nr_cols; i++)
			printf(" %*llu", width[i], st->row[r * st->nr_cols + i]);
		putchar('\n');
	}
	printf("%-6s", "total");
	for (i = 0; i < st->nr_cols; i++)
		printf(" %*llu", width[i], st->total[i]);
	putchar('\n');
}

int cmd_stats(int argc, char **argv)
{
	struct wsctl_stats st;
	char err[600], **pools = NULL;
	int n, i, ret = 0;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
		fprintf(stderr, "usage: %s stats [POOL]\n", wsctl_prog);
		return 2;
	}
	if (argc == 2) {
		if (wsctl_stats_read(argv[1], &st, err, sizeof(err))) {
			wsctl_err("%s", err);
			return 2;
		}
		printf("pool %s\n", argv[1]);
		print_table(&st);
		wsctl_stats_free(&st);
		return 0;
	}
	n = list_pools(&pools);
	if (n <= 0) {
		wsctl_err("no pools in %s: %s", WSCTL_STATS_ROOT,
			  n ? strerror(-n) : "none has a stats file");
		return 2;
	}
	for (i = 0; i < n; i++) {
		if (wsctl_stats_read(pools[i], &st, err, sizeof(err))) {
			wsctl_err("%s", err);
			ret = 2;
		} else {
			printf("%spool %s\n", i ? "\n" : "", pools[i]);
			print_table(&st);
			wsctl_stats_free(&st);
		}
		free(pools[i]);
	}
	free(pools);
	return ret;
}

static void top_usage(void)
{
	fprintf(stderr,
		"usage: %s top [POOL] [-n ITERATIONS] [-d SECONDS] [-a]\n"
		"  per-second rates of the per-CPU counters of POOL (default system);\n"
		"  -n: stop after ITERATIONS refreshes (default: until interrupted)\n"
		"  -d: refresh interval (default 1)  -a: every counter, not only the main ones\n",
		wsctl_prog);
}

static void sleep_seconds(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int cmd_top(int argc, char **argv)
{
	const char *pool = "system";
	struct wsctl_stats a, b;
	int cols[WSCTL_STATS_MAXCOLS], width[WSCTL_STATS_MAXCOLS];
	int iters = 0, all = 0, tty = isatty(STDOUT_FILENO), ncols, it, opt, i, r;
	double delay = 1.0;
	char err[600], *end;

	optind = 1;
	while ((opt = getopt(argc, argv, "n:d:ah")) != -1) {
		switch (opt) {
		case 'n':
			iters = (int)strtol(optarg, &end, 10);
			if (*end || iters < 0)
				goto usage;
			break;
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay >= 0.01 && delay <= 3600))
				goto usage;
			break;
		case 'a':
			all = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind < argc)
		pool = argv[optind++];
	if (optind < argc)
		goto usage;

	if (wsctl_stats_read(pool, &a, err, sizeof(err))) {
		wsctl_err("%s", err);
		return 2;
	}
	ncols = 0;
	for (i = 0; i < a.nr_cols; i++) {
		size_t k;
		int show = all;

		for (k = 0; !show && k < sizeof(top_default_cols) / sizeof(top_default_cols[0]); k++)
			show = !strcmp(a.names[i], top_default_cols[k]);
		if (show) {
			cols[ncols] = i;
			width[ncols] = (int)strlen(a.names[i]);
			if (width[ncols] < 7)
				width[ncols] = 7;
			ncols++;
		}
	}
	for (it = 1; !iters || it <= iters; it++) {
		double dt;

		sleep_seconds(delay);
		if (wsctl_stats_read(pool, &b, err, sizeof(err))) {
			wsctl_err("%s", err);
			wsctl_stats_free(&a);
			return 2;
		}
		if (b.nr_cols != a.nr_cols || b.nr_rows != a.nr_rows) {
			wsctl_err("the format of %s/%s/stats changed", WSCTL_STATS_ROOT, pool);
			wsctl_stats_free(&a);
			wsctl_stats_free(&b);
			return 2;
		}
		dt = b.when - a.when;
		if (dt <= 0)
			dt = delay;
		if (tty)
			fputs("\033[H\033[2J", stdout);
		printf("wsched pool %s: events per second over the last %.2f s, refresh %d",
		       pool, dt, it);
		if (iters)
			printf(" of %d", iters);
		putchar('\n');
		printf("%-6s", "cpu");
		for (i = 0; i < ncols; i++)
			printf(" %*s", width[i], a.names[cols[i]]);
		putchar('\n');
		for (r = 0; r <= b.nr_rows; r++) {
			int total = r == b.nr_rows;

			if (total)
				printf("%-6s", "total");
			else
				printf("%-6d", b.cpu[r]);
			for (i = 0; i < ncols; i++) {
				int c = cols[i];
				unsigned long long x = total ? b.total[c] : b.row[r * b.nr_cols + c];
				unsigned long long y = total ? a.total[c] : a.row[r * a.nr_cols + c];

				/* Racy per-CPU copies may step back a little. */
				printf(" %*.0f", width[i], x > y ? (double)(x - y) / dt : 0.0);
			}
			putchar('\n');
		}
		if (!tty)
			putchar('\n');
		fflush(stdout);
		wsctl_stats_free(&a);
		a = b;
	}
	wsctl_stats_free(&a);
	return 0;
usage:
	top_usage();
	return 2;
}
