/* SPDX-License-Identifier: GPL-2.0 */
#include "../../native_kernel.h"
