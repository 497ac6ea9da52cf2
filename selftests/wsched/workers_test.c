// SPDX-License-Identifier: GPL-2.0
/*
 * workers_test: the worker threads of /dev/wsched belong to the process
 * that submits (issue 19).
 *
 * Nodes the submitter does not run itself run in the worker set of its
 * process: one set per thread group, shared by every /dev/wsched file the
 * process uses, grown lazily (at most one worker more per node that can
 * run in parallel, up to the CPUs the process may use and the file's cap,
 * WSCHED_IOC_MAX_WORKERS), shrunk by an idle timeout (worker_idle_ms) and
 * gone when the last file closes.  On kernels with user workers (6.11 and
 * later: vhost_task) the workers are threads of the process, so that its
 * limits, cgroups, CPU accounting, credentials and SIGKILL apply to them;
 * on older kernels they are kthreads attached to the submitter's cgroups,
 * with its nice level and policy, running nodes with its credentials.
 * debugfs wsched/dev counts the sets (worker_sets) and their threads
 * (user_workers).
 *
 * - sixtyfour_files: 64 files of one process share one set of at most
 *   (CPUs + 4) workers, threads of the process on user-worker kernels and
 *   not on others; closing them all takes the set and its workers away.
 * - pids_max: a process in a cgroup whose pids.max leaves no room for all
 *   the workers it would make still completes every graph, and the
 *   cgroup never holds more than pids.max tasks (user workers only).
 * - cpu_max_after_move: a process moved, with its workers made, into a
 *   cgroup with cpu.max 20 % has its graphs charged to that cgroup and
 *   held to the limit.
 * - rusage: what the workers run is the process's CPU time (user workers
 *   only).
 * - whoami, whoami_after_setuid: nodes run with the submitter's uid, also
 *   when the set was made before it dropped privileges; on user-worker
 *   kernels by threads of the process.
 * - sched_idle, sched_batch: nodes run with the submitter's policy.
 * - sigkill: a process killed with graphs in flight leaves no file, set
 *   or worker behind.
 * - stopped_worker_exit: a worker stopped by its set's teardown while it
 *   slept, whose exit releases another file (the last mapping of its
 *   rings) and so destroys another set, is no worker of any set by then.
 * - max_workers: WSCHED_IOC_MAX_WORKERS reads and sets the file's cap, and
 *   a cap of 1 holds the set to one worker.
 * - split_node_workers: a one-node graph whose op splits its range
 *   (crc32c) gets threads beside its waiting submitter, and its value is
 *   right.
 * - idle_workers_exit: idle workers exit after worker_idle_ms while the
 *   file stays open, and the next graph still runs.
 * - submit_as_workers_leave: a graph submitted the moment the count of
 *   workers says the last idle one left (its thread may still be
 *   exiting) gets a thread and completes, with the submitter in poll().
 *
 * The whoami and sched tests run nodes of "smoke_whoami", registered by
 * wsched_smoke.ko (tools/smoke; path from $WSCHED_SMOKE_KO), which they
 * load if it is not loaded and unload afterwards.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "../../tools/libwsched/wsched.h"
#include "wsched_ring.h"

#ifndef WSCHED_IOC_MAX_WORKERS
#define WSCHED_IOC_MAX_WORKERS	_IOWR(WSCHED_IOC_MAGIC, 0x08, __u32)
#endif
#ifndef SCHED_BATCH
#define SCHED_BATCH		3
#endif
#ifndef SCHED_IDLE
#define SCHED_IDLE		5
#endif

#define DBG_DEV		"/sys/kernel/debug/wsched/dev"
#define PARAM_IDLE	"/sys/module/wsched/parameters/worker_idle_ms"
#define CG_ROOT		"/sys/fs/cgroup"
#define SMOKE_DEFAULT_KO	"/lib/wsched/wsched_smoke.ko"
#define WHOAMI_OP	"smoke_whoami"
#define UD(g, i)	((__u64)(g) << 32 | (__u32)(i))

/* SPIN iterations above the kernel's WSD_SPIN_CHEAP: a node worth a worker. */
#define SPIN_NOT_CHEAP	4096

/* What a smoke_whoami node's value says about the thread that ran it. */
#define WHO_UID(v)	((__u32)(v))
#define WHO_POLICY(v)	((unsigned int)((v) >> 32) & 0xff)
#define WHO_KTHREAD(v)	((unsigned int)((v) >> 40) & 1)
#define WHO_TGID(v)	((unsigned int)((v) >> 41))
#define TGID_MASK	0x7fffff

/* An unprivileged id no other test uses. */
#define WHO_UID_USER	12345

/* ---- helpers ---------------------------------------------------------- */

/* The counts of debugfs wsched/dev. */
struct wcounts {
	long files, pinned, sets, workers;
};

static const char *read_counts(struct wcounts *c)
{
	FILE *f = fopen(DBG_DEV, "r");
	char key[32];
	long v;

	if (!f)
		return why("%s: %s (debugfs not mounted?)", DBG_DEV,
			   strerror(errno));
	c->files = c->pinned = c->sets = c->workers = -1;
	while (fscanf(f, "%31s %ld", key, &v) == 2) {
		if (!strcmp(key, "files"))
			c->files = v;
		else if (!strcmp(key, "pinned_pages"))
			c->pinned = v;
		else if (!strcmp(key, "worker_sets"))
			c->sets = v;
		else if (!strcmp(key, "user_workers"))
			c->workers = v;
	}
	fclose(f);
	if (c->files < 0 || c->sets < 0 || c->workers < 0)
		return why("%s lacks files, worker_sets or user_workers (an old wsched.ko?)",
			   DBG_DEV);
	return NULL;
}

/* Threads of process @pid (0: this one) in /proc/<pid>/task, or -1. */
static int nr_tasks(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/task");
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/*
 * Wait up to @ms for worker_sets and user_workers (and files, if @files)
 * to be back at @base, and, if @tasks, for this process to be down to one
 * thread again; NULL, or what is left.
 */
static const char *wait_base(const struct wcounts *base, bool files,
			     bool tasks, unsigned int ms, __u64 *took_ns)
{
	__u64 t0 = now_ns(), end = t0 + ms * MS_NS;
	struct wcounts c = { 0 };
	const char *w;
	int t = 1;

	for (;;) {
		w = read_counts(&c);
		if (w)
			return w;
		if (tasks)
			t = nr_tasks(0);
		if (c.sets == base->sets && c.workers == base->workers &&
		    (!files || c.files == base->files) && t == 1)
			break;
		if (now_ns() >= end)
			return why("after %u ms: worker_sets %ld (was %ld), user_workers %ld (was %ld), files %ld (was %ld), threads of this process %d",
				   ms, c.sets, base->sets, c.workers,
				   base->workers, c.files, base->files, t);
		usleep(10000);
	}
	if (took_ns)
		*took_ns = now_ns() - t0;
	return NULL;
}

/* CPUs this process may run on. */
static int nr_allowed_cpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

/*
 * Whether the workers are threads of the submitting process: kernels
 * from 6.11 (vhost_task); the tests below check that it shows.
 */
static bool user_worker_kernel(void)
{
	unsigned int maj = 0, min = 0;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 6 || (maj == 6 && min >= 11);
}

/*
 * Queue a graph of @n independent nodes of @op with @arg, node i's
 * user_data UD(@g, i) (the graph's completion has UD(@g, @n - 1));
 * @cqe: the nodes post completions too.
 */
static bool push_graph(struct ring *r, __u32 op, __u64 arg, unsigned int n,
		       __u32 g, bool cqe)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct wsched_sqe e;

		sqe_op(&e, op, arg, UD(g, i));
		e.flags = (cqe ? 0 : WSCHED_SQE_NO_CQE) |
			  (i == n - 1 ? WSCHED_SQE_GRAPH_END : 0);
		if (!sq_push(r, &e))
			return false;
	}
	return true;
}

