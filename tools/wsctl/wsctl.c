// SPDX-License-Identifier: GPL-2.0
/*
 * wsctl: command-line tool for /dev/wsched (the wsched work-stealing
 * pool), built on libwsched.
 *
 *   wsctl run FILE|-          run a task graph described in a text file
 *   wsctl ops                 list the operations graphs can use
 *   wsctl info                what the kernel supports (WSCHED_IOC_PROBE)
 *   wsctl stats [POOL]        per-CPU scheduler counters (debugfs)
 *   wsctl top [POOL] ...      their per-second rates, refreshed
 *   wsctl crc32c FILE         checksum FILE in the kernel and in user space
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "wsctl.h"

const char *wsctl_prog = "wsctl";

void wsctl_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wsctl_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

double wsctl_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* "EIO" for 5; "E1234" if it has no name. */
const char *wsctl_errname(int err)
{
	static char buf[16];
	const char *name = err > 0 ? strerrorname_np(err) : NULL;

	if (name)
		return name;
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

/* "EIO", "5" or "-5" to 5; returns 0 or -1. */
int wsctl_errno_parse(const char *s, int *err)
{
	char *end;
	long v;
	int e;

	if (*s == 'E') {
		for (e = 1; e <= 4095; e++) {
			const char *name = strerrorname_np(e);

			if (name && !strcmp(name, s)) {
				*err = e;
				return 0;
			}
		}
		return -1;
	}
	v = strtol(s, &end, 0);
	if (*end || !v)
		return -1;
	if (v < 0)
		v = -v;
	if (v > 4095)
		return -1;
	*err = (int)v;
	return 0;
}

void wsctl_hex(const unsigned char *p, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

int wsctl_open_ring(struct wsched_ring *ring, unsigned int entries)
{
	int ret = wsched_queue_init(entries, ring, WSCHED_SETUP_CLAMP);

	switch (ret) {
	case 0:
		break;
	case -ENOENT:
	case -ENXIO:
	case -ENODEV:
		wsctl_err("%s: %s (is wsched.ko loaded?)", WSCHED_DEVICE, strerror(-ret));
		break;
	case -EACCES:
	case -EPERM:
		wsctl_err("%s: %s (root only unless a udev rule says otherwise)",
			  WSCHED_DEVICE, strerror(-ret));
		break;
	case -ENOTTY:
		wsctl_err("%s: no ring support in this wsched.ko (%s)", WSCHED_DEVICE,
			  strerror(-ret));
		break;
	default:
		wsctl_err("%s: ring setup: %s", WSCHED_DEVICE, strerror(-ret));
	}
	return ret;
}

static void flag_names(__u32 flags, char *out, size_t len)
{
	static const char *const names[] = { "range", "range2", "builtin" };
	size_t i, n = 0;

	out[0] = '\0';
	for (i = 0; i < 3; i++)
		if (flags & (1U << i))
			n += snprintf(out + n, n < len ? len - n : 0, "%s%s", n ? "," : "",
				      names[i]);
	if (flags >> 3)
		snprintf(out + n, n < len ? len - n : 0, "%s0x%x", n ? "," : "", flags >> 3 << 3);
}

static int cmd_ops(int argc, char **argv)
{
	struct wsched_op_info *infos;
	struct wsched_ring ring;
	int n, i;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: %s ops\n", wsctl_prog);
		return 2;
	}
	if (wsctl_open_ring(&ring, 1))
		return 2;
	n = wsched_op_list(&ring, NULL, 0);
	if (n < 0) {
		wsctl_err("WSCHED_IOC_OP_LIST: %s", strerror(-n));
		wsched_queue_exit(&ring);
		return 2;
	}
	/* Room for a few registered meanwhile. */
	infos = calloc(n + 16, sizeof(*infos));
	if (!infos) {
		wsched_queue_exit(&ring);
		return 2;
	}
	n = wsched_op_list(&ring, infos, n + 16);
	if (n > 0) {
		printf("%5s  %-31s %s\n", "op", "name", "uses");
		for (i = 0; i < n && i < n + 16; i++) {
			char flags[64];

			flag_names(infos[i].flags, flags, sizeof(flags));
			printf("%5u  %-31.31s %s\n", infos[i].op, infos[i].name, flags);
		}
	} else if (n < 0) {
		wsctl_err("WSCHED_IOC_OP_LIST: %s", strerror(-n));
	}
	free(infos);
	wsched_queue_exit(&ring);
	return n < 0 ? 2 : 0;
}

static int cmd_info(int argc, char **argv)
{
	static const char *const feats[] = { "graph", "rings", "buffers", "op_names" };
	struct wsched_probe p;
	unsigned int i;
	int ret;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: %s info\n", wsctl_prog);
		return 2;
	}
	ret = wsched_probe(NULL, &p);
	if (ret) {
		wsctl_err("%s: probe: %s", WSCHED_DEVICE, strerror(-ret));
		return 2;
	}
	printf("abi version     %u\n", p.version);
	printf("features       ");
	for (i = 0; i < 4; i++)
		if (p.features & (1ULL << i))
			printf(" %s", feats[i]);
	if (p.features >> 4)
		printf(" 0x%llx", (unsigned long long)(p.features >> 4 << 4));
	printf("\nbuilt-in ops   ");
	for (i = 0; i < 64; i++)
		if (p.ops & (1ULL << i)) {
			const char *name = wsched_op_name(i);

			if (name)
				printf(" %s", name);
			else
				printf(" %u", i);
		}
	printf("\nworkers         %u\n", p.nr_workers);
	printf("max nodes       %u per graph\n", p.max_nodes);
	printf("max preds       %u per node\n", p.max_preds);
	printf("max spin        %u\n", p.max_spin);
	printf("max in flight   %u nodes per open file\n", p.max_inflight);
	printf("max pinned      %llu bytes per open file\n", (unsigned long long)p.max_pinned);
	printf("max sq entries  %u\n", p.max_sq_entries);
	printf("max cq entries  %u\n", p.max_cq_entries);
	printf("sqe flags       0x%x\n", p.sqe_flags);
	return 0;
}

