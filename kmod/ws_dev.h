/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wsched, the user-space interface (dev.c).
 */
#ifndef _WS_DEV_H
#define _WS_DEV_H

int ws_dev_init(void);
void ws_dev_exit(void);

#endif /* _WS_DEV_H */