/* Submit what is queued without waiting (the submitter runs nothing). */
static const char *submit(struct ring *r)
{
	__u32 n = sq_pending(r);
	struct wsched_enter e;
	int ret = ring_enter(r, n, 0, 0, 0, &e);

	if (ret)
		return why("ENTER: %s", strerror(-ret));
	if (e.submitted != n)
		return why("ENTER consumed %u of %u entries", e.submitted, n);
	return NULL;
}

/*
 * Reap completions until @graphs graph completions have come, at most
 * @ms.  When the CQ is empty, wait in poll(), where the submitter runs no
 * node (@enter false), or in ENTER with GETEVENTS, where it may run them
 * (@enter true); @tick, if set, is called at least every 20 ms of a poll.
 * Node completions go to @nodes (at most @max, counted in *@nr).  Every
 * graph must have succeeded with all its nodes run.
 */
static const char *reap_graphs(struct ring *r, unsigned int graphs, bool enter,
			       struct wsched_cqe *nodes, unsigned int max,
			       unsigned int *nr, unsigned int ms,
			       void (*tick)(void *), void *arg)
{
	__u64 end = now_ns() + ms * MS_NS;
	unsigned int seen = 0;
	struct wsched_cqe c;

	if (nr)
		*nr = 0;
	while (seen < graphs) {
		__u64 now = now_ns();

		if (ring_reap(r, &c, 1)) {
			if (!(c.flags & WSCHED_CQE_GRAPH)) {
				if (nodes && *nr < max)
					nodes[(*nr)++] = c;
				continue;
			}
			if (c.res || c.value != c.seq)
				return why("graph %#llx: res %d, %llu of %u nodes ran",
					   (unsigned long long)c.user_data,
					   c.res, (unsigned long long)c.value,
					   c.seq);
			seen++;
			continue;
		}
		if (now >= end)
			return why("%u of %u graphs completed in %u ms", seen,
				   graphs, ms);
		if (enter) {
			int ret = ring_wait(r, 1, (end - now) / MS_NS + 1);

			if (ret && ret != -ETIME)
				return why("ENTER GETEVENTS: %s", strerror(-ret));
		} else {
			struct pollfd p = { .fd = r->fd, .events = POLLIN };
			int left = (end - now) / MS_NS + 1;

			if (left > (tick ? 20 : 1000))
				left = tick ? 20 : 1000;
			if (poll(&p, 1, left) < 0 && errno != EINTR)
				return why("poll: %s", strerror(errno));
			if (p.revents & (POLLERR | POLLNVAL))
				return why("poll: revents %#x", p.revents);
		}
		if (tick)
			tick(arg);
	}
	return NULL;
}

/* The largest worker and set counts seen, sampled by the reapers. */
struct peak {
	long max_workers, max_sets, min_sets;
	unsigned int samples;
};

static void peak_init(struct peak *p)
{
	p->max_workers = -1;
	p->max_sets = -1;
	p->min_sets = 1L << 30;
	p->samples = 0;
}

static void peak_sample(void *arg)
{
	struct peak *p = arg;
	struct wcounts c;

	if (read_counts(&c))
		return;
	if (c.workers > p->max_workers)
		p->max_workers = c.workers;
	if (c.sets > p->max_sets)
		p->max_sets = c.sets;
	if (c.sets < p->min_sets)
		p->min_sets = c.sets;
	p->samples++;
}

/* The wall time of a one-node SPIN graph the submitter runs, in ns. */
static __u64 spin_node_ns(struct ring *r, __u32 iters)
{
	__u64 t0 = now_ns();

	if (!push_graph(r, WSCHED_OP_SPIN, iters, 1, 0, false) ||
	    ring_enter(r, sq_pending(r), 1, WSCHED_ENTER_GETEVENTS,
		       60 * SEC_NS, NULL) ||
	    reap_graphs(r, 1, true, NULL, 0, NULL, 60000, NULL, NULL))
		return 0;
	return now_ns() - t0;
}

/* CPU time of @who (RUSAGE_SELF or RUSAGE_THREAD) in ns. */
static __u64 cpu_ns(int who)
{
	struct rusage ru;

	if (getrusage(who, &ru))
		return 0;
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * SEC_NS +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000ULL;
}

/*
 * Run @fn in a child process, at most @secs seconds: NULL if it returned
 * NULL, else what it (or the wait) said.  The child must not use the
 * harness's EXPECT/ASSERT: it reports through its return value.
 */
static const char *run_child(const char *(*fn)(void *), void *arg,
			     unsigned int secs)
{
	char *msg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	__u64 end = now_ns() + secs * SEC_NS;
	const char *w = NULL;
	int status = 0;
	pid_t pid, p;

	if (msg == MAP_FAILED)
		return why("mmap: %s", strerror(errno));
	msg[0] = 0;
	pid = fork();
	if (pid < 0) {
		munmap(msg, 4096);
		return why("fork: %s", strerror(errno));
	}
	if (!pid) {
		w = fn(arg);
		if (w)
			snprintf(msg, 4096, "%s", w);
		_exit(w ? 1 : 0);
	}
	while ((p = waitpid(pid, &status, WNOHANG)) == 0 && now_ns() < end)
		usleep(10000);
	if (p == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		w = why("the child did not finish in %u s", secs);
	} else if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		w = why("child (status %#x): %s", status,
			msg[0] ? msg : "no message");
	}
	munmap(msg, 4096);
	return w;
}

/* ---- cgroup v2 (as engine_test) --------------------------------------- */

/* A cgroup v2 hierarchy: the mounted one, or one we mount. */
static const char *cg_root(void)
{
	static char root[64];
	char buf[64];

	if (root[0])
		return root;
	if (!read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) ||
	    !mount("none", CG_ROOT, "cgroup2", 0, NULL)) {
		snprintf(root, sizeof(root), CG_ROOT);
		return root;
	}
	mkdir("/tmp/cgroup2", 0755);
	if (!read_file("/tmp/cgroup2/cgroup.controllers", buf, sizeof(buf)) ||
	    !mount("none", "/tmp/cgroup2", "cgroup2", 0, NULL)) {
		snprintf(root, sizeof(root), "/tmp/cgroup2");
		return root;
	}
	return NULL;
}

/* Make cgroup @name with controller @ctl enabled; NULL, or why not. */
static const char *cg_make(const char *name, const char *ctl, char *path,
			   size_t len)
{
	const char *root = cg_root();
	char buf[256], sub[256];

	if (!root)
		return "no cgroup2";
	snprintf(buf, sizeof(buf), "%s/cgroup.controllers", root);
	if (read_file(buf, sub, sizeof(sub)) || !strstr(sub, ctl))
		return why("no %s controller in this kernel", ctl);
	snprintf(buf, sizeof(buf), "%s/cgroup.subtree_control", root);
	snprintf(sub, sizeof(sub), "+%s", ctl);
	if (write_file(buf, sub))
		return why("cannot enable the %s controller", ctl);
	snprintf(path, len, "%s/%s", root, name);
	rmdir(path);
	if (mkdir(path, 0755))
		return why("mkdir %s: %s", path, strerror(errno));
	return NULL;
}

