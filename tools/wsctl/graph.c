// SPDX-License-Identifier: GPL-2.0
/*
 * wsctl run: read a task graph from a small text format, register its
 * buffers, submit it through the rings, and print what became of each
 * node.  The format is described in tools/wsctl/README.md; in short:
 *
 *	# comment
 *	buf NAME SIZE [zero | fill BYTE | random SEED | text WORD | file PATH]
 *	node NAME OP [RANGE] [RANGE2 | ARG] [after N1,N2...] [soft] [nocqe]
 *		[expect ok|cancelled|any|ERRNO] [value V] [verify]
 *	dump RANGE
 *
 * RANGE is BUF[:OFF[:LEN]].  The last node ends the graph.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "wsctl.h"

#define NAME_MAX_LEN	48
#define MAX_TOKENS	(WSCHED_MAX_PREDS + 32)

enum arg_kind { ARG_NONE, ARG_REQUIRED, ARG_OPTIONAL, ARG_ERRNO };
enum expect_kind { EXPECT_OK, EXPECT_ERR, EXPECT_CANCELLED, EXPECT_ANY };

struct builtin {
	const char *name;
	__u32 op;
	__u32 flags;		/* WSCHED_OPINFO_RANGE, _RANGE2 */
	enum arg_kind arg;
	__u64 arg_default;
};

static const struct builtin builtins[] = {
	{ "nop", WSCHED_OP_NOP, 0, ARG_NONE, 0 },
	{ "spin", WSCHED_OP_SPIN, 0, ARG_REQUIRED, 0 },
	{ "fail", WSCHED_OP_FAIL, 0, ARG_ERRNO, 0 },
	{ "memcpy", WSCHED_OP_MEMCPY, WSCHED_OPINFO_RANGE | WSCHED_OPINFO_RANGE2, ARG_NONE, 0 },
	{ "memset", WSCHED_OP_MEMSET, WSCHED_OPINFO_RANGE, ARG_REQUIRED, 0 },
	{ "memcmp", WSCHED_OP_MEMCMP, WSCHED_OPINFO_RANGE | WSCHED_OPINFO_RANGE2, ARG_NONE, 0 },
	{ "crc32c", WSCHED_OP_CRC32C, WSCHED_OPINFO_RANGE, ARG_OPTIONAL, 0xFFFFFFFFU },
	{ "xxhash64", WSCHED_OP_XXHASH64, WSCHED_OPINFO_RANGE, ARG_OPTIONAL, 0 },
	{ "sha256", WSCHED_OP_SHA256, WSCHED_OPINFO_RANGE | WSCHED_OPINFO_RANGE2, ARG_NONE, 0 },
};

struct gbuf {
	char name[NAME_MAX_LEN];
	size_t size;
	unsigned char *mem;
	int line;
};

struct gnode {
	char name[NAME_MAX_LEN];
	char opname[WSCHED_OP_NAME_MAX];
	int line;
	int builtin;			/* index in builtins[], or -1 */
	__u32 op;
	__u32 opflags;
	__u32 flags;			/* WSCHED_NODE_SOFT_FAIL, WSCHED_SQE_NO_CQE */
	__u32 buf, buf2;
	__u64 off, len, arg;
	__u32 preds[WSCHED_MAX_PREDS];
	unsigned int nr_preds;
	enum expect_kind expect;
	int expect_err;			/* EXPECT_ERR: positive errno */
	int has_value, has_digest, verify;
	__u64 value;
	unsigned char digest[32];
	/* outcome of the last run */
	int done;
	struct wsched_cqe cqe;
};

struct gdump {
	__u32 buf;
	__u64 off, len;
	int line;
};

struct graph {
	const char *file;
	struct gbuf bufs[WSCHED_MAX_BUFS];
	unsigned int nr_bufs;
	struct gnode *nodes;
	unsigned int nr_nodes, room;
	struct gdump dumps[64];
	unsigned int nr_dumps;
	struct wsched_ring *ring;	/* for registered ops; NULL: dry run */
	int line;
};

static int perr(struct graph *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int perr(struct graph *g, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", g->file, g->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* A number, with an optional K, M or G (binary) suffix. */
static int parse_num(const char *s, __u64 *v)
{
	unsigned long long x;
	char *end;
	int shift = 0;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || (shift && x > (~0ULL >> shift)))
		return -1;
	*v = (__u64)x << shift;
	return 0;
}

/* parse_num() that also takes "-N" (as two's complement). */
static int parse_value(const char *s, __u64 *v)
{
	if (*s == '-') {
		if (parse_num(s + 1, v))
			return -1;
		*v = -*v;
		return 0;
	}
	return parse_num(s, v);
}

static int valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("_.-", *s))
			return 0;
	return 1;
}

