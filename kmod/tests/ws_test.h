/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by wsched's KUnit suites: pools that KUnit destroys when
 * a test case ends, however it ends (a failed assertion or a skip
 * included), so that no case leaves a pool, its threads and a reference
 * on the module behind.
 */
#ifndef _WS_TEST_H
#define _WS_TEST_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/wsched.h>

static inline int ws_test_pool_init(struct kunit_resource *res, void *pool)
{
	res->data = pool;
	return 0;
}

static inline void ws_test_pool_free(struct kunit_resource *res)
{
	ws_pool_destroy(res->data);
}

static inline bool ws_test_pool_match(struct kunit *test,
				      struct kunit_resource *res, void *pool)
{
	return res->data == pool;
}

/* A pool (ws_pool_create_attrs()) that KUnit destroys at the case's end. */
static inline struct ws_pool *ws_test_pool(struct kunit *test,
					   const char *name,
					   const struct ws_pool_attrs *attrs)
{
	struct ws_pool *pool = ws_pool_create_attrs(name, attrs);
	void *tracked;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	tracked = kunit_alloc_resource(test, ws_test_pool_init,
				       ws_test_pool_free, GFP_KERNEL, pool);
	if (!tracked)
		ws_pool_destroy(pool);
	KUNIT_ASSERT_NOT_NULL(test, tracked);
	return pool;
}

/* Destroy a pool from ws_test_pool() before the case ends. */
static inline void ws_test_pool_destroy(struct kunit *test,
					struct ws_pool *pool)
{
	KUNIT_EXPECT_EQ(test, kunit_destroy_resource(test, ws_test_pool_match,
						     pool), 0);
}

#endif /* _WS_TEST_H */
