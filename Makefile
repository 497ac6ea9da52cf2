# SPDX-License-Identifier: GPL-2.0
#
# wsched: work-stealing thread pools for the Linux kernel.
#
#   make              build the modules against KDIR (default: running kernel)
#   make clean        remove build outputs
#   make check        the whole test run: debug kernel (KASAN, lockdep,
#                     kmemleak, KUnit) and Debian's stock kernel, in QEMU
#   make check-debug  only the debug-kernel stage
#   make check-stock  only the stock-kernel stage
#   make torture      wsched_torture.ko on the debug kernel for DURATION
#                     seconds (default 600), CPU hotplug included
#   make kernel       build (or reuse) the cached debug kernel only
#   make selftests    build the kselftests (static) into .build/selftests
#   make demo         boot the stock kernel, run the smoke module, show stats
#   make checkpatch   checkpatch.pl --strict on the C sources
#
# The debug kernel is cached in $(WSCHED_CACHE) (default /var/cache/wsched),
# keyed by tools/qemu/kernel.config, the build script and the linux-source
# version; $(WSCHED_CACHE)/kernel-current/obj is a KDIR for it.

KDIR ?= /lib/modules/$(shell uname -r)/build
RIG := tools/qemu

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	rm -rf .build
	rm -f selftests/wsched/stats_test selftests/wsched/smoke_test selftests/wsched/dev_test

check:
	@$(RIG)/run.sh

check-debug:
	@$(RIG)/run.sh --stage debug

check-stock:
	@$(RIG)/run.sh --stage stock

DURATION ?= 600
torture:
	@$(RIG)/run.sh --torture $(DURATION)

kernel:
	$(RIG)/deps.sh debug
	$(RIG)/build-kernel.sh

selftests:
	$(RIG)/deps.sh debug
	$(MAKE) -C selftests/wsched KSFT_DIR=$$($(RIG)/build-kernel.sh)/src/linux/tools/testing/selftests \
		OUTPUT=$(CURDIR)/.build/selftests

demo:
	@$(RIG)/run.sh --demo

checkpatch:
	@$(RIG)/checkpatch.sh

bench:
	@tools/bench/run.sh

.PHONY: modules clean check check-debug check-stock torture kernel selftests demo checkpatch bench