static int find_buf(const struct graph *g, const char *name)
{
	unsigned int i;

	for (i = 0; i < g->nr_bufs; i++)
		if (!strcmp(g->bufs[i].name, name))
			return (int)i;
	return -1;
}

static int find_node(const struct graph *g, const char *name)
{
	unsigned int i;

	for (i = 0; i < g->nr_nodes; i++)
		if (!strcmp(g->nodes[i].name, name))
			return (int)i;
	return -1;
}

/* BUF[:OFF[:LEN]]; *len_given tells whether LEN was there. */
static int parse_range(struct graph *g, const char *s, __u32 *buf, __u64 *off,
		       __u64 *len, int *len_given)
{
	char tmp[256], *p, *q;
	int b;

	snprintf(tmp, sizeof(tmp), "%s", s);
	p = strchr(tmp, ':');
	if (p)
		*p++ = '\0';
	b = find_buf(g, tmp);
	if (b < 0)
		return perr(g, "no buffer '%s' (declare it with a buf line first)", tmp);
	*buf = (__u32)b;
	*off = 0;
	*len = 0;
	*len_given = 0;
	if (!p)
		return 0;
	q = strchr(p, ':');
	if (q)
		*q++ = '\0';
	if (*p && parse_num(p, off))
		return perr(g, "bad offset '%s' in '%s'", p, s);
	if (q) {
		if (parse_num(q, len))
			return perr(g, "bad length '%s' in '%s'", q, s);
		*len_given = 1;
	}
	return 0;
}

static __u64 rest_of(const struct gbuf *b, __u64 off)
{
	return off < b->size ? b->size - off : 0;
}

static int read_whole_file(struct graph *g, const char *path, unsigned char **mem,
			   size_t *size)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	size_t got;

	if (!f || fstat(fileno(f), &st) || !S_ISREG(st.st_mode)) {
		if (f)
			fclose(f);
		return perr(g, "%s: %s", path, f ? "not a regular file" : strerror(errno));
	}
	*size = (size_t)st.st_size;
	*mem = malloc(*size ? *size : 1);
	if (!*mem) {
		fclose(f);
		return perr(g, "%s: out of memory", path);
	}
	got = fread(*mem, 1, *size, f);
	fclose(f);
	if (got != *size) {
		free(*mem);
		return perr(g, "%s: short read", path);
	}
	return 0;
}

/* buf NAME SIZE [zero | fill BYTE | random SEED | text WORD | file PATH] */
static int parse_buf(struct graph *g, char **w, int n)
{
	struct gbuf *b;
	unsigned char *src = NULL;
	size_t src_len = 0;
	__u64 size = 0, x;
	int auto_size;

	if (n < 3 || n == 4 || n > 5)
		return perr(g, "usage: buf NAME SIZE|- [zero | fill BYTE | random SEED | text WORD | file PATH]");
	if (g->nr_bufs == WSCHED_MAX_BUFS)
		return perr(g, "more than %d buffers", WSCHED_MAX_BUFS);
	if (!valid_name(w[1]) || strlen(w[1]) >= NAME_MAX_LEN)
		return perr(g, "bad buffer name '%s'", w[1]);
	if (find_buf(g, w[1]) >= 0)
		return perr(g, "buffer '%s' declared twice", w[1]);
	auto_size = !strcmp(w[2], "-");
	if (!auto_size && (parse_num(w[2], &size) || !size || size > WSCHED_BUF_MAX_LEN))
		return perr(g, "bad size '%s' (1 to 1G)", w[2]);
	if (n == 5 && !strcmp(w[3], "text")) {
		src_len = strlen(w[4]);
		src = (unsigned char *)strdup(w[4]);
	} else if (n == 5 && !strcmp(w[3], "file")) {
		if (read_whole_file(g, w[4], &src, &src_len))
			return -1;
	}
	if (auto_size) {
		if (!src)
			return perr(g, "size '-' needs text or file");
		size = src_len;
		if (!size || size > WSCHED_BUF_MAX_LEN) {
			free(src);
			return perr(g, "%s: size %zu is not 1 to 1G", w[4], src_len);
		}
	}
	b = &g->bufs[g->nr_bufs];
	snprintf(b->name, sizeof(b->name), "%s", w[1]);
	b->size = (size_t)size;
	b->line = g->line;
	if (posix_memalign((void **)&b->mem, 4096, b->size)) {
		free(src);
		return perr(g, "out of memory for %llu bytes", (unsigned long long)size);
	}
	memset(b->mem, 0, b->size);
	if (src) {
		memcpy(b->mem, src, src_len < b->size ? src_len : b->size);
		free(src);
	} else if (n == 5 && !strcmp(w[3], "fill")) {
		if (parse_num(w[4], &x) || x > 255)
			goto bad_init;
		memset(b->mem, (int)x, b->size);
	} else if (n == 5 && !strcmp(w[3], "random")) {
		__u64 s;
		size_t i;

		if (parse_num(w[4], &x))
			goto bad_init;
		/* xorshift64*, so that a seed names the same bytes everywhere */
		s = x ? x : 0x9E3779B97F4A7C15ULL;
		for (i = 0; i < b->size; i++) {
			if (!(i & 7)) {
				s ^= s >> 12;
				s ^= s << 25;
				s ^= s >> 27;
				x = s * 0x2545F4914F6CDD1DULL;
			}
			b->mem[i] = (unsigned char)(x >> (8 * (i & 7)));
		}
	} else if (n == 5 && strcmp(w[3], "zero")) {
		goto bad_init;
	} else if (n == 4 && strcmp(w[3], "zero")) {
		goto bad_init;
	}
	g->nr_bufs++;
	return 0;
bad_init:
	free(b->mem);
	b->mem = NULL;
	return perr(g, "bad initialiser '%s%s%s'", w[3], n == 5 ? " " : "", n == 5 ? w[4] : "");
}

