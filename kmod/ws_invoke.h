/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsched: what invoke.c (ws_parallel_invoke()'s out-of-line paths and the
 * heartbeat) offers the rest of the module and the tests.  The inline
 * part and its state are in <linux/wsched.h>.
 */
#ifndef _WS_INVOKE_H
#define _WS_INVOKE_H

struct ws_pool;
struct ws_task;
struct ws_worker;

/* Microseconds between heartbeats (module parameter heartbeat_us). */
extern unsigned int ws_heartbeat_us;
int ws_heartbeat_init(struct ws_worker *worker);
void ws_heartbeat_free(struct ws_worker *worker);
void ws_heartbeat_stop(struct ws_worker *worker);
bool ws_heartbeat_start(struct ws_worker *worker);

/* Promote the owner's oldest private frame (the owner, interrupts on). */
void ws_invoke_offer(struct ws_worker *worker);
/* A thief's side: take the promotion cell, or ask for a promotion. */
struct ws_task *ws_take_promoted(struct ws_worker *victim);
void ws_invoke_request(struct ws_worker *victim);
void ws_latent_request(struct ws_worker *victim);
void ws_heartbeat_kick(struct ws_worker *victim);
/* A worker about to sleep kicks the heartbeats that stopped too early. */
void ws_heartbeat_kick_idle(struct ws_pool *pool);

/* Record the frames' isolation and switch to @tag (ws_isolation_enter()). */
void ws_isolation_switch(struct ws_worker *worker, unsigned long tag);

#endif /* _WS_INVOKE_H */
