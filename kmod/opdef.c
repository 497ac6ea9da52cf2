// SPDX-License-Identifier: GPL-2.0
/*
 * The table of the operations /dev/wsched runs, in the manner of
 * io_uring's opdef.c: the built-in ones (WSCHED_OP_NOP to
 * WSCHED_OP_SHA256), each family in a file of its own (op_basic.c,
 * op_mem.c, op_hash.c), and those other modules register with
 * ws_op_register().
 *
 * Built-in operations are static and live as long as the module, so
 * looking one up needs no lock and no reference.  Registered operations
 * sit in a table of WSCHED_OP_DYNAMIC_MAX slots under wsd_ops_lock; the
 * number of the operation in slot i is WSCHED_OP_DYNAMIC + i plus a
 * multiple of WSCHED_OP_DYNAMIC_MAX that changes with every registration
 * in the slot.  A node that uses a
 * registered operation holds a reference from its submission to its end
 * (wsd_op_get(), wsd_op_put()): one on the op's users count, which
 * ws_op_unregister() waits to drain, and one on the owner module.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/export.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/string.h>
#include <linux/wait_bit.h>
#include <linux/wsched.h>
#include <crypto/sha2.h>
#include <uapi/linux/wsched.h>

#include "ws_op.h"
#include "op_basic.h"
#include "op_hash.h"
#include "op_mem.h"

/*
 * Indexed by WSCHED_OP_*.  No owner and no users count: they are part of
 * wsched, which an open /dev/wsched pins.
 */
const struct ws_op wsd_builtin_ops[WSCHED_OP_LAST + 1] = {
	[WSCHED_OP_NOP] = {
		.id = WSCHED_OP_NOP,
		.name = "nop",
		.check = wsd_nop_check,
		.run = wsd_nop_run,
	},
	[WSCHED_OP_SPIN] = {
		.id = WSCHED_OP_SPIN,
		.name = "spin",
		.check = wsd_spin_check,
		.run = wsd_spin_run,
	},
	[WSCHED_OP_FAIL] = {
		.id = WSCHED_OP_FAIL,
		.name = "fail",
		.check = wsd_fail_check,
		.run = wsd_fail_run,
	},
	[WSCHED_OP_MEMCPY] = {
		.id = WSCHED_OP_MEMCPY,
		.name = "memcpy",
		.flags = WS_OP_RANGE | WS_OP_RANGE2 | WS_OP_SPLIT,
		.run = wsd_memcpy_run,
	},
	[WSCHED_OP_MEMSET] = {
		.id = WSCHED_OP_MEMSET,
		.name = "memset",
		.flags = WS_OP_RANGE | WS_OP_SPLIT,
		.check = wsd_memset_check,
		.run = wsd_memset_run,
	},
	[WSCHED_OP_MEMCMP] = {
		.id = WSCHED_OP_MEMCMP,
		.name = "memcmp",
		.flags = WS_OP_RANGE | WS_OP_RANGE2 | WS_OP_SPLIT,
		.run = wsd_memcmp_run,
	},
	[WSCHED_OP_CRC32C] = {
		.id = WSCHED_OP_CRC32C,
		.name = "crc32c",
		.flags = WS_OP_RANGE | WS_OP_SPLIT,
		.check = wsd_crc32c_check,
		.run = wsd_crc32c_run,
	},
	[WSCHED_OP_XXHASH64] = {
		.id = WSCHED_OP_XXHASH64,
		.name = "xxhash64",
		.flags = WS_OP_RANGE,
		.run = wsd_xxhash64_run,
	},
	[WSCHED_OP_SHA256] = {
		.id = WSCHED_OP_SHA256,
		.name = "sha256",
		.flags = WS_OP_RANGE | WS_OP_RANGE2,
		.range2_len = SHA256_DIGEST_SIZE,
		.run = wsd_sha256_run,
	},
};

/* ---- the table of registered operations ---- */