static int is_keyword(const char *s)
{
	static const char *const kw[] = {
		"after", "soft", "nocqe", "expect", "value", "verify",
	};
	size_t i;

	for (i = 0; i < sizeof(kw) / sizeof(kw[0]); i++)
		if (!strcmp(s, kw[i]))
			return 1;
	return 0;
}

static int resolve_op(struct graph *g, struct gnode *nd, const char *name)
{
	struct wsched_op_info info;
	size_t i;
	int ret;

	snprintf(nd->opname, sizeof(nd->opname), "%s", name);
	for (i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name)) {
			nd->builtin = (int)i;
			nd->op = builtins[i].op;
			nd->opflags = builtins[i].flags;
			return 0;
		}
	nd->builtin = -1;
	if (!g->ring)
		return perr(g, "operation '%s' is not built in; a dry run cannot look it up", name);
	ret = wsched_op_lookup(g->ring, name, &info);
	if (ret < 0)
		return perr(g, "operation '%s': %s", name,
			    ret == -ENOENT ? "no such operation (see wsctl ops)" : strerror(-ret));
	nd->op = info.op;
	nd->opflags = info.flags & (WSCHED_OPINFO_RANGE | WSCHED_OPINFO_RANGE2);
	return 0;
}

static int add_preds(struct graph *g, struct gnode *nd, char *list)
{
	char *save, *tok;
	__u64 v;
	int k;

	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nd->nr_preds == WSCHED_MAX_PREDS)
			return perr(g, "more than %d predecessors", WSCHED_MAX_PREDS);
		if (isdigit((unsigned char)*tok)) {
			/* A raw node number: passed on unchecked. */
			if (parse_num(tok, &v) || v > 0xFFFFFFFFULL)
				return perr(g, "bad node number '%s'", tok);
			nd->preds[nd->nr_preds++] = (__u32)v;
			continue;
		}
		k = find_node(g, tok);
		if (k < 0)
			return perr(g, "no earlier node '%s'", tok);
		nd->preds[nd->nr_preds++] = (__u32)k;
	}
	return 0;
}

static int parse_hex32(const char *s, unsigned char *out)
{
	int i;

	if (strlen(s) != 64)
		return -1;
	for (i = 0; i < 32; i++) {
		unsigned int x;

		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &x) != 1)
			return -1;
		out[i] = (unsigned char)x;
	}
	return 0;
}

