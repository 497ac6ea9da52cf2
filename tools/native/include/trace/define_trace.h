/* SPDX-License-Identifier: GPL-2.0 */
/* Nothing to generate: see linux/tracepoint.h. */
