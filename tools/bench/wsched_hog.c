// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_hog: the other tasks of the good-citizenship rows of the bench
 * (tools/bench/guest.sh), for a busybox guest that has neither nice nor
 * chrt.
 *
 *   wsched_hog spin <ms>
 *	a nice-0 CPU-bound loop for <ms>; prints "iters=<n> ns=<elapsed>"
 *   wsched_hog sched <nice0|nice19|idle> <command> [args...]
 *	runs the command at nice 0, at nice 19 or as SCHED_IDLE
 *   wsched_hog cyclic <ms> <interval_us>
 *	a cyclictest-style loop: a SCHED_FIFO 80 thread sleeps to absolute
 *	deadlines every <interval_us> for <ms> with its memory locked and
 *	prints "samples=<n> avg_ns=<mean lateness> max_ns=<worst>"; the
 *	periods a late wake-up overran are skipped, as cyclictest does
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long parse(const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < lo || v > hi) {
		fprintf(stderr, "wsched_hog: bad number %s\n", s);
		exit(2);
	}
	return v;
}

static int spin(long ms)
{
	long long t0 = now_ns(), end = t0 + ms * 1000000LL, t;
	unsigned long long iters = 0, x = iters;

	do {
		/*
		 * A block of work between clock reads, a few microseconds: a
		 * chain of multiplications the compiler cannot fold.
		 */
		for (int i = 0; i < 4096; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		iters++;
		t = now_ns();
	} while (t < end);
	printf("iters=%llu ns=%lld x=%llx\n", iters, t - t0, x);
	return 0;
}

static int run_sched(const char *how, char **argv)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (!strcmp(how, "idle")) {
		if (sched_setscheduler(0, SCHED_IDLE, &sp)) {
			perror("wsched_hog: SCHED_IDLE");
			return 1;
		}
	} else if (!strcmp(how, "nice19") || !strcmp(how, "nice0")) {
		if (setpriority(PRIO_PROCESS, 0, how[4] == '1' ? 19 : 0)) {
			perror("wsched_hog: setpriority");
			return 1;
		}
	} else {
		fprintf(stderr, "wsched_hog: nice0, nice19 or idle\n");
		return 2;
	}
	execvp(argv[0], argv);
	perror("wsched_hog: exec");
	return 127;
}

static int cyclic(long ms, long interval_us)
{
	struct sched_param sp = { .sched_priority = 80 };
	long long sum = 0, worst = 0, n = 0, stop;
	struct timespec next;

	if (mlockall(MCL_CURRENT | MCL_FUTURE))
		perror("wsched_hog: mlockall");
	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		perror("wsched_hog: SCHED_FIFO");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &next);
	stop = now_ns() + ms * 1000000LL;
	for (;;) {
		long long want, late;

		next.tv_nsec += interval_us * 1000;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		want = next.tv_sec * 1000000000LL + next.tv_nsec;
		if (want > stop)
			break;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		late = now_ns() - want;
		sum += late;
		n++;
		if (late > worst)
			worst = late;
		/*
		 * Skip the periods a late wake-up overran, as cyclictest
		 * does, so that one long stall is one sample, not a ramp.
		 */
		while (late >= interval_us * 1000) {
			late -= interval_us * 1000;
			next.tv_nsec += interval_us * 1000;
			while (next.tv_nsec >= 1000000000L) {
				next.tv_nsec -= 1000000000L;
				next.tv_sec++;
			}
		}
	}
	printf("samples=%lld avg_ns=%lld max_ns=%lld\n", n, n ? sum / n : 0,
	       worst);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "spin"))
		return spin(parse(argv[2], 1, 600000));
	if (argc >= 4 && !strcmp(argv[1], "sched"))
		return run_sched(argv[2], argv + 3);
	if (argc == 4 && !strcmp(argv[1], "cyclic"))
		return cyclic(parse(argv[2], 1, 600000),
			      parse(argv[3], 10, 1000000));
	fprintf(stderr, "usage: wsched_hog spin <ms>\n"
		"       wsched_hog sched <nice0|nice19|idle> <cmd...>\n"
		"       wsched_hog cyclic <ms> <interval_us>\n");
	return 2;
}