/* node NAME OP [RANGE] [RANGE2 | ARG] [keywords...] */
static int parse_node(struct graph *g, char **w, int n)
{
	const struct builtin *bi;
	struct gnode *nd;
	__u64 len1 = 0, len2 = 0;
	int k = 3, given1 = 0, given2 = 0, npos;
	enum arg_kind ak;

	if (n < 3)
		return perr(g, "usage: node NAME OP [RANGE] [RANGE2 | ARG] [after N,...] [soft] [nocqe] [expect R] [value V] [verify]");
	if (!valid_name(w[1]) || strlen(w[1]) >= NAME_MAX_LEN)
		return perr(g, "bad node name '%s' (a letter first)", w[1]);
	if (find_node(g, w[1]) >= 0)
		return perr(g, "node '%s' declared twice", w[1]);
	if (g->nr_nodes == g->room) {
		struct gnode *p;

		g->room = g->room ? 2 * g->room : 64;
		p = realloc(g->nodes, g->room * sizeof(*p));
		if (!p)
			return perr(g, "out of memory");
		g->nodes = p;
	}
	nd = &g->nodes[g->nr_nodes];
	memset(nd, 0, sizeof(*nd));
	snprintf(nd->name, sizeof(nd->name), "%s", w[1]);
	nd->line = g->line;
	if (resolve_op(g, nd, w[2]))
		return -1;
	bi = nd->builtin >= 0 ? &builtins[nd->builtin] : NULL;
	ak = bi ? bi->arg : (nd->opflags & WSCHED_OPINFO_RANGE2 ? ARG_NONE : ARG_OPTIONAL);
	nd->arg = bi ? bi->arg_default : 0;

	for (npos = 0; k + npos < n && !is_keyword(w[k + npos]); npos++)
		;
	if (nd->opflags & WSCHED_OPINFO_RANGE) {
		if (!npos--)
			return perr(g, "%s needs a range: BUF[:OFF[:LEN]]", w[2]);
		if (parse_range(g, w[k++], &nd->buf, &nd->off, &len1, &given1))
			return -1;
	}
	if (nd->opflags & WSCHED_OPINFO_RANGE2) {
		if (!npos--)
			return perr(g, "%s needs a second range: BUF[:OFF[:LEN]]", w[2]);
		if (parse_range(g, w[k++], &nd->buf2, &nd->arg, &len2, &given2))
			return -1;
	} else if (ak != ARG_NONE && npos) {
		int err;

		npos--;
		if (ak == ARG_ERRNO) {
			if (wsctl_errno_parse(w[k], &err))
				return perr(g, "bad errno '%s' (EIO, 5 ...)", w[k]);
			nd->arg = (__u64)err;
		} else if (parse_num(w[k], &nd->arg)) {
			return perr(g, "bad number '%s'", w[k]);
		}
		k++;
	} else if (ak == ARG_REQUIRED || ak == ARG_ERRNO) {
		return perr(g, "%s needs an argument", w[2]);
	}
	if (npos > 0)
		return perr(g, "unexpected '%s'", w[k]);

	/* The length: the first range's if given, else what the ranges hold. */
	if (nd->opflags & WSCHED_OPINFO_RANGE) {
		__u64 rest1 = rest_of(&g->bufs[nd->buf], nd->off);

		if (given1) {
			nd->len = len1;
		} else if (given2 && (nd->op == WSCHED_OP_MEMCPY || nd->op == WSCHED_OP_MEMCMP)) {
			nd->len = len2;
		} else {
			nd->len = rest1;
			if (nd->op == WSCHED_OP_MEMCPY || nd->op == WSCHED_OP_MEMCMP) {
				__u64 rest2 = rest_of(&g->bufs[nd->buf2], nd->arg);

				if (rest2 < nd->len)
					nd->len = rest2;
			}
		}
	}

	while (k < n) {
		const char *kw = w[k++];

		if (!strcmp(kw, "soft")) {
			nd->flags |= WSCHED_NODE_SOFT_FAIL;
		} else if (!strcmp(kw, "nocqe")) {
			nd->flags |= WSCHED_SQE_NO_CQE;
		} else if (!strcmp(kw, "verify")) {
			if (!bi || !(nd->opflags & WSCHED_OPINFO_RANGE))
				return perr(g, "verify works for the built-in data operations only");
			nd->verify = 1;
		} else if (k == n) {
			return perr(g, "'%s' needs a value", kw);
		} else if (!strcmp(kw, "after")) {
			if (add_preds(g, nd, w[k++]))
				return -1;
		} else if (!strcmp(kw, "expect")) {
			const char *e = w[k++];

			if (!strcmp(e, "ok")) {
				nd->expect = EXPECT_OK;
			} else if (!strcmp(e, "cancelled") || !strcmp(e, "canceled")) {
				nd->expect = EXPECT_CANCELLED;
			} else if (!strcmp(e, "any")) {
				nd->expect = EXPECT_ANY;
			} else if (!wsctl_errno_parse(e, &nd->expect_err)) {
				nd->expect = EXPECT_ERR;
			} else {
				return perr(g, "bad expectation '%s' (ok, cancelled, any, EIO, 5 ...)", e);
			}
		} else if (!strcmp(kw, "value")) {
			const char *v = w[k++];

			if (nd->op == WSCHED_OP_SHA256 && bi) {
				if (parse_hex32(v, nd->digest))
					return perr(g, "sha256 value: 64 hex digits");
				nd->has_digest = 1;
			} else {
				if (parse_value(v, &nd->value))
					return perr(g, "bad value '%s'", v);
				nd->has_value = 1;
			}
		}
	}
	if (nd->flags & WSCHED_SQE_NO_CQE && (nd->has_value || nd->has_digest ||
					       nd->expect != EXPECT_OK))
		return perr(g, "a nocqe node has no result to check");
	g->nr_nodes++;
	return 0;
}

