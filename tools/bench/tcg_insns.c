// SPDX-License-Identifier: GPL-2.0
/*
 * tcg_insns.so - a QEMU TCG plugin that counts the guest instructions
 * the bench's guest executes, per translated block, for make bench's
 * BENCH_INSNS=1 (tools/bench/insns.py turns them into a profile per
 * function).  Under TCG the VM exposes no instruction counter to perf;
 * this counts exactly what the emulated CPUs ran, with no sampling.
 *
 * At each translation it records the block's address, its instructions
 * and how many of them are locked, returns or indirect calls (costly
 * under TCG: a helper for the atomic, a lookup of the next block for
 * the jump), and has QEMU add 1 to the record's count, inline, each
 * time the block runs, and to its memory count at each access one of
 * its instructions makes.  The adds are not atomic: two vCPUs running the
 * same block at once may lose a count (a profile, not a proof).  At exit
 * it writes one line per executed record to the file of its "out=PATH"
 * argument: "vaddr insns execs locked rets icalls mems" (the address in
 * hex, the rest decimal: insns, locked, rets and icalls count the
 * block's instructions, execs its runs, mems the accesses of all runs).
 *
 * Built against QEMU's plugin API version 1 (QEMU 4.2 to 8.x), declared
 * in tcg_plugin_api.h, so that no QEMU header is needed.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tcg_plugin_api.h"

PLUGIN_EXPORT int qemu_plugin_version = 1;

/**
 * struct block - one translation of a guest block
 * @next: the previous translation recorded (a list, newest first)
 * @vaddr: the guest address of its first instruction
 * @execs: times it ran (QEMU's inline add)
 * @mems: memory accesses its instructions made (QEMU's inline add at
 *	each access), the stack's and the segment-relative ones included
 * @insns: its instructions
 * @locked: of those, with a lock prefix
 * @rets: returns
 * @icalls: indirect calls
 */
struct block {
	struct block *next;
	uint64_t vaddr;
	uint64_t execs;
	uint64_t mems;
	unsigned int insns, locked, rets, icalls;
};

static struct block *blocks;
static pthread_mutex_t blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static const char *out_path;

/* Sort one x86 instruction into the classes counted: its bytes @p, @n. */
static void classify(const uint8_t *p, size_t n, struct block *b)
{
	size_t i = 0;
	bool lock = false;

	for (; i < n; i++) {
		uint8_t c = p[i];

		if (c == 0xf0)
			lock = true;
		else if (!(c == 0x66 || c == 0x67 || c == 0xf2 || c == 0xf3 ||
			   c == 0x2e || c == 0x3e || c == 0x26 || c == 0x36 ||
			   c == 0x64 || c == 0x65 || (c >= 0x40 && c <= 0x4f)))
			break;
	}
	if (i >= n)
		return;
	b->locked += lock;
	if (p[i] == 0xc3 || p[i] == 0xc2)
		b->rets++;
	else if (p[i] == 0xff && i + 1 < n && ((p[i + 1] >> 3) & 7) == 2)
		b->icalls++;
}

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct block *b = calloc(1, sizeof(*b));
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	(void)id;
	if (!b)
		return;
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = n;
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		classify(qemu_plugin_insn_data(insn),
			 qemu_plugin_insn_size(insn), b);
		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
						     QEMU_PLUGIN_INLINE_ADD_U64,
						     &b->mems, 1);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->execs, 1);
	pthread_mutex_lock(&blocks_lock);
	b->next = blocks;
	blocks = b;
	pthread_mutex_unlock(&blocks_lock);
}

static void on_qemu_exit(qemu_plugin_id_t id, void *data)
{
	FILE *f = fopen(out_path, "w");
	struct block *b;

	(void)id;
	(void)data;
	if (!f)
		return;
	pthread_mutex_lock(&blocks_lock);
	for (b = blocks; b; b = b->next)
		if (b->execs)
			fprintf(f, "%llx %u %llu %u %u %u %llu\n",
				(unsigned long long)b->vaddr, b->insns,
				(unsigned long long)b->execs, b->locked,
				b->rets, b->icalls,
				(unsigned long long)b->mems);
	pthread_mutex_unlock(&blocks_lock);
	fclose(f);
}

PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
				      const struct qemu_info_t *info,
				      int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			out_path = argv[i] + 4;
	if (!out_path) {
		fprintf(stderr, "tcg_insns: needs out=PATH\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