static int cg_write(const char *cg, const char *file, const char *v)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return write_file(path, v);
}

/* The number after @key in @cg's @file ("" for a one-number file), or -1. */
static long long cg_read(const char *cg, const char *file, const char *key)
{
	char path[256], buf[1024], *p = buf;

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	if (key[0]) {
		size_t n = strlen(key);

		for (p = buf; (p = strstr(p, key)); p += n)
			if ((p == buf || p[-1] == '\n') && p[n] == ' ')
				break;
		if (!p)
			return -1;
		p += n + 1;
	}
	return atoll(p);
}

/*
 * rmdir a cgroup once its last task is gone, at most 10 s (a worker left
 * in it keeps it busy); 0 or -errno.
 */
static int cg_remove(const char *cg)
{
	int i;

	for (i = 0; i < 1000; i++) {
		if (!rmdir(cg))
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(10000);
	}
	return -EBUSY;
}

static int move_to(const char *cg, pid_t pid)
{
	char v[32];

	snprintf(v, sizeof(v), "%d", pid);
	return cg_write(cg, "cgroup.procs", v);
}

/* ---- the fixture: root, debugfs, the counts before ------------------------ */

FIXTURE(wk) {
	struct wcounts base;
	int ncpu;
	bool uw;
	char idle0[32];
};

FIXTURE_SETUP(wk)
{
	if (geteuid() != 0)
		SKIP(return, "needs root (debugfs, cgroups, module parameters)");
	if (access(DEV_PATH, R_OK | W_OK))
		SKIP(return, "no %s: %s", DEV_PATH, strerror(errno));
	ASSERT_OK(read_counts(&self->base));
	self->ncpu = nr_allowed_cpus();
	self->uw = user_worker_kernel();
	self->idle0[0] = 0;
	TH_LOG("baseline: files %ld, worker_sets %ld, user_workers %ld; %d CPUs; %s workers",
	       self->base.files, self->base.sets, self->base.workers,
	       self->ncpu, self->uw ? "user" : "kthread");
}

/*
 * In the parent, which waits for the test's process (self is shared).
 * A FIXTURE_TEARDOWN() in the test's own process did not run after a
 * failed ASSERT with 6.12's harness (its fork result, a local changed
 * after setjmp(), is not kept across the longjmp()), and worker_idle_ms
 * left at the failed test's value then failed the tests after it.
 */
FIXTURE_TEARDOWN_PARENT(wk)
{
	if (self->idle0[0])
		write_file(PARAM_IDLE, self->idle0);
}

/* ---- one set per process, gone with its last file -------------------- */

#define NFILES		64

TEST_F_TIMEOUT(wk, sixtyfour_files, 300)
{
	struct ring *r = calloc(NFILES, sizeof(*r));
	struct wcounts c1, c2;
	struct rlimit rl;
	struct peak pk;
	unsigned int i, k;
	__u64 took;
	int tasks = -1;
	bool match = false;

	ASSERT_NE(NULL, r);
	/*
	 * No worker leaves for being idle during the test: the counts below
	 * are of the workers the graphs made, and only the close takes
	 * them away.
	 */
	ASSERT_EQ(0, read_file(PARAM_IDLE, self->idle0, sizeof(self->idle0)))
		TH_LOG("no %s", PARAM_IDLE);
	ASSERT_EQ(0, write_file(PARAM_IDLE, "600000"));
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_cur < 4 * NFILES) {
		rl.rlim_cur = 4 * NFILES;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_max = rl.rlim_cur;
		ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl))
			TH_LOG("RLIMIT_NOFILE: %s", strerror(errno));
	}
	for (i = 0; i < NFILES; i++)
		ASSERT_EQ(0, ring_open(&r[i], 8, 0, 0)) TH_LOG("file %u", i);
	/* Two nodes that can run in parallel on each, none waited for. */
	for (i = 0; i < NFILES; i++) {
		ASSERT_TRUE(push_graph(&r[i], WSCHED_OP_SPIN,
				       WSCHED_SPIN_MAX / 8, 2, i, false));
		ASSERT_OK(submit(&r[i])) TH_LOG("file %u", i);
	}
	peak_init(&pk);
	peak_sample(&pk);
	for (i = 0; i < NFILES; i++) {
		ASSERT_OK(reap_graphs(&r[i], 1, true, NULL, 0, NULL, 60000,
				      NULL, NULL))
			TH_LOG("file %u", i);
		peak_sample(&pk);
	}
	ASSERT_LT(0, pk.samples);
	TH_LOG("64 files, 64 graphs of 2 nodes: at most %ld workers in %ld..%ld sets (baseline %ld, %ld); %d CPUs",
	       pk.max_workers, pk.min_sets, pk.max_sets, self->base.workers,
	       self->base.sets, self->ncpu);
	/* One set for the process, whatever the number of its files. */
	EXPECT_EQ(self->base.sets + 1, pk.max_sets);
	EXPECT_EQ(self->base.sets + 1, pk.min_sets);
	/* Bounded by the CPUs, not by the files; some were made. */
	EXPECT_GE(self->ncpu + 4, pk.max_workers - self->base.workers);
	EXPECT_LE(1, pk.max_workers - self->base.workers)
		TH_LOG("no worker ran graphs nobody waited for");

	/*
	 * User workers are threads of this process, kthreads are not.
	 * Compare only when the count did not move around the look at
	 * /proc (a worker may be starting or stopping).
	 */
	for (k = 0; k < 10 && !match; k++) {
		ASSERT_OK(read_counts(&c1));
		tasks = nr_tasks(0);
		ASSERT_OK(read_counts(&c2));
		match = c1.workers == c2.workers &&
			c1.workers > self->base.workers &&
			(self->uw ? tasks - 1 == c1.workers - self->base.workers :
				    tasks == 1);
		if (!match)
			usleep(100000);
	}
	EXPECT_TRUE(match)
		TH_LOG("%d threads in /proc/self/task with %ld workers of this process (%s workers expected)",
		       tasks, c1.workers - self->base.workers,
		       self->uw ? "user" : "kthread");

	/* The set and its workers go with the last file. */
	for (i = 0; i < NFILES; i++)
		ring_close(&r[i]);
	EXPECT_OK(wait_base(&self->base, true, self->uw, 10000, &took));
	TH_LOG("back to the baseline %.0f ms after the last close", took / 1e6);
	free(r);
}

/* ---- pids.max ----------------------------------------------------------- */

#define PIDS_MAX	6
#define PIDS_FILES	8
#define PIDS_ROUNDS	6
#define PIDS_NODES	4

struct pids_arg {
	const char *cg;
	unsigned int sleepers;
	long *child_max;
};

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static void pids_note(struct pids_arg *a)
{
	long long n = cg_read(a->cg, "pids.current", "");

	if (n > *a->child_max)
		*a->child_max = n;
}