static int parse_dump(struct graph *g, char **w, int n)
{
	struct gdump *d;
	int given;

	if (n != 2)
		return perr(g, "usage: dump BUF[:OFF[:LEN]]");
	if (g->nr_dumps == sizeof(g->dumps) / sizeof(g->dumps[0]))
		return perr(g, "too many dump lines");
	d = &g->dumps[g->nr_dumps];
	if (parse_range(g, w[1], &d->buf, &d->off, &d->len, &given))
		return -1;
	if (!given)
		d->len = 64;
	if (d->off > g->bufs[d->buf].size)
		d->off = g->bufs[d->buf].size;
	if (d->len > g->bufs[d->buf].size - d->off)
		d->len = g->bufs[d->buf].size - d->off;
	d->line = g->line;
	g->nr_dumps++;
	return 0;
}

static int parse_graph(struct graph *g, FILE *f)
{
	char line[8192], *w[MAX_TOKENS + 1], *save, *tok, *hash;
	int n;

	while (fgets(line, sizeof(line), f)) {
		g->line++;
		if (!strchr(line, '\n') && !feof(f))
			return perr(g, "line too long");
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		n = 0;
		for (tok = strtok_r(line, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
			if (n == MAX_TOKENS)
				return perr(g, "too many words");
			w[n++] = tok;
		}
		if (!n)
			continue;
		if (!strcmp(w[0], "buf")) {
			if (g->nr_nodes)
				return perr(g, "buf lines come before the nodes");
			if (parse_buf(g, w, n))
				return -1;
		} else if (!strcmp(w[0], "node")) {
			if (parse_node(g, w, n))
				return -1;
		} else if (!strcmp(w[0], "dump")) {
			if (parse_dump(g, w, n))
				return -1;
		} else {
			return perr(g, "unknown directive '%s' (buf, node, dump)", w[0]);
		}
	}
	if (ferror(f))
		return perr(g, "read error");
	if (!g->nr_nodes)
		return perr(g, "no nodes");
	return 0;
}

static void free_graph(struct graph *g)
{
	unsigned int i;

	for (i = 0; i < g->nr_bufs; i++)
		free(g->bufs[i].mem);
	free(g->nodes);
}

static void print_plan(const struct graph *g)
{
	unsigned int i, j;

	for (i = 0; i < g->nr_bufs; i++)
		printf("buf %u %s: %zu bytes\n", i, g->bufs[i].name, g->bufs[i].size);
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *nd = &g->nodes[i];

		printf("node %u %s: op %u (%s) flags 0x%x", i, nd->name, nd->op, nd->opname,
		       nd->flags | (i == g->nr_nodes - 1 ? (__u32)WSCHED_SQE_GRAPH_END : 0));
		if (nd->opflags & WSCHED_OPINFO_RANGE)
			printf(" buf %u off %llu len %llu", nd->buf,
			       (unsigned long long)nd->off, (unsigned long long)nd->len);
		if (nd->opflags & WSCHED_OPINFO_RANGE2)
			printf(" buf2 %u", nd->buf2);
		printf(" arg 0x%llx", (unsigned long long)nd->arg);
		if (nd->nr_preds) {
			printf(" after");
			for (j = 0; j < nd->nr_preds; j++)
				printf("%c%u", j ? ',' : ' ', nd->preds[j]);
		}
		putchar('\n');
	}
}