/* Serialises the table: registration, removal, lookups. */
static DEFINE_MUTEX(wsd_ops_lock);
/*
 * Slot i holds a registered operation, or NULL.  Its number is
 * WSCHED_OP_DYNAMIC + i + WSCHED_OP_DYNAMIC_MAX * generation, where the
 * slot's generation grows with every registration in it: a number that
 * user space kept across an unregister never names the next operation of
 * the slot.
 */
static struct ws_op *wsd_dyn_ops[WSCHED_OP_DYNAMIC_MAX];
static u32 wsd_dyn_gen[WSCHED_OP_DYNAMIC_MAX];

/* Generations wrap before the number leaves the u32 range. */
#define WSD_OP_GENS	((U32_MAX - WSCHED_OP_DYNAMIC) / WSCHED_OP_DYNAMIC_MAX)

/* The slot of a registered operation's number (not checked). */
static u32 wsd_op_slot(u32 id)
{
	return (id - WSCHED_OP_DYNAMIC) % WSCHED_OP_DYNAMIC_MAX;
}

static bool wsd_op_builtin(const struct ws_op *op)
{
	return op >= wsd_builtin_ops &&
	       op < wsd_builtin_ops + ARRAY_SIZE(wsd_builtin_ops);
}

/* 1..WSCHED_OP_NAME_MAX - 1 characters of [a-z0-9._-]. */
static bool wsd_op_name_ok(const char *name)
{
	size_t i, len;

	if (!name)
		return false;
	len = strnlen(name, WSCHED_OP_NAME_MAX);
	if (!len || len >= WSCHED_OP_NAME_MAX)
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

/* The operation called @name, built-in or registered, or NULL. */
static const struct ws_op *wsd_op_find(const char *name)
{
	unsigned int i;

	lockdep_assert_held(&wsd_ops_lock);
	for (i = 0; i < ARRAY_SIZE(wsd_builtin_ops); i++)
		if (!strcmp(wsd_builtin_ops[i].name, name))
			return &wsd_builtin_ops[i];
	for (i = 0; i < ARRAY_SIZE(wsd_dyn_ops); i++)
		if (wsd_dyn_ops[i] && !strcmp(wsd_dyn_ops[i]->name, name))
			return wsd_dyn_ops[i];
	return NULL;
}

static void wsd_op_info(const struct ws_op *op, struct wsched_op_info *info)
{
	memset(info, 0, sizeof(*info));
	info->op = op->id;
	if (op->flags & WS_OP_RANGE)
		info->flags |= WSCHED_OPINFO_RANGE;
	if (op->flags & WS_OP_RANGE2)
		info->flags |= WSCHED_OPINFO_RANGE2;
	if (wsd_op_builtin(op))
		info->flags |= WSCHED_OPINFO_BUILTIN;
	strscpy(info->name, op->name, sizeof(info->name));
}

/**
 * ws_op_register - make an operation available to /dev/wsched
 * @op: the operation: @op->name, @op->owner, @op->flags,
 *	@op->range2_len, @op->check and @op->run set, the rest zero
 *
 * Gives @op a number from WSCHED_OP_DYNAMIC up, in @op->id, that no
 * operation registered earlier had in its slot (a stale number names
 * nothing); user space finds it by name with WSCHED_IOC_OP_LOOKUP.  @op must stay
 * valid, and unchanged, until ws_op_unregister(@op) returns.
 *
 * Context: process context, may sleep.
 * Return: 0; -EINVAL if @op->run is NULL, the name is malformed, @op->flags
 * holds unknown bits, or %WS_OP_RANGE2 or %WS_OP_SPLIT without
 * %WS_OP_RANGE, or
 * @op->range2_len is set without %WS_OP_RANGE2; -EEXIST if an operation
 * of that name exists (built-in or registered); -ENOSPC if
 * WSCHED_OP_DYNAMIC_MAX operations are registered.
 */
int ws_op_register(struct ws_op *op)
{
	unsigned int slot;
	int ret = 0;

	if (!op->run || !wsd_op_name_ok(op->name))
		return -EINVAL;
	if (op->flags & ~(WS_OP_RANGE | WS_OP_RANGE2 | WS_OP_SPLIT))
		return -EINVAL;
	if ((op->flags & (WS_OP_RANGE2 | WS_OP_SPLIT)) &&
	    !(op->flags & WS_OP_RANGE))
		return -EINVAL;
	if (op->range2_len && !(op->flags & WS_OP_RANGE2))
		return -EINVAL;

	mutex_lock(&wsd_ops_lock);
	if (wsd_op_find(op->name)) {
		ret = -EEXIST;
		goto out;
	}
	for (slot = 0; slot < ARRAY_SIZE(wsd_dyn_ops); slot++)
		if (!wsd_dyn_ops[slot])
			break;
	if (slot == ARRAY_SIZE(wsd_dyn_ops)) {
		ret = -ENOSPC;
		goto out;
	}
	atomic_set(&op->users, 0);
	wsd_dyn_gen[slot] = (wsd_dyn_gen[slot] + 1) % WSD_OP_GENS;
	op->id = WSCHED_OP_DYNAMIC + slot +
		 WSCHED_OP_DYNAMIC_MAX * wsd_dyn_gen[slot];
	wsd_dyn_ops[slot] = op;
out:
	mutex_unlock(&wsd_ops_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(ws_op_register);

/**
 * ws_op_unregister - withdraw an operation from /dev/wsched
 * @op: an operation ws_op_register() accepted
 *
 * From the start of the call no new submission finds @op, by name or by
 * number; the call then waits until every node that already took it has
 * finished with it.  Its number may then be given to another operation.
 *
 * Nodes hold a reference on @op->owner too, so a module that unregisters
 * from its exit function never waits here: it cannot be unloaded while a
 * node uses its operation.
 *
 * Context: process context, sleeps.
 */
void ws_op_unregister(struct ws_op *op)
{
	u32 slot = wsd_op_slot(op->id);

	mutex_lock(&wsd_ops_lock);
	if (WARN_ON(op->id < WSCHED_OP_DYNAMIC || wsd_dyn_ops[slot] != op)) {
		mutex_unlock(&wsd_ops_lock);
		return;
	}
	wsd_dyn_ops[slot] = NULL;
	mutex_unlock(&wsd_ops_lock);
	/*
	 * Every wsd_op_get() that found @op incremented users under the
	 * lock, before we took it, so the unlock orders those increments
	 * before this read.  The condition pairs with the fully ordered
	 * atomic_dec_and_test() and wake_up_var() in wsd_op_put().
	 */
	wait_var_event(&op->users, !atomic_read(&op->users));
}
EXPORT_SYMBOL_GPL(ws_op_unregister);

/**
 * wsd_op_get - take an operation by number for a node
 * @id: WSCHED_OP_* or a registered operation's number
 *
 * For a registered operation this takes a reference on its users count
 * and on its owner module; release both with wsd_op_put().  Built-in
 * operations need no reference (wsd_op_put() ignores them).
 *
 * Context: process context; may sleep for the table's lock.
 * Return: the operation, or NULL if @id is unknown or its module is going
 * away.
 */
const struct ws_op *wsd_op_get(u32 id)
{
	struct ws_op *op;
	u32 slot;

	/* @id comes from user space: no speculation past the bounds. */
	if (id < ARRAY_SIZE(wsd_builtin_ops))
		return &wsd_builtin_ops[array_index_nospec(id,
						ARRAY_SIZE(wsd_builtin_ops))];
	if (id < WSCHED_OP_DYNAMIC)
		return NULL;
	slot = array_index_nospec(wsd_op_slot(id), ARRAY_SIZE(wsd_dyn_ops));
	mutex_lock(&wsd_ops_lock);
	op = wsd_dyn_ops[slot];
	/* A number of an earlier generation names nothing. */
	if (op && op->id == id && try_module_get(op->owner))
		atomic_inc(&op->users);	/* read by ws_op_unregister() */
	else
		op = NULL;
	mutex_unlock(&wsd_ops_lock);
	return op;
}
EXPORT_SYMBOL_NS_GPL(wsd_op_get, WSCHED_INTERNAL);

/**
 * wsd_op_put - drop what wsd_op_get() took
 * @op: the operation it returned
 *
 * Context: any; does not sleep.
 */
void wsd_op_put(const struct ws_op *op)
{
	struct ws_op *o = (struct ws_op *)op;
	struct module *owner;

	if (wsd_op_builtin(op))
		return;
	/* @o may be freed once users reaches 0: read the owner first. */
	owner = o->owner;
	/*
	 * Fully ordered: everything the node did with @o comes before the
	 * count falls to 0, which the wait_var_event() condition in
	 * ws_op_unregister() reads.  wake_up_var() only hashes the address.
	 */
	if (atomic_dec_and_test(&o->users))
		wake_up_var(&o->users);
	module_put(owner);
}
EXPORT_SYMBOL_NS_GPL(wsd_op_put, WSCHED_INTERNAL);

/**
 * wsd_op_lookup - find an operation by name
 * @name: NUL-terminated name
 * @info: filled in with the operation's number, flags and name
 *
 * Context: process context, may sleep.
 * Return: 0, or -ENOENT if no operation has that name.
 */
int wsd_op_lookup(const char *name, struct wsched_op_info *info)
{
	const struct ws_op *op;

	mutex_lock(&wsd_ops_lock);
	op = wsd_op_find(name);
	if (op)
		wsd_op_info(op, info);
	mutex_unlock(&wsd_ops_lock);
	return op ? 0 : -ENOENT;
}
EXPORT_SYMBOL_NS_GPL(wsd_op_lookup, WSCHED_INTERNAL);

/**
 * wsd_op_list - describe every operation
 * @infos: room for @room entries; may be NULL if @room is 0
 * @room: how many entries to fill at most
 *
 * Fills @infos with the built-in operations in number order, then the
 * registered ones in number order, as many as fit.
 *
 * Context: process context, may sleep.
 * Return: how many operations there are (may exceed @room).
 */
u32 wsd_op_list(struct wsched_op_info *infos, u32 room)
{
	u32 i, n = 0;

	mutex_lock(&wsd_ops_lock);
	for (i = 0; i < ARRAY_SIZE(wsd_builtin_ops); i++, n++)
		if (n < room)
			wsd_op_info(&wsd_builtin_ops[i], &infos[n]);
	for (i = 0; i < ARRAY_SIZE(wsd_dyn_ops); i++) {
		if (!wsd_dyn_ops[i])
			continue;
		if (n < room)
			wsd_op_info(wsd_dyn_ops[i], &infos[n]);
		n++;
	}
	mutex_unlock(&wsd_ops_lock);
	return n;
}
EXPORT_SYMBOL_NS_GPL(wsd_op_list, WSCHED_INTERNAL);

/**
 * wsd_builtin_ops_mask - the built-in operations
 *
 * Return: bit (1 << op) set for every built-in WSCHED_OP_*.
 */
u64 wsd_builtin_ops_mask(void)
{
	return GENMASK_ULL(ARRAY_SIZE(wsd_builtin_ops) - 1, 0);
}
EXPORT_SYMBOL_NS_GPL(wsd_builtin_ops_mask, WSCHED_INTERNAL);

/**
 * wsd_ops_init - set up the table of operations
 *
 * Return: 0.
 */
int wsd_ops_init(void)
{
	BUILD_BUG_ON(ARRAY_SIZE(wsd_builtin_ops) != WSCHED_OP_LAST + 1);
	BUILD_BUG_ON(WSCHED_OP_LAST >= 64);
	BUILD_BUG_ON(WSCHED_OP_DYNAMIC <= WSCHED_OP_LAST);
	return 0;
}

/**
 * wsd_ops_exit - tear the table of operations down
 *
 * Every module that registered an operation uses wsched's symbols, so it
 * is gone, and has unregistered, before wsched can be unloaded.
 */
void wsd_ops_exit(void)
{
	unsigned int i;

	mutex_lock(&wsd_ops_lock);
	for (i = 0; i < ARRAY_SIZE(wsd_dyn_ops); i++)
		WARN(wsd_dyn_ops[i], "operation %s still registered\n",
		     wsd_dyn_ops[i]->name);
	mutex_unlock(&wsd_ops_lock);
}