static const char *pids_child(void *arg)
{
	struct pids_arg *a = arg;
	struct ring r[PIDS_FILES];
	unsigned int i, f, round;
	const char *w;
	pthread_t t;
	int ret;

	if (move_to(a->cg, getpid()))
		return why("cannot move into %s", a->cg);
	/* Threads that take the pids some workers would want. */
	for (i = 0; i < a->sleepers; i++)
		if (pthread_create(&t, NULL, sleeper, NULL))
			return why("pthread_create %u", i);
	for (f = 0; f < PIDS_FILES; f++) {
		ret = ring_open(&r[f], 16, 0, 0);
		if (ret)
			return why("file %u: %s", f, strerror(-ret));
	}
	for (round = 0; round < PIDS_ROUNDS; round++) {
		for (f = 0; f < PIDS_FILES; f++) {
			if (!push_graph(&r[f], WSCHED_OP_SPIN,
					WSCHED_SPIN_MAX / 16, PIDS_NODES,
					round * PIDS_FILES + f, false))
				return why("SQ full");
			w = submit(&r[f]);
			if (w)
				return w;
			pids_note(a);
		}
		/*
		 * Waiting in ENTER, the submitter runs what the workers it
		 * could have cannot: every graph completes.
		 */
		for (f = 0; f < PIDS_FILES; f++) {
			w = reap_graphs(&r[f], 1, true, NULL, 0, NULL, 120000,
					NULL, NULL);
			if (w)
				return why("round %u, file %u: %s", round, f, w);
			pids_note(a);
		}
	}
	for (f = 0; f < PIDS_FILES; f++)
		ring_close(&r[f]);
	return NULL;
}

TEST_F_TIMEOUT(wk, pids_max, 300)
{
	char cg[256], v[16];
	const char *w;
	long *child_max;
	long long cur, max = 0, ev0, ev1, peak;
	unsigned long samples = 0;
	struct pids_arg a;
	unsigned int room;
	int status = 0;
	pid_t pid, p;
	__u64 end;

	if (!self->uw)
		SKIP(return, "kthread workers (kernel < 6.11) are moved into the cgroup without the fork-time pids check");
	w = cg_make("wsched_pids", "pids", cg, sizeof(cg));
	if (w)
		SKIP(return, "%s", w);
	snprintf(v, sizeof(v), "%d", PIDS_MAX);
	ASSERT_EQ(0, cg_write(cg, "pids.max", v));
	child_max = mmap(NULL, sizeof(*child_max), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, child_max);
	*child_max = 0;
	/*
	 * The set may grow to one worker per CPU: leave room for fewer
	 * (two, or one less than the CPUs), so that pids.max refuses some.
	 */
	room = self->ncpu - 1 < 2 ? self->ncpu - 1 : 2;
	a.cg = cg;
	a.sleepers = PIDS_MAX - 1 - room;
	a.child_max = child_max;
	ev0 = cg_read(cg, "pids.events", "max");

	/* The child, with a sampler: the parent reads pids.current meanwhile. */
	{
		char *msg = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

		ASSERT_NE(MAP_FAILED, msg);
		msg[0] = 0;
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			w = pids_child(&a);
			if (w)
				snprintf(msg, 4096, "%s", w);
			_exit(w ? 1 : 0);
		}
		end = now_ns() + 240 * SEC_NS;
		while ((p = waitpid(pid, &status, WNOHANG)) == 0 &&
		       now_ns() < end) {
			cur = cg_read(cg, "pids.current", "");
			if (cur > max)
				max = cur;
			samples++;
			usleep(1000);
		}
		if (!p) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
		}
		EXPECT_NE(0, p) TH_LOG("the child did not finish in 240 s");
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
			TH_LOG("child (status %#x): %s", status, msg);
		munmap(msg, 4096);
	}
	ev1 = cg_read(cg, "pids.events", "max");
	TH_LOG("pids.max %d, %u pids left for workers: pids.current at most %lld (%lu samples), %ld seen by the child; pids.events max %lld -> %lld",
	       PIDS_MAX, room, max, samples, *child_max, ev0, ev1);
	EXPECT_LT(0, samples);
	/*
	 * pids.current is the kernel's charge counter, and a fork that the
	 * limit refuses raises it before it takes the charge back
	 * (pids_try_charge()): a sample may read one over pids.max while a
	 * fork is being refused.  pids.peak (6.10 and later), the highest
	 * count that a charge which succeeded reached, is the exact bound.
	 * The samples may then pass pids.max only while forks were refused,
	 * and by no more than one: the pool makes its threads one at a time
	 * (under its thread lock), and the child makes its sleepers before
	 * its first graph.
	 */
	peak = cg_read(cg, "pids.peak", "");
	if (peak >= 0) {
		TH_LOG("pids.peak %lld", peak);
		EXPECT_GE(PIDS_MAX, peak);
		EXPECT_GE(PIDS_MAX + 1, max);
		EXPECT_GE(PIDS_MAX + 1, *child_max);
		if (max > PIDS_MAX || *child_max > PIDS_MAX)
			EXPECT_LT(ev0, ev1)
				TH_LOG("pids.current over pids.max with no fork refused");
	} else {
		EXPECT_GE(PIDS_MAX, max);
		EXPECT_GE(PIDS_MAX, *child_max);
	}
	EXPECT_LE(1 + (long)a.sleepers, *child_max)
		TH_LOG("the child never saw itself in its cgroup");
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
	munmap(child_max, sizeof(*child_max));
	EXPECT_EQ(0, cg_remove(cg)) TH_LOG("%s still has tasks", cg);
}

/* ---- cpu.max after a move ----------------------------------------------- */

#define MOVE_NODES	4
#define MOVE_SECS	2

struct move_report {
	__u64 node_ns;		/* one node alone, at full speed */
	__u64 nodes_done;	/* after the move */
	char msg[512];
};

/* The child: make workers, wait to be moved, then keep graphs running. */
static int move_child(int up, int down, struct move_report *rep)
{
	const char *w = NULL;
	__u64 t0, one, iters = WSCHED_SPIN_MAX;
	unsigned int inflight = 0, g = 0;
	struct ring r;
	char c;
	int ret;

	ret = ring_open(&r, 64, 0, 0);
	if (ret) {
		w = why("ring_open: %s", strerror(-ret));
		goto out;
	}
	/* What a node costs (the submitter runs a one-node graph). */
	one = spin_node_ns(&r, iters);
	if (!one) {
		w = "calibration graph failed";
		goto out;
	}
	/* Nodes of about 20 ms at most, so that the run ends soon after 2 s. */
	if (one > 20 * MS_NS) {
		iters = iters * 20 * MS_NS / one;
		if (iters < 4 * SPIN_NOT_CHEAP)
			iters = 4 * SPIN_NOT_CHEAP;
		one = spin_node_ns(&r, iters);
		if (!one) {
			w = "calibration graph failed";
			goto out;
		}
	}
	rep->node_ns = one;
	/* A parallel graph: the set has workers before the move. */
	if (!push_graph(&r, WSCHED_OP_SPIN, iters, MOVE_NODES, g++, false) ||
	    (w = submit(&r)) ||
	    (w = reap_graphs(&r, 1, false, NULL, 0, NULL, 120000, NULL, NULL)))
		goto out;
	if (write(up, "r", 1) != 1 || read(down, &c, 1) != 1 || c != 'g') {
		w = "pipe";
		goto out;
	}
	/* Moved: two graphs in flight at all times for MOVE_SECS, waited in poll(). */
	t0 = now_ns();
	while (now_ns() - t0 < MOVE_SECS * SEC_NS || inflight) {
		while (now_ns() - t0 < MOVE_SECS * SEC_NS && inflight < 2) {
			if (!push_graph(&r, WSCHED_OP_SPIN, iters, MOVE_NODES,
					g++, false)) {
				w = "SQ full";
				goto out;
			}
			w = submit(&r);
			if (w)
				goto out;
			inflight++;
		}
		w = reap_graphs(&r, 1, false, NULL, 0, NULL, 120000, NULL, NULL);
		if (w)
			goto out;
		inflight--;
		rep->nodes_done += MOVE_NODES;
	}
out:
	if (w)
		snprintf(rep->msg, sizeof(rep->msg), "%s", w);
	if (write(up, w ? "x" : "d", 1) != 1)
		return 4;
	/* Stay until told: the parent reads the cgroup first. */
	if (read(down, &c, 1) != 1)
		return 5;
	ring_close(&r);
	return w ? 3 : 0;
}