/* Put the graph in the SQ, submit it, and wait for its completion. */
static int run_once(struct graph *g, struct wsched_ring *ring, struct wsched_cqe *gcqe,
		    double *elapsed)
{
	struct wsched_sqe *sqe;
	struct wsched_cqe *cqe;
	unsigned int i;
	double t0;
	int ret;

	for (i = 0; i < g->nr_nodes; i++)
		g->nodes[i].done = 0;
	t0 = wsctl_now();
	for (i = 0; i < g->nr_nodes; i++) {
		const struct gnode *nd = &g->nodes[i];

		while (!(sqe = wsched_get_sqe(ring))) {
			/* A graph larger than the SQ goes in pieces. */
			ret = wsched_submit(ring);
			if (ret <= 0)
				goto submit_failed;
		}
		wsched_prep_op(sqe, nd->op, nd->buf, nd->off, nd->len, nd->buf2, nd->arg);
		wsched_sqe_set_data64(sqe, i);
		wsched_sqe_set_flags(sqe, nd->flags);
		wsched_sqe_set_preds(sqe, nd->preds, nd->nr_preds);
		if (i == g->nr_nodes - 1)
			wsched_sqe_set_graph_end(sqe);
	}
	while (wsched_sq_ready(ring) || wsched_sq_space_left(ring) < ring->sq.ring_entries) {
		ret = wsched_submit(ring);
		if (ret <= 0)
			goto submit_failed;
	}
	for (;;) {
		ret = wsched_wait_cqe(ring, &cqe);
		if (ret) {
			wsctl_err("waiting for completions: %s", strerror(-ret));
			return -1;
		}
		if (wsched_cqe_is_graph(cqe)) {
			*gcqe = *cqe;
			wsched_cqe_seen(ring, cqe);
			break;
		}
		if (cqe->user_data < g->nr_nodes) {
			g->nodes[cqe->user_data].cqe = *cqe;
			g->nodes[cqe->user_data].done = 1;
		}
		wsched_cqe_seen(ring, cqe);
	}
	*elapsed = wsctl_now() - t0;
	return 0;
submit_failed:
	if (ret == 0)
		wsctl_err("submit: the kernel consumed no entry");
	else
		wsctl_err("submit: graph refused: %s (%s), %u entries consumed", strerror(-ret),
			  wsctl_errname(-ret), wsched_last_submitted(ring));
	return -1;
}

static const char *res_flags(__u32 f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s",
		 f & WSCHED_RES_RAN ? "ran," : "",
		 f & WSCHED_RES_DEP_FAILED ? "dep_failed," : "",
		 f & WSCHED_RES_ABORTED ? "aborted," : "",
		 f & ~(__u32)(WSCHED_RES_RAN | WSCHED_RES_DEP_FAILED | WSCHED_RES_ABORTED) ?
		 "other," : "");
	if (*buf)
		buf[strlen(buf) - 1] = '\0';
	else
		snprintf(buf, len, "-");
	return buf;
}

/* Software check of a data op against the buffers as they are now. */
static int verify_node(const struct graph *g, const struct gnode *nd, char *msg, size_t len)
{
	const unsigned char *a, *b;
	unsigned char d[32];
	__u64 i;

	if (nd->off > g->bufs[nd->buf].size || nd->len > g->bufs[nd->buf].size - nd->off) {
		snprintf(msg, len, "range outside its buffer");
		return -1;
	}
	a = g->bufs[nd->buf].mem + nd->off;
	b = NULL;
	if (nd->opflags & WSCHED_OPINFO_RANGE2) {
		__u64 l2 = nd->op == WSCHED_OP_SHA256 ? 32 : nd->len;

		if (nd->arg > g->bufs[nd->buf2].size || l2 > g->bufs[nd->buf2].size - nd->arg) {
			snprintf(msg, len, "second range outside its buffer");
			return -1;
		}
		b = g->bufs[nd->buf2].mem + nd->arg;
	}
	switch (nd->op) {
	case WSCHED_OP_MEMCPY:
		if (memcmp(a, b, nd->len)) {
			snprintf(msg, len, "destination differs from source");
			return -1;
		}
		break;
	case WSCHED_OP_MEMSET:
		for (i = 0; i < nd->len; i++)
			if (a[i] != (unsigned char)nd->arg) {
				snprintf(msg, len, "byte %llu is 0x%02x", (unsigned long long)i, a[i]);
				return -1;
			}
		break;
	case WSCHED_OP_MEMCMP: {
		int c = memcmp(a, b, nd->len);
		__s64 want = c < 0 ? -1 : c > 0;

		if ((__s64)nd->cqe.value != want) {
			snprintf(msg, len, "user space says %lld", (long long)want);
			return -1;
		}
		break;
	}
	case WSCHED_OP_CRC32C: {
		__u32 c = wsched_crc32c_sw((__u32)nd->arg, a, nd->len);

		if (nd->cqe.value != c) {
			snprintf(msg, len, "user space says 0x%08x", c);
			return -1;
		}
		break;
	}
	case WSCHED_OP_XXHASH64: {
		__u64 h = wsched_xxhash64_sw(a, nd->len, nd->arg);

		if (nd->cqe.value != h) {
			snprintf(msg, len, "user space says 0x%016llx", (unsigned long long)h);
			return -1;
		}
		break;
	}
	case WSCHED_OP_SHA256:
		wsched_sha256_sw(a, nd->len, d);
		if (memcmp(d, b, 32)) {
			snprintf(msg, len, "user space digest differs");
			return -1;
		}
		break;
	}
	snprintf(msg, len, "verified");
	return 0;
}

