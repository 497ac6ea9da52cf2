/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parser for /sys/kernel/debug/wsched/<pool>/stats, shared by the wsched
 * selftests.  Format: a header line naming the columns, one line per
 * possible CPU "<cpu> <numbers>", then "total <numbers>".  The header must
 * start with the nine contract columns (WS_STATS_HEADER); further columns
 * are accepted if every row has as many numbers as the header has names.
 */
#ifndef WSCHED_STATS_H
#define WSCHED_STATS_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WS_STATS_COLS	9	/* contract columns */
#define WS_STATS_MAXCOLS 32
#define WS_STATS_MAXCPU	1024
#define WS_STATS_HEADER	\
	"cpu spawned executed bypassed popped stolen steal_failed injected sleeps wakeups"

enum { WS_SPAWNED, WS_EXECUTED, WS_BYPASSED, WS_POPPED, WS_STOLEN,
	WS_STEAL_FAILED, WS_INJECTED, WS_SLEEPS, WS_WAKEUPS };

struct ws_stats {
	int nr_rows;
	int cpu[WS_STATS_MAXCPU];
	int nr_cols;
	char names[WS_STATS_MAXCOLS][32];
	unsigned long long row[WS_STATS_MAXCPU][WS_STATS_MAXCOLS];
	unsigned long long total[WS_STATS_MAXCOLS];
	char err[512];
};

static inline const char *ws_stats_path(const char *pool, char *buf, size_t len)
{
	snprintf(buf, len, "/sys/kernel/debug/wsched/%s/stats", pool);
	return buf;
}

/* Split @line into whitespace-separated words; returns the word count. */
static inline int ws_split(char *line, char **w, int max)
{
	int n = 0;
	char *save, *tok;

	for (tok = strtok_r(line, " \t\n", &save); tok && n < max;
	     tok = strtok_r(NULL, " \t\n", &save))
		w[n++] = tok;
	return tok ? max + 1 : n;
}

static inline int ws_parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

/* Returns 0 on success, -1 with st->err set on any format error. */
static inline int ws_stats_read(const char *pool, struct ws_stats *st)
{
	char path[256], line[2048], *w[WS_STATS_MAXCOLS + 2];
	int lineno = 0, have_total = 0, n, i;
	FILE *f;

	memset(st, 0, sizeof(*st));
	f = fopen(ws_stats_path(pool, path, sizeof(path)), "r");
	if (!f) {
		snprintf(st->err, sizeof(st->err), "open %s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (lineno == 1) {
			char hdr[] = WS_STATS_HEADER, *hw[WS_STATS_COLS + 2];

			ws_split(hdr, hw, WS_STATS_COLS + 1);
			n = ws_split(line, w, WS_STATS_MAXCOLS + 1);
			if (n < WS_STATS_COLS + 1 || n > WS_STATS_MAXCOLS + 1)
				goto bad;
			for (i = 0; i < WS_STATS_COLS + 1; i++)
				if (strcmp(w[i], hw[i]))
					goto bad;
			st->nr_cols = n - 1;
			for (i = 0; i < st->nr_cols; i++)
				snprintf(st->names[i], sizeof(st->names[i]), "%s", w[i + 1]);
			continue;
		}
		n = ws_split(line, w, WS_STATS_MAXCOLS + 1);
		if (n == 0)
			continue;
		if (n != st->nr_cols + 1 || have_total)
			goto bad;
		if (!strcmp(w[0], "total")) {
			for (i = 0; i < st->nr_cols; i++)
				if (ws_parse_u64(w[i + 1], &st->total[i]))
					goto bad;
			have_total = 1;
			continue;
		}
		if (st->nr_rows >= WS_STATS_MAXCPU)
			goto bad;
		{
			unsigned long long cpu;

			if (ws_parse_u64(w[0], &cpu) || cpu >= WS_STATS_MAXCPU)
				goto bad;
			st->cpu[st->nr_rows] = (int)cpu;
		}
		for (i = 0; i < st->nr_cols; i++)
			if (ws_parse_u64(w[i + 1], &st->row[st->nr_rows][i]))
				goto bad;
		st->nr_rows++;
	}
	fclose(f);
	if (lineno == 0 || !have_total) {
		snprintf(st->err, sizeof(st->err), "%s: %s", path,
			 lineno ? "no total line" : "empty");
		return -1;
	}
	return 0;
bad:
	fclose(f);
	snprintf(st->err, sizeof(st->err), "%s: bad line %d", path, lineno);
	return -1;
}

/*
 * The /dev/wsched contexts' pools ("u<N>" in /sys/kernel/debug/wsched):
 * how many exist (-1 without debugfs), and the newest's number.
 */
static inline int ws_user_pools(unsigned int *newest)
{
	struct dirent *d;
	unsigned int n;
	int count = 0;
	DIR *dir = opendir("/sys/kernel/debug/wsched");

	if (!dir)
		return -1;
	if (newest)
		*newest = 0;
	while ((d = readdir(dir))) {
		if (sscanf(d->d_name, "u%u", &n) != 1)
			continue;
		count++;
		if (newest && n > *newest)
			*newest = n;
	}
	closedir(dir);
	return count;
}

/* Wait up to 10 s for @want user pools; how many there are. */
static inline int ws_wait_user_pools(int want)
{
	int i, n = -1;

	for (i = 0; i < 1000; i++) {
		n = ws_user_pools(NULL);
		if (n == want)
			break;
		usleep(10000);
	}
	return n;
}

/*
 * Parse a CPU list such as "0-3,5" (as in /sys/devices/system/cpu/possible)
 * into a bitmap of WS_STATS_MAXCPU bytes.  Returns the CPU count, or -1.
 */
static inline int ws_cpulist(const char *path, unsigned char *map)
{
	char buf[4096], *p, *tok, *save;
	int count = 0;
	FILE *f = fopen(path, "r");

	memset(map, 0, WS_STATS_MAXCPU);
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (tok = strtok_r(buf, ",\n", &save); tok; tok = strtok_r(NULL, ",\n", &save)) {
		long a = strtol(tok, &p, 10), b = a;

		if (*p == '-')
			b = strtol(p + 1, &p, 10);
		if (a < 0 || b < a || b >= WS_STATS_MAXCPU)
			return -1;
		for (; a <= b; a++)
			if (!map[a]++)
				count++;
	}
	return count;
}

#endif /* WSCHED_STATS_H */