/* Read one byte from @fd within @secs; the byte, or -1. */
static int read_byte(int fd, unsigned int secs)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&p, 1, secs * 1000) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return c;
}

TEST_F_TIMEOUT(wk, cpu_max_after_move, 300)
{
	char cg[256];
	const char *w = cg_make("wsched_cpu_move", "cpu", cg, sizeof(cg));
	struct move_report *rep;
	int up[2], down[2], status, c;
	long long use0, use;
	__u64 t0, ns;
	double ratio;
	pid_t pid;

	if (w)
		SKIP(return, "%s", w);
	ASSERT_EQ(0, cg_write(cg, "cpu.max", "20000 100000"));
	rep = mmap(NULL, sizeof(*rep), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, rep);
	memset(rep, 0, sizeof(*rep));
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(up[0]);
		close(down[1]);
		_exit(move_child(up[1], down[0], rep));
	}
	close(up[1]);
	close(down[0]);
	c = read_byte(up[0], 120);
	ASSERT_EQ('r', c) TH_LOG("the child failed before the move: %s",
				 rep->msg);
	/* Move the process, its workers made, into the limited cgroup. */
	ASSERT_EQ(0, move_to(cg, pid));
	use0 = cg_read(cg, "cpu.stat", "usage_usec");
	ASSERT_LE(0, use0);
	t0 = now_ns();
	ASSERT_EQ(1, write(down[1], "g", 1));
	c = read_byte(up[0], 200);
	ns = now_ns() - t0;
	use = cg_read(cg, "cpu.stat", "usage_usec") - use0;
	EXPECT_EQ(1, write(down[1], "q", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ('d', c) TH_LOG("the child failed after the move: %s", rep->msg);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status %#x", status);
	ratio = (double)use * 1000 / ns;
	TH_LOG("after the move: %llu nodes of %.1f ms in %.2f s, %.3f s of CPU charged to the cgroup (%.0f%% of one CPU; limit 20%%)",
	       (unsigned long long)rep->nodes_done, rep->node_ns / 1e6,
	       ns / 1e9, use / 1e6, 100 * ratio);
	EXPECT_LT(0, rep->nodes_done);
	/* The nodes ran in the cgroup: a good part of their cost is there ... */
	EXPECT_LT(rep->nodes_done * rep->node_ns / 1000 / 4, use)
		TH_LOG("the graphs' CPU time was not charged to the cgroup");
	EXPECT_LT(0.02, ratio);
	/* ... and held to its limit (with slack for the period's edges). */
	EXPECT_GT(0.35, ratio);
	close(up[0]);
	close(down[1]);
	munmap(rep, sizeof(*rep));
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
	EXPECT_EQ(0, cg_remove(cg)) TH_LOG("%s still has tasks", cg);
}

/* ---- CPU time ------------------------------------------------------------- */

#define RUSAGE_NODES	8

TEST_F_TIMEOUT(wk, rusage, 300)
{
	__u64 one = ~0ULL, c, self0, thr0, self1, thr1, t0, wall;
	struct ring r;
	unsigned int i;

	if (!self->uw)
		SKIP(return, "kthread workers (kernel < 6.11) are not threads of the process: their time is not in its rusage");
	/*
	 * The workers are made by a first graph and stay (not idle long
	 * enough to leave): making them is not the submitter's time below.
	 */
	ASSERT_EQ(0, read_file(PARAM_IDLE, self->idle0, sizeof(self->idle0)))
		TH_LOG("no %s", PARAM_IDLE);
	ASSERT_EQ(0, write_file(PARAM_IDLE, "600000"));
	ASSERT_EQ(0, ring_open(&r, 32, 0, 0));
	ASSERT_TRUE(push_graph(&r, WSCHED_OP_SPIN, WSCHED_SPIN_MAX / 4,
			       RUSAGE_NODES, 0, false));
	ASSERT_OK(submit(&r));
	ASSERT_OK(reap_graphs(&r, 1, false, NULL, 0, NULL, 120000, NULL, NULL));
	/*
	 * What a node costs in CPU time, the least of 3 one-node graphs
	 * (which the submitter runs; the process's time either way).
	 */
	for (i = 0; i < 3; i++) {
		c = cpu_ns(RUSAGE_SELF);
		ASSERT_NE(0, spin_node_ns(&r, WSCHED_SPIN_MAX));
		c = cpu_ns(RUSAGE_SELF) - c;
		if (c < one)
			one = c;
	}
	ASSERT_LT(0, one) TH_LOG("a node took no CPU time");
	self0 = cpu_ns(RUSAGE_SELF);
	thr0 = cpu_ns(RUSAGE_THREAD);
	t0 = now_ns();
	ASSERT_TRUE(push_graph(&r, WSCHED_OP_SPIN, WSCHED_SPIN_MAX,
			       RUSAGE_NODES, 1, false));
	ASSERT_OK(submit(&r));
	ASSERT_OK(reap_graphs(&r, 1, false, NULL, 0, NULL, 120000, NULL, NULL));
	wall = now_ns() - t0;
	self1 = cpu_ns(RUSAGE_SELF);
	thr1 = cpu_ns(RUSAGE_THREAD);
	TH_LOG("%u nodes of %.1f ms of CPU each in %.1f ms: the process's CPU time +%.1f ms, the submitting thread's +%.1f ms",
	       RUSAGE_NODES, one / 1e6, wall / 1e6, (self1 - self0) / 1e6,
	       (thr1 - thr0) / 1e6);
	/* The submitter slept in poll(): the workers ran the nodes ... */
	EXPECT_GT(RUSAGE_NODES * one / 2, thr1 - thr0);
	/* ... and their time is the process's. */
	EXPECT_LE(RUSAGE_NODES * one * 3 / 10, self1 - self0);
	ring_close(&r);
	EXPECT_OK(wait_base(&self->base, true, true, 10000, NULL));
}

/* ---- smoke_whoami: who runs the nodes ---------------------------------- */

FIXTURE(who) {
	struct wcounts base;
	bool uw, loaded;
};

/* Load wsched_smoke.ko if it is not loaded: 1 loaded here, 0 was loaded, -errno. */
static int smoke_load(void)
{
	const char *ko = getenv("WSCHED_SMOKE_KO") ?: SMOKE_DEFAULT_KO;
	int fd = open(ko, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	/* A small fib(): the load's own test is smoke_test's. */
	ret = syscall(SYS_finit_module, fd, "fib_n=10", 0);
	ret = ret ? -errno : 1;
	close(fd);
	return ret == -EEXIST ? 0 : ret;
}

static void smoke_unload(void)
{
	int i;

	/* A node's reference on the module may take a moment to go. */
	for (i = 0; i < 1000; i++) {
		if (!syscall(SYS_delete_module, "wsched_smoke", O_NONBLOCK) ||
		    (errno != EAGAIN && errno != EBUSY))
			return;
		usleep(10000);
	}
}

static const char *whoami_op(int fd, __u32 *op)
{
	struct wsched_op_lookup l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	snprintf(l.info.name, sizeof(l.info.name), "%s", WHOAMI_OP);
	ret = xioctl(fd, WSCHED_IOC_OP_LOOKUP, &l);
	if (ret)
		return why("WSCHED_IOC_OP_LOOKUP %s: %s", WHOAMI_OP,
			   strerror(-ret));
	*op = l.info.op;
	return NULL;
}

FIXTURE_SETUP(who)
{
	const char *w;
	int fd, ret;
	__u32 op;

	self->loaded = false;
	if (geteuid() != 0)
		SKIP(return, "needs root (module loading, setresuid)");
	if (access(DEV_PATH, R_OK | W_OK))
		SKIP(return, "no %s: %s", DEV_PATH, strerror(errno));
	ASSERT_OK(read_counts(&self->base));
	self->uw = user_worker_kernel();
	ret = smoke_load();
	if (ret < 0)
		SKIP(return, "cannot load wsched_smoke.ko (set WSCHED_SMOKE_KO): %s",
		     strerror(-ret));
	self->loaded = ret == 1;
	/* A failed setup has no teardown: unload here. */
	fd = dev_open();
	w = fd < 0 ? why("open: %s", strerror(errno)) : whoami_op(fd, &op);
	if (fd >= 0)
		close(fd);
	if (w && self->loaded)
		smoke_unload();
	ASSERT_OK(w) TH_LOG("wsched_smoke.ko without " WHOAMI_OP "?");
}

/* In the parent, like wk's: a failed ASSERT must not leave it loaded. */
FIXTURE_TEARDOWN_PARENT(who)
{
	if (self->loaded)
		smoke_unload();
}

/* What a child expects of the nodes it runs. */
struct who_arg {
	bool uw;
	int policy;		/* to set before the first graph, or -1 */
	bool drop_first;	/* drop to WHO_UID_USER before the first graph */
	bool root_graph;	/* run a graph as root first (the set exists) */
};

/*
 * Check the values of @n smoke_whoami nodes run for this process: @uid,
 * @policy; on user-worker kernels a thread of this process, never a
 * kthread; elsewhere a node not run by a kthread ran on the submitter.
 */
static const char *who_check(const struct wsched_cqe *c, unsigned int n,
			     unsigned int want, __u32 uid, unsigned int policy,
			     bool uw, unsigned int *by_kthread)
{
	unsigned int i, me = getpid() & TGID_MASK;

	if (n != want)
		return why("%u node completions, not %u", n, want);
	for (i = 0; i < n; i++) {
		__u64 v = c[i].value;

		if (c[i].res || !(c[i].flags & WSCHED_RES_RAN))
			return why("node %#llx: res %d, flags %#x",
				   (unsigned long long)c[i].user_data,
				   c[i].res, c[i].flags);
		if (WHO_UID(v) != uid)
			return why("node %#llx ran as uid %u, not %u",
				   (unsigned long long)c[i].user_data,
				   WHO_UID(v), uid);
		if (WHO_POLICY(v) != policy)
			return why("node %#llx ran with policy %u, not %u",
				   (unsigned long long)c[i].user_data,
				   WHO_POLICY(v), policy);
		if (uw && WHO_KTHREAD(v))
			return why("node %#llx ran on a kthread on a user-worker kernel",
				   (unsigned long long)c[i].user_data);
		if ((uw || !WHO_KTHREAD(v)) && WHO_TGID(v) != me)
			return why("node %#llx ran in process %u, not in the submitter's %u",
				   (unsigned long long)c[i].user_data,
				   WHO_TGID(v), me);
		if (WHO_KTHREAD(v))
			(*by_kthread)++;
	}
	return NULL;
}

static const char *drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(WHO_UID_USER, WHO_UID_USER, WHO_UID_USER) ||
	    setresuid(WHO_UID_USER, WHO_UID_USER, WHO_UID_USER))
		return why("dropping to uid %u: %s", WHO_UID_USER, strerror(errno));
	if (getuid() != WHO_UID_USER || geteuid() != WHO_UID_USER)
		return "the uid did not change";
	return NULL;
}