/* Print the node's outcome; returns 0 if it is what the file expects. */
static int report_node(const struct graph *g, unsigned int i, FILE *out)
{
	const struct gnode *nd = &g->nodes[i];
	const struct wsched_cqe *c = &nd->cqe;
	char fl[64], res[32], val[96] = "", note[160] = "", hex[65];
	int bad = 0;
	unsigned int j;

	if (nd->flags & WSCHED_SQE_NO_CQE) {
		fprintf(out, "%4u  %-14s %-9s %-16s %-16s %4s\n", i, nd->name, nd->opname,
			"(nocqe)", "", "");
		return 0;
	}
	if (!nd->done) {
		fprintf(out, "%4u  %-14s %-9s no completion  UNEXPECTED\n", i, nd->name,
			nd->opname);
		return 1;
	}
	if (c->res)
		snprintf(res, sizeof(res), "%d %s", c->res, wsctl_errname(-c->res));
	else
		snprintf(res, sizeof(res), "0");

	switch (nd->expect) {
	case EXPECT_OK:
		bad = c->res != 0;
		break;
	case EXPECT_ERR:
		bad = c->res != -nd->expect_err || !(c->flags & WSCHED_RES_RAN);
		break;
	case EXPECT_CANCELLED:
		bad = c->res != -ECANCELED || (c->flags & WSCHED_RES_RAN);
		break;
	case EXPECT_ANY:
		break;
	}
	if (bad)
		snprintf(note, sizeof(note), " UNEXPECTED result");

	if (c->flags & WSCHED_RES_RAN && !c->res) {
		switch (nd->builtin >= 0 ? nd->op : ~0U) {
		case WSCHED_OP_NOP:
		case WSCHED_OP_SPIN:
		case WSCHED_OP_FAIL:
		case WSCHED_OP_MEMCPY:
		case WSCHED_OP_MEMSET:
			break;
		case WSCHED_OP_MEMCMP:
			snprintf(val, sizeof(val), "%lld", (long long)c->value);
			break;
		case WSCHED_OP_CRC32C:
			if ((__u32)nd->arg == 0xFFFFFFFFU)
				snprintf(val, sizeof(val), "0x%08llx (CRC-32C %08x)",
					 (unsigned long long)c->value, ~(__u32)c->value);
			else
				snprintf(val, sizeof(val), "0x%08llx", (unsigned long long)c->value);
			break;
		case WSCHED_OP_XXHASH64:
			snprintf(val, sizeof(val), "0x%016llx", (unsigned long long)c->value);
			break;
		case WSCHED_OP_SHA256:
			if (nd->arg <= g->bufs[nd->buf2].size &&
			    g->bufs[nd->buf2].size - nd->arg >= 32) {
				wsctl_hex(g->bufs[nd->buf2].mem + nd->arg, 32, hex);
				snprintf(val, sizeof(val), "%s", hex);
				if (nd->has_digest &&
				    memcmp(g->bufs[nd->buf2].mem + nd->arg, nd->digest, 32)) {
					bad = 1;
					strcat(note, " UNEXPECTED digest");
				}
			}
			break;
		default:
			snprintf(val, sizeof(val), "0x%llx", (unsigned long long)c->value);
		}
		if (nd->has_value && c->value != nd->value) {
			bad = 1;
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 " UNEXPECTED value (want 0x%llx)", (unsigned long long)nd->value);
		}
		if (nd->verify) {
			char msg[96];

			if (verify_node(g, nd, msg, sizeof(msg)))
				bad = 1;
			snprintf(note + strlen(note), sizeof(note) - strlen(note), " %s%s",
				 msg, strcmp(msg, "verified") ? " (VERIFY FAILED)" : "");
		}
	} else if (nd->has_value || nd->has_digest) {
		bad = 1;
		snprintf(note + strlen(note), sizeof(note) - strlen(note), " UNEXPECTED: no value");
	}
	/* The scheduler's promise: a node completes after its predecessors. */
	for (j = 0; j < nd->nr_preds; j++) {
		const struct gnode *p = nd->preds[j] < g->nr_nodes ? &g->nodes[nd->preds[j]] : NULL;

		if (p && p->done && p->cqe.seq >= c->seq) {
			bad = 1;
			snprintf(note + strlen(note), sizeof(note) - strlen(note),
				 " ORDER: seq not above %s's", p->name);
		}
	}
	fprintf(out, "%4u  %-14s %-9s %-16s %-16s %4u  %s%s\n", i, nd->name, nd->opname, res,
		res_flags(c->flags, fl, sizeof(fl)), c->seq, val, *val ? note : note + !!*note);
	return bad;
}