/* wsctl crc32c FILE ------------------------------------------------------ */

enum { N_CRC, N_XXH, N_SHA, N_END, N_NODES };

static int read_file(const char *path, unsigned char **data, size_t *size)
{
	struct stat st;
	size_t got = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		wsctl_err("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    (unsigned long long)st.st_size > WSCHED_BUF_MAX_LEN) {
		wsctl_err("%s: need a regular file of 1 byte to %llu bytes", path,
			  (unsigned long long)WSCHED_BUF_MAX_LEN);
		close(fd);
		return -1;
	}
	*size = (size_t)st.st_size;
	if (posix_memalign((void **)data, 4096, *size)) {
		wsctl_err("%s: out of memory for %zu bytes", path, *size);
		close(fd);
		return -1;
	}
	while (got < *size) {
		r = read(fd, *data + got, *size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			wsctl_err("%s: read: %s", path, r ? strerror(errno) : "file shrank");
			free(*data);
			close(fd);
			return -1;
		}
		got += (size_t)r;
	}
	close(fd);
	return 0;
}

static int cmd_crc32c(int argc, char **argv)
{
	static const char *const what[N_NODES] = { "crc32c", "xxhash64", "sha256", "nop" };
	static __u32 join[] = { N_CRC, N_XXH, N_SHA };
	struct wsched_cqe cqes[N_NODES], graph;
	struct wsctl_stats s0, s1;
	struct wsched_ring ring;
	struct wsched_probe p;
	struct wsched_sqe *sqe;
	struct wsched_cqe *cqe;
	struct iovec iov[2];
	unsigned char *data, *digest = NULL, udigest[32];
	char err[600], khex[65], uhex[65];
	int have0, have1 = 0, got_graph = 0, seen[N_NODES] = { 0 };
	int ret, i, status = 2, mismatch = 0;
	double t0, t1, tu[3];
	__u32 ucrc, kcrc;
	__u64 uxxh;
	size_t size;

	if (argc != 2) {
		fprintf(stderr, "usage: %s crc32c FILE\n", wsctl_prog);
		return 2;
	}
	if (read_file(argv[1], &data, &size))
		return 2;
	if (wsctl_open_ring(&ring, 8))
		goto out_free;
	ret = wsched_probe(&ring, &p);
	if (ret) {
		wsctl_err("probe: %s", strerror(-ret));
		goto out_ring;
	}
	if (!(p.features & WSCHED_FEAT_BUFFERS)) {
		wsctl_err("this wsched.ko has no registered buffers");
		goto out_ring;
	}
	if (size > p.max_pinned) {
		wsctl_err("%s: %zu bytes is more than the %llu bytes a file may pin (module parameter max_pinned_mb)",
			  argv[1], size, (unsigned long long)p.max_pinned);
		goto out_ring;
	}
	if (posix_memalign((void **)&digest, 64, 64))
		goto out_ring;
	memset(digest, 0, 64);
	iov[0].iov_base = data;
	iov[0].iov_len = size;
	iov[1].iov_base = digest;
	iov[1].iov_len = 32;
	ret = wsched_register_buffers(&ring, iov, 2);
	if (ret) {
		wsctl_err("register %zu bytes: %s%s", size, strerror(-ret),
			  ret == -ENOMEM ? " (RLIMIT_MEMLOCK? max_pinned_mb?)" : "");
		goto out_ring;
	}
	memset(cqes, 0, sizeof(cqes));
	have0 = !wsctl_stats_read("system", &s0, err, sizeof(err));

	/* Three checksums of the whole buffer in parallel, joined by a nop. */
	if (wsched_sq_space_left(&ring) < N_NODES) {
		wsctl_err("SQ too small");
		goto out_stats;
	}
	for (i = 0; i < N_NODES; i++) {
		sqe = wsched_get_sqe(&ring);
		if (!sqe)
			goto out_stats;
		switch (i) {
		case N_CRC:
			wsched_prep_crc32c(sqe, 0, 0, size, ~0U);
			break;
		case N_XXH:
			wsched_prep_xxhash64(sqe, 0, 0, size, 0);
			break;
		case N_SHA:
			wsched_prep_sha256(sqe, 0, 0, size, 1, 0);
			break;
		default:
			wsched_prep_nop(sqe);
			wsched_sqe_set_preds(sqe, join, 3);
			wsched_sqe_set_graph_end(sqe);
		}
		wsched_sqe_set_data64(sqe, i);
	}

	t0 = wsctl_now();
	ret = wsched_submit(&ring);
	if (ret != N_NODES) {
		wsctl_err("submit: %s", ret < 0 ? strerror(-ret) : "not all entries consumed");
		goto out_stats;
	}
	while (!got_graph) {
		ret = wsched_wait_cqe(&ring, &cqe);
		if (ret) {
			wsctl_err("wait: %s", strerror(-ret));
			goto out_stats;
		}
		if (wsched_cqe_is_graph(cqe)) {
			graph = *cqe;
			got_graph = 1;
		} else if (cqe->user_data < N_NODES) {
			cqes[cqe->user_data] = *cqe;
			seen[cqe->user_data] = 1;
		}
		wsched_cqe_seen(&ring, cqe);
	}
	t1 = wsctl_now();
	if (have0)
		have1 = !wsctl_stats_read("system", &s1, err, sizeof(err));

	/* The same in user space, one after the other. */
	tu[0] = wsctl_now();
	ucrc = ~wsched_crc32c_sw(~0U, data, size);
	tu[0] = wsctl_now() - tu[0];
	tu[1] = wsctl_now();
	uxxh = wsched_xxhash64_sw(data, size, 0);
	tu[1] = wsctl_now() - tu[1];
	tu[2] = wsctl_now();
	wsched_sha256_sw(data, size, udigest);
	tu[2] = wsctl_now() - tu[2];

	printf("file %s: %zu bytes\n", argv[1], size);
	printf("/dev/wsched: one graph, crc32c + xxhash64 + sha256 in parallel, joined by a nop:\n");
	printf("  graph res %d%s%s, %llu of %u nodes ran, %.3f ms\n", graph.res,
	       graph.res ? " " : "", graph.res ? wsctl_errname(-graph.res) : "",
	       (unsigned long long)graph.value, graph.seq, (t1 - t0) * 1e3);
	for (i = 0; i < N_NODES; i++) {
		if (!seen[i]) {
			printf("  %-9s no completion\n", what[i]);
			mismatch = 1;
		} else if (cqes[i].res) {
			printf("  %-9s failed: res %d (%s), flags 0x%x\n", what[i], cqes[i].res,
			       wsctl_errname(-cqes[i].res), cqes[i].flags);
			mismatch = 1;
		}
	}
	printf("user space: crc32c %.3f ms, xxhash64 %.3f ms, sha256 %.3f ms (one thread)\n",
	       tu[0] * 1e3, tu[1] * 1e3, tu[2] * 1e3);

	/* The kernel's crc32c value is raw: the standard CRC-32C is ~value. */
	kcrc = ~(__u32)cqes[N_CRC].value;
	wsctl_hex(digest, 32, khex);
	wsctl_hex(udigest, 32, uhex);
	printf("%-9s %-16s %s\n", "", "kernel", "user");
	if (seen[N_CRC] && !cqes[N_CRC].res) {
		printf("%-9s %-16.8x %-16.8x %s   (CRC-32C; kernel raw value 0x%08x, seq %u)\n",
		       "crc32c", kcrc, ucrc, kcrc == ucrc ? "match" : "MISMATCH",
		       (__u32)cqes[N_CRC].value, cqes[N_CRC].seq);
		mismatch |= kcrc != ucrc;
	}
	if (seen[N_XXH] && !cqes[N_XXH].res) {
		printf("%-9s %016llx %016llx %s   (seed 0, seq %u)\n", "xxhash64",
		       (unsigned long long)cqes[N_XXH].value, (unsigned long long)uxxh,
		       cqes[N_XXH].value == uxxh ? "match" : "MISMATCH", cqes[N_XXH].seq);
		mismatch |= cqes[N_XXH].value != uxxh;
	}
	if (seen[N_SHA] && !cqes[N_SHA].res) {
		printf("%-9s kernel %s (seq %u)\n", "sha256", khex, cqes[N_SHA].seq);
		printf("%-9s user   %s %s\n", "", uhex, strcmp(khex, uhex) ? "MISMATCH" : "match");
		mismatch |= !!strcmp(khex, uhex);
	}
	if (have0 && have1) {
		printf("scheduler counters, pool system:");
		wsctl_stats_print_delta(stdout, &s0, &s1);
	} else {
		printf("scheduler counters: not available (%s)\n", err);
	}
	printf("%s\n", mismatch ? "RESULT: MISMATCH" : "RESULT: all match");
	status = mismatch;
out_stats:
	if (have0)
		wsctl_stats_free(&s0);
	if (have1)
		wsctl_stats_free(&s1);
out_ring:
	wsched_queue_exit(&ring);
	free(digest);
out_free:
	free(data);
	return status;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: %s COMMAND [ARGS]\n"
		"  run [-n N] [-q] [-c] FILE|-  run the task graph described in FILE\n"
		"  ops                          list the operations of /dev/wsched\n"
		"  info                         limits and features of /dev/wsched\n"
		"  stats [POOL]                 per-CPU scheduler counters (all pools)\n"
		"  top [POOL] [-n N] [-d SEC] [-a]  their rates per second, refreshed\n"
		"  crc32c FILE                  crc32c, xxhash64 and sha256 of FILE in the\n"
		"                               kernel and in user space, compared\n"
		"Graph files: see tools/wsctl/README.md.\n",
		wsctl_prog);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "run", cmd_run }, { "ops", cmd_ops }, { "info", cmd_info },
		{ "stats", cmd_stats }, { "top", cmd_top }, { "crc32c", cmd_crc32c },
	};
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	wsctl_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}