/*
 * One graph of two smoke_whoami nodes waited for in poll() (workers run
 * them) and one waited for in ENTER (the submitter may run some).
 */
static const char *who_graphs(struct ring *r, __u32 op, __u32 g, __u32 uid,
			      unsigned int policy, bool uw,
			      unsigned int *by_kthread)
{
	struct wsched_cqe c[8];
	const char *w;
	unsigned int n;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		if (!push_graph(r, op, 0, 2, g + pass, true))
			return "SQ full";
		w = submit(r);
		if (!w)
			w = reap_graphs(r, 1, pass == 1, c, 8, &n, 60000,
					NULL, NULL);
		if (!w)
			w = who_check(c, n, 2, uid, policy, uw, by_kthread);
		if (w)
			return why("graph %u (%s): %s", g + pass,
				   pass ? "ENTER" : "poll", w);
	}
	return NULL;
}

static const char *who_child(void *arg)
{
	const struct who_arg *a = arg;
	unsigned int kth = 0, policy = 0;
	const char *w;
	struct ring r;
	__u32 op;
	int fd;

	if (a->policy >= 0) {
		struct sched_param sp = { .sched_priority = 0 };

		if (sched_setscheduler(0, a->policy, &sp))
			return why("sched_setscheduler(%d): %s", a->policy,
				   strerror(errno));
		policy = a->policy;
	}
	/* Opened and set up as root. */
	fd = dev_open();
	if (fd < 0)
		return why("open: %s", strerror(errno));
	if (ring_setup_fd(&r, fd, 16, 0, 0))
		return "SETUP failed";
	w = whoami_op(fd, &op);
	if (w)
		return w;
	if (a->root_graph) {
		/* The set and its workers made while root. */
		w = who_graphs(&r, op, 0, 0, policy, a->uw, &kth);
		if (w)
			return why("as root: %s", w);
	}
	if (a->drop_first) {
		w = drop_privileges();
		if (w)
			return w;
		w = who_graphs(&r, op, 10, WHO_UID_USER, policy, a->uw, &kth);
		if (w)
			return why("as uid %u: %s", WHO_UID_USER, w);
		/* Again, with the set made. */
		w = who_graphs(&r, op, 20, WHO_UID_USER, policy, a->uw, &kth);
		if (w)
			return why("as uid %u, again: %s", WHO_UID_USER, w);
	}
	ring_close(&r);
	return NULL;
}