static void print_dumps(const struct graph *g)
{
	unsigned int i;
	__u64 k;

	for (i = 0; i < g->nr_dumps; i++) {
		const struct gdump *d = &g->dumps[i];

		printf("dump %s:%llu:%llu:", g->bufs[d->buf].name, (unsigned long long)d->off,
		       (unsigned long long)d->len);
		for (k = 0; k < d->len; k++)
			printf("%s%02x", k % 32 ? " " : "\n  ", g->bufs[d->buf].mem[d->off + k]);
		putchar('\n');
	}
}

static void run_usage(void)
{
	fprintf(stderr,
		"usage: %s run [-n RUNS] [-q] [-c] FILE|-\n"
		"  -n: run the graph RUNS times (buffers are not reset in between)\n"
		"  -q: print only the summary   -c: parse and print the plan, run nothing\n",
		wsctl_prog);
}

int cmd_run(int argc, char **argv)
{
	struct wsched_ring ring;
	struct wsched_cqe gcqe;
	struct graph *g;
	struct iovec iov[WSCHED_MAX_BUFS];
	double t, tmin = 0, tmax = 0, tsum = 0;
	int runs = 1, quiet = 0, dry = 0, opt, ret, status = 2, bad = 0, r;
	unsigned int i;
	FILE *out = stdout;
	FILE *f;
	char *end;

	optind = 1;
	while ((opt = getopt(argc, argv, "n:qch")) != -1) {
		switch (opt) {
		case 'n':
			runs = (int)strtol(optarg, &end, 10);
			if (*end || runs < 1)
				goto usage;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'c':
			dry = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;

	g = calloc(1, sizeof(*g));
	if (!g)
		return 2;
	g->file = argv[optind];
	if (!strcmp(g->file, "-")) {
		f = stdin;
		g->file = "<stdin>";
	} else {
		f = fopen(g->file, "r");
		if (!f) {
			wsctl_err("%s: %s", g->file, strerror(errno));
			free(g);
			return 2;
		}
	}
	/* The ring first: the parser looks registered operations up. */
	if (!dry) {
		if (wsctl_open_ring(&ring, 1024)) {
			if (f != stdin)
				fclose(f);
			free(g);
			return 2;
		}
		g->ring = &ring;
	}
	ret = parse_graph(g, f);
	if (f != stdin)
		fclose(f);
	if (ret)
		goto out;
	if (dry) {
		print_plan(g);
		status = 0;
		goto out;
	}
	if (g->nr_bufs) {
		for (i = 0; i < g->nr_bufs; i++) {
			iov[i].iov_base = g->bufs[i].mem;
			iov[i].iov_len = g->bufs[i].size;
		}
		ret = wsched_register_buffers(&ring, iov, g->nr_bufs);
		if (ret) {
			wsctl_err("registering %u buffers: %s%s", g->nr_bufs, strerror(-ret),
				  ret == -ENOMEM ? " (RLIMIT_MEMLOCK? max_pinned_mb?)" : "");
			goto out;
		}
	}
	for (r = 0; r < runs; r++) {
		if (run_once(g, &ring, &gcqe, &t))
			goto out;
		tsum += t;
		if (!r || t < tmin)
			tmin = t;
		if (t > tmax)
			tmax = t;
	}
	/* -q: the same checks, their lines dropped. */
	if (quiet)
		out = fopen("/dev/null", "w");
	if (!out)
		out = stdout;
	fprintf(out, "%4s  %-14s %-9s %-16s %-16s %4s  %s\n", "#", "node", "op", "res",
		"flags", "seq", "value");
	for (i = 0; i < g->nr_nodes; i++)
		bad |= report_node(g, i, out);
	if (!quiet)
		print_dumps(g);
	if (out != stdout)
		fclose(out);
	printf("graph %s: res %d%s%s, %llu of %u nodes ran, ", g->file, gcqe.res,
	       gcqe.res ? " " : "", gcqe.res ? wsctl_errname(-gcqe.res) : "",
	       (unsigned long long)gcqe.value, gcqe.seq);
	if (runs == 1)
		printf("%.3f ms", tmin * 1e3);
	else
		printf("%d runs: min %.3f ms, avg %.3f ms, max %.3f ms", runs, tmin * 1e3,
		       tsum / runs * 1e3, tmax * 1e3);
	printf("%s\n", bad ? "; UNEXPECTED results" : "; as expected");
	status = bad ? 1 : 0;
out:
	if (!dry)
		wsched_queue_exit(&ring);
	free_graph(g);
	free(g);
	return status;
usage:
	run_usage();
	return 2;
}
