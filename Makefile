# SPDX-License-Identifier: GPL-2.0
#
# wsched: work-stealing thread pools for the Linux kernel.
#
#   make              build the modules against KDIR (default: running kernel;
#                     any installed header set, e.g.
#                     KDIR=/usr/src/linux-headers-6.12.118+deb12-rt-amd64)
#   make clean        remove build outputs
#   make install      wsched.ko into /lib/modules/<KDIR's release>/updates
#                     (+ depmod), the uapi header, libwsched (+ pkg-config),
#                     wsctl, the manual pages (wsched(7), libwsched's
#                     section 3, wsctl(1), into mandir, default
#                     PREFIX/share/man) and the udev rule; PREFIX
#                     (/usr/local), DESTDIR
#   make dkms-install register wsched with DKMS and build and install it for
#                     every kernel with headers; make dkms-remove undoes it
#   make check        the whole test run: debug kernel (KASAN, lockdep,
#                     kmemleak, KUnit), Debian's stock 6.1, 6.12 and
#                     6.12-rt kernels in QEMU, and packaging on the host
#   make check-debug  only the debug-kernel stage
#   make check-kcsan  the debug kernel's KCSAN flavour (KASAN swapped for
#                     KCSAN; a second cached kernel, built on first use):
#                     KUnit, selftests, torture; not part of make check
#   make check-stock  only the stock 6.1 stage (check-stock-6.12,
#                     check-stock-rt, check-packaging likewise)
#   make torture      wsched_torture.ko on the debug kernel for DURATION
#                     seconds (default 600), CPU hotplug included
#   make kernel       build (or reuse) the cached debug kernel only
#                     (make kernel-kcsan: its KCSAN flavour)
#   make selftests    build the kselftests (static) into .build/selftests
#   make demo         boot the stock kernel, run the smoke module, show stats
#   make checkpatch   checkpatch.pl --strict on the C sources
#
# The debug kernel is cached in $(WSCHED_CACHE) (default /var/cache/wsched),
# keyed by tools/qemu/kernel.config, the build script and the linux-source
# version; $(WSCHED_CACHE)/kernel-current/obj is a KDIR for it.

KDIR ?= /lib/modules/$(shell uname -r)/build
RIG := tools/qemu

# make install
PREFIX ?= /usr/local
DESTDIR ?=
UDEV_RULES_DIR ?= /etc/udev/rules.d
KRELEASE = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
DKMS_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
DKMS_SRC := /usr/src/wsched-$(DKMS_VERSION)

modules:
	@test -f $(KDIR)/Makefile || { echo "no kernel build tree at KDIR=$(KDIR);" \
		"install linux-headers-<version> or pass KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# Only wsched.ko (and wsched_test.ko on a KUnit kernel) is installed, built
# in kmod/ on its own; the smoke module of the top-level Kbuild is a test.
install: install-module install-user

install-module:
	@test -n "$(KRELEASE)" || { echo "KDIR=$(KDIR) has no kernel.release" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules
	$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod INSTALL_MOD_PATH=$(DESTDIR) \
		INSTALL_MOD_DIR=updates modules_install
	$(if $(DESTDIR),,depmod -a $(KRELEASE))

install-user:
	$(MAKE) -C tools/libwsched install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	$(MAKE) -C tools/wsctl install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)$(UDEV_RULES_DIR)
	install -m 644 udev/60-wsched.rules $(DESTDIR)$(UDEV_RULES_DIR)/
	@# On the live system: the group, and udev applies the rule now.
	$(if $(DESTDIR),,getent group wsched >/dev/null || groupadd --system wsched)
	$(if $(DESTDIR),,-udevadm control --reload && \
		udevadm trigger --subsystem-match=misc --sysname-match=wsched)

dkms-install:
	rm -rf $(DKMS_SRC)
	install -d $(DKMS_SRC)
	tar -cf - dkms.conf Kbuild kmod uapi | tar -C $(DKMS_SRC) -xf -
	dkms add -m wsched -v $(DKMS_VERSION)
	@# Every kernel that has headers; dkms rebuilds for later ones itself.
	for k in $$(ls /lib/modules); do \
		test -e /lib/modules/$$k/build/Makefile || continue; \
		dkms install -m wsched -v $(DKMS_VERSION) -k $$k || exit 1; \
	done

dkms-remove:
	-dkms remove -m wsched -v $(DKMS_VERSION) --all
	rm -rf $(DKMS_SRC)

clean:
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR) clean)
	$(if $(wildcard $(KDIR)/Makefile),$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean)
	rm -rf .build
	rm -f selftests/wsched/stats_test selftests/wsched/smoke_test selftests/wsched/dev_test

check:
	@$(RIG)/run.sh

check-debug:
	@$(RIG)/run.sh --stage debug

check-stock:
	@$(RIG)/run.sh --stage stock

check-kcsan:
	@$(RIG)/run.sh --stage kcsan

DURATION ?= 600
torture:
	@$(RIG)/run.sh --torture $(DURATION)

check-stock-6.12:
	@$(RIG)/run.sh --stage stock-6.12

check-stock-rt:
	@$(RIG)/run.sh --stage stock-6.12-rt

check-packaging:
	@$(RIG)/run.sh --stage packaging

kernel:
	$(RIG)/deps.sh debug
	$(RIG)/build-kernel.sh

kernel-kcsan:
	$(RIG)/deps.sh debug
	$(RIG)/build-kernel.sh kcsan

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

.PHONY: modules clean install install-module install-user dkms-install dkms-remove \
	check check-debug check-kcsan check-stock check-stock-6.12 check-stock-rt check-packaging torture \
	kernel kernel-kcsan selftests demo checkpatch bench