TEST_F_TIMEOUT(who, whoami, 120)
{
	struct who_arg a = { .uw = self->uw, .policy = -1, .drop_first = true };

	EXPECT_OK(run_child(who_child, &a, 100));
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

TEST_F_TIMEOUT(who, whoami_after_setuid, 120)
{
	struct who_arg a = {
		.uw = self->uw, .policy = -1, .drop_first = true,
		.root_graph = true,
	};

	EXPECT_OK(run_child(who_child, &a, 100));
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

TEST_F_TIMEOUT(who, sched_idle, 120)
{
	struct who_arg a = {
		.uw = self->uw, .policy = SCHED_IDLE, .root_graph = true,
	};

	EXPECT_OK(run_child(who_child, &a, 100));
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

TEST_F_TIMEOUT(who, sched_batch, 120)
{
	struct who_arg a = {
		.uw = self->uw, .policy = SCHED_BATCH, .root_graph = true,
	};

	EXPECT_OK(run_child(who_child, &a, 100));
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

/* ---- SIGKILL with graphs in flight ------------------------------------- */

#define KILL_NODES	16
#define KILL_INFLIGHT	8

static void kill_child(int up)
{
	unsigned int inflight = 0, g = 0;
	struct wsched_cqe c;
	struct ring r;

	if (ring_open(&r, 256, 0, 0))
		_exit(2);
	for (;;) {
		while (inflight < KILL_INFLIGHT &&
		       push_graph(&r, WSCHED_OP_SPIN, WSCHED_SPIN_MAX,
				  KILL_NODES, g, false)) {
			if (submit(&r))
				_exit(3);
			inflight++;
			if (++g == 4 && write(up, "r", 1) != 1)
				_exit(4);
		}
		/* Reap what completed, without running any node. */
		while (ring_reap(&r, &c, 1))
			if (c.flags & WSCHED_CQE_GRAPH)
				inflight--;
		if (inflight >= KILL_INFLIGHT) {
			struct pollfd p = { .fd = r.fd, .events = POLLIN };

			poll(&p, 1, 100);
		}
	}
}

TEST_F_TIMEOUT(wk, sigkill, 180)
{
	struct wcounts c;
	int up[2], status, ch, tasks;
	__u64 t0, took, end;
	pid_t pid, p;

	ASSERT_EQ(0, pipe(up));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(up[0]);
		kill_child(up[1]);
	}
	close(up[1]);
	ch = read_byte(up[0], 120);
	if (ch != 'r') {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ASSERT_EQ('r', ch) TH_LOG("the child failed (status %#x)", status);
	}
	/* Let the workers get going. */
	usleep(300000);
	ASSERT_OK(read_counts(&c));
	tasks = nr_tasks(pid);
	TH_LOG("before SIGKILL: files %ld, worker_sets %ld, user_workers %ld, %d threads in the child",
	       c.files, c.sets, c.workers, tasks);
	EXPECT_EQ(self->base.sets + 1, c.sets);
	EXPECT_LE(self->base.workers + 1, c.workers);
	if (self->uw) {
		EXPECT_LE(2, tasks) TH_LOG("no worker thread in the child");
	} else {
		EXPECT_EQ(1, tasks) TH_LOG("kthread workers in the child's /proc/<pid>/task");
	}
	ASSERT_EQ(0, kill(pid, SIGKILL));
	t0 = now_ns();
	end = t0 + 20 * SEC_NS;
	while ((p = waitpid(pid, &status, WNOHANG)) == 0 && now_ns() < end)
		usleep(10000);
	took = now_ns() - t0;
	EXPECT_EQ(pid, p) TH_LOG("the killed child was not reaped in 20 s");
	if (p != pid)
		waitpid(pid, &status, 0);
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		TH_LOG("child status %#x", status);
	TH_LOG("reaped %.0f ms after SIGKILL", took / 1e6);
	/* Its file, its set and its workers went with it. */
	EXPECT_OK(wait_base(&self->base, true, false, 10000, &took));
	TH_LOG("back to the baseline %.0f ms after the reap", took / 1e6);
	close(up[0]);
}

/* ---- a worker stopped by its set's teardown, releasing a file --------- */

/* The first CPU the caller may use, or -1. */
static int first_allowed_cpu(void)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

/* One graph through @r that workers of the caller's own set run. */
static const char *graph_on_workers(struct ring *r, __u32 g)
{
	const char *w;

	if (!push_graph(r, WSCHED_OP_SPIN, SPIN_NOT_CHEAP, 2, g, false))
		return why("SQ full");
	w = submit(r);
	if (w)
		return w;
	return reap_graphs(r, 1, false, NULL, 0, NULL, 60000, NULL, NULL);
}

/*
 * The process of stopped_worker_exit, on one CPU: a file whose only
 * set is a dead child's, kept by a mapping alone, and a file of its own
 * with a worker that is asleep when the process exits.
 */
static const char *stop_child(void *arg)
{
	struct sched_param fifo = { .sched_priority = 1 };
	bool uw = *(bool *)arg;
	struct ring kept, mine;
	int cpu = first_allowed_cpu(), status, tasks;
	const char *w;
	cpu_set_t one;
	pid_t pid;

	if (cpu < 0)
		return why("sched_getaffinity: %s", strerror(errno));
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	/* Our workers take this mask when they are made. */
	if (sched_setaffinity(0, sizeof(one), &one))
		return why("sched_setaffinity: %s", strerror(errno));
	if (ring_open(&kept, 8, 0, 0))
		return why("ring_open: %s", strerror(errno));
	/* A child runs a graph through the file: the file keeps its set. */
	pid = fork();
	if (pid < 0)
		return why("fork: %s", strerror(errno));
	if (!pid)
		_exit(graph_on_workers(&kept, 0) ? 1 : 0);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return why("the grandchild failed (status %#x)", status);
	/* From now on only our mm holds the file, through the rings. */
	close(kept.fd);
	kept.fd = -1;
	if (ring_open(&mine, 8, 0, 0))
		return why("ring_open: %s", strerror(errno));
	w = graph_on_workers(&mine, 1);
	if (w)
		return w;
	tasks = nr_tasks(getpid());
	if (uw && tasks < 2)
		return why("no worker thread in the process (%d tasks)", tasks);
	/*
	 * Let the worker stop spinning and go to sleep: the set's teardown
	 * waits for an idle set, and that wait would let it run first.
	 */
	usleep(100000);
	/* Only our fd holds @mine: its release is the exit's own. */
	ring_unmap(&mine);
	/*
	 * Exit above our worker's class: the release of @mine stops the
	 * worker before the worker may handle its SIGKILL, and takes the
	 * CPU back, freeing the set, as soon as the worker has left its
	 * loop.  The worker, last user of the mm, then unmaps @kept and
	 * releases that file, destroying the dead child's set.
	 */
	if (sched_setscheduler(0, SCHED_FIFO, &fifo))
		return why("SCHED_FIFO: %s", strerror(errno));
	return NULL;
}

/*
 * A worker thread stopped by its set's teardown while asleep, whose own
 * exit then releases another /dev/wsched file, must not be taken for a
 * worker of any pool: its set, and the slot it had, are gone by then.
 * A stale slot pointer showed as a use after free (KASAN) or as a WARN
 * in the destruction of a newer set at the same address.  The same
 * scenario 20 times; everything must be gone afterwards.
 */
TEST_F_TIMEOUT(wk, stopped_worker_exit, 300)
{
	__u64 took;
	int i;

	for (i = 0; i < 20; i++)
		ASSERT_OK(run_child(stop_child, &self->uw, 120))
			TH_LOG("round %d", i);
	EXPECT_OK(wait_base(&self->base, true, false, 10000, &took));
	TH_LOG("back to the baseline %.0f ms after the last exit", took / 1e6);
}

/* ---- WSCHED_IOC_MAX_WORKERS -------------------------------------------- */

static int max_workers(int fd, __u32 in, __u32 *out)
{
	__u32 v = in;
	int ret = xioctl(fd, WSCHED_IOC_MAX_WORKERS, &v);

	*out = v;
	return ret;
}

TEST_F_TIMEOUT(wk, max_workers, 180)
{
	struct ring r;
	struct peak pk;
	__u32 v = 0xdead;

	ASSERT_EQ(0, ring_open(&r, 16, 0, 0));
	/* A fresh file has no cap of its own. */
	ASSERT_EQ(0, max_workers(r.fd, 0, &v));
	EXPECT_EQ(0, v);
	ASSERT_EQ(0, max_workers(r.fd, 1, &v));
	EXPECT_EQ(0, v);
	ASSERT_EQ(0, max_workers(r.fd, 0, &v));
	EXPECT_EQ(1, v);
	/* Four parallel nodes, none run by the submitter: one worker at most. */
	peak_init(&pk);
	peak_sample(&pk);
	ASSERT_TRUE(push_graph(&r, WSCHED_OP_SPIN, WSCHED_SPIN_MAX / 4, 4, 1,
			       false));
	ASSERT_OK(submit(&r));
	ASSERT_OK(reap_graphs(&r, 1, false, NULL, 0, NULL, 120000,
			      peak_sample, &pk));
	peak_sample(&pk);
	TH_LOG("cap 1: at most %ld workers (baseline %ld) in %u samples, %d CPUs",
	       pk.max_workers, self->base.workers, pk.samples, self->ncpu);
	EXPECT_GE(self->base.workers + 1, pk.max_workers);
	/* Still 1; a cap above the CPUs is accepted. */
	ASSERT_EQ(0, max_workers(r.fd, 1024, &v));
	EXPECT_EQ(1, v);
	ASSERT_EQ(0, max_workers(r.fd, 0, &v));
	EXPECT_TRUE(v == 1024 || (int)v >= self->ncpu)
		TH_LOG("cap 1024 read back as %u", v);
	ring_close(&r);
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

/* ---- a node that splits its range --------------------------------------- */

/*
 * A graph of one crc32c node over 8 MiB, waited for by its submitter: the
 * node splits its range (WS_OP_SPLIT), so the graph asks for threads
 * beside the submitter, which would otherwise run the whole reduction
 * alone.  The value must be right whoever ran the pieces.
 */
TEST_F_TIMEOUT(wk, split_node_workers, 180)
{
	const size_t len = 8 << 20;
	struct wsched_buf b = { .len = len };
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
	};
	struct wsched_cqe c[2];
	struct wsched_sqe e;
	struct wcounts after;
	struct ring r;
	unsigned int n = 0;
	__u8 *mem;

	if (self->ncpu < 2)
		SKIP(return, "one CPU: no thread to make beside the submitter");
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, mem);
	rnd_seed(0x5b1177ULL);
	fill_random(mem, len);
	b.addr = (uintptr_t)mem;
	ASSERT_EQ(0, ring_open(&r, 16, 0, 0));
	ASSERT_EQ(0, xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	sqe_range(&e, WSCHED_OP_CRC32C, 0, 0, len, 0, ~0U, UD(1, 0));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(&r, &e));
	/* Submit and wait in one call: the submitter takes part. */
	ASSERT_EQ(0, ring_enter(&r, 1, 2, WSCHED_ENTER_GETEVENTS,
				60ULL * SEC_NS, NULL));
	while (n < 2 && ring_reap(&r, &c[n], 1))
		n++;
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, c[0].res);
	EXPECT_FALSE(c[0].flags & WSCHED_CQE_GRAPH);
	EXPECT_EQ(wsched_crc32c_sw(~0U, mem, len), (__u32)c[0].value);
	EXPECT_TRUE(c[1].flags & WSCHED_CQE_GRAPH);
	EXPECT_EQ(0, c[1].res);
	/* Idle threads stay worker_idle_ms (5 s): still counted now. */
	ASSERT_OK(read_counts(&after));
	TH_LOG("one crc32c node over 8 MiB: %ld workers (baseline %ld), %d CPUs",
	       after.workers - self->base.workers, self->base.workers,
	       self->ncpu);
	EXPECT_LE(self->base.workers + 1, after.workers)
		TH_LOG("no thread was made for a node that splits its range");
	EXPECT_GE(self->base.workers + self->ncpu, after.workers);
	ring_close(&r);
	munmap(mem, len);
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

/* ---- idle workers exit ------------------------------------------------- */

TEST_F_TIMEOUT(wk, idle_workers_exit, 180)
{
	struct wcounts c;
	struct ring r;
	struct peak pk;
	__u64 t0, took;

	ASSERT_EQ(0, read_file(PARAM_IDLE, self->idle0, sizeof(self->idle0)))
		TH_LOG("no %s", PARAM_IDLE);
	EXPECT_STREQ("5000", self->idle0);
	ASSERT_EQ(0, write_file(PARAM_IDLE, "1000"));
	ASSERT_EQ(0, ring_open(&r, 16, 0, 0));
	peak_init(&pk);
	ASSERT_TRUE(push_graph(&r, WSCHED_OP_SPIN, WSCHED_SPIN_MAX / 4, 4, 1,
			       false));
	ASSERT_OK(submit(&r));
	ASSERT_OK(reap_graphs(&r, 1, false, NULL, 0, NULL, 120000,
			      peak_sample, &pk));
	peak_sample(&pk);
	EXPECT_LE(self->base.workers + 1, pk.max_workers);
	/* Idle for worker_idle_ms, they go; the file stays open. */
	t0 = now_ns();
	for (;;) {
		ASSERT_OK(read_counts(&c));
		if (c.workers == self->base.workers || now_ns() - t0 > 20 * SEC_NS)
			break;
		usleep(20000);
	}
	took = now_ns() - t0;
	TH_LOG("worker_idle_ms 1000: %ld workers, %ld left %.0f ms after the graph",
	       pk.max_workers - self->base.workers,
	       c.workers - self->base.workers, took / 1e6);
	EXPECT_EQ(self->base.workers, c.workers)
		TH_LOG("idle workers still there after 20 s");
	EXPECT_EQ(self->base.files + 1, c.files);
	/* The next graph makes what it needs again. */
	ASSERT_TRUE(push_graph(&r, WSCHED_OP_SPIN, WSCHED_SPIN_MAX / 4, 4, 2,
			       false));
	ASSERT_OK(submit(&r));
	EXPECT_OK(reap_graphs(&r, 1, false, NULL, 0, NULL, 120000, NULL, NULL));
	ring_close(&r);
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

/* ---- a graph submitted as the idle workers leave ------------------------ */

#define LEAVE_ROUNDS	20

/*
 * A worker that left for being idle is no longer counted, but on
 * user-worker kernels its slot is free only once its thread has exited
 * (a work item stops it).  A graph submitted in between must still get a
 * thread: the submitter waits in poll() and runs no node itself, so a
 * graph without one would never complete.  Each round submits as soon as
 * the count drops, which is when the slots are most likely still held.
 */
TEST_F_TIMEOUT(wk, submit_as_workers_leave, 300)
{
	struct wcounts c;
	struct ring r;
	unsigned int round;
	__u64 t0;

	ASSERT_EQ(0, read_file(PARAM_IDLE, self->idle0, sizeof(self->idle0)))
		TH_LOG("no %s", PARAM_IDLE);
	ASSERT_EQ(0, write_file(PARAM_IDLE, "20"));
	ASSERT_EQ(0, ring_open(&r, 16, 0, 0));
	for (round = 0; round < LEAVE_ROUNDS; round++) {
		ASSERT_TRUE(push_graph(&r, WSCHED_OP_SPIN, 4 * SPIN_NOT_CHEAP,
				       2, round + 1, false));
		ASSERT_OK(submit(&r));
		ASSERT_OK(reap_graphs(&r, 1, false, NULL, 0, NULL, 30000,
				      NULL, NULL))
			TH_LOG("round %u: the graph did not complete", round);
		/* No sleep: submit the next one the moment they are gone. */
		t0 = now_ns();
		do {
			ASSERT_OK(read_counts(&c));
		} while (c.workers != self->base.workers &&
			 now_ns() - t0 < 20 * SEC_NS);
		ASSERT_EQ(self->base.workers, c.workers)
			TH_LOG("round %u: idle workers still there after 20 s",
			       round);
	}
	ring_close(&r);
	EXPECT_OK(wait_base(&self->base, true, false, 10000, NULL));
}

TEST_HARNESS_MAIN
