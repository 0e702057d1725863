# SPDX-License-Identifier: GPL-2.0
#
# Out-of-tree entry point of the RDMA core patch set.
#
# The modules are built with the kernel's own Kbuild against KDIR (by default
# the newest installed Debian 6.12 headers).  The folders under drivers/ and
# include/ are laid out as in a kernel tree and carry Kconfig/Makefile files
# that also work when they are dropped into a kernel source tree.
#
#   make                      build every module (W=1 warning-free)
#   make modules_install      INSTALL_MOD_PATH=DIR -> DIR/lib/modules/<kver>/updates
#   make modules_uninstall    remove what modules_install put there
#   make selftests_install    the KTAP test modules and test ULPs, into
#                             updates/selftests (for the kselftest target)
#   make lint                 checkpatch --strict, sparse, kernel-doc
#   make unit                 user-space unit tests of the pure files (ASan+UBSan)
#   make fuzz                 libFuzzer targets, FUZZ_SECONDS=N each (default 10)
#   make check                deps, build, every test; last line "N passed, N failed"
#   make run                  the end-to-end demo on two QEMU guests
#   make bench                our stack against stock rxe, side by side
#   make debug-kernel         the guests' 6.12 kernel with KASAN, lockdep, UBSAN,
#                             kmemleak, fault injection (plain-kernel: without)
#   make check RDMA_KERNEL=debug   every guest test on that kernel
#   make intree               build inside Linux 6.12's source with every in-tree RDMA user
#   make deps                 install the Debian packages the above need

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

KDIR ?= $(shell ls -d /lib/modules/6.12*/build 2>/dev/null | sort -V | tail -n 1)
KVER ?= $(if $(KDIR),$(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null))

SELFTESTS := $(TOP)/tools/testing/selftests/rdma
TESTMODS := $(SELFTESTS)/modules
ULPSRC := $(SELFTESTS)/ulp
BENCHSRC := $(SELFTESTS)/bench
STAGE ?= $(TOP)/build/stage
# The test ULP built against the stock kernel (its headers and symbols), for
# stock guests: one source, built for each stack, in a folder per kernel
# release (a debug run builds it for two kernels, see stage-stock).
STOCK_ULP := $(TOP)/build/stock/$(KVER)/ulp
STAGE_STOCK ?= $(TOP)/build/stage-stock
# The same for the load generator of make bench.
STOCK_BENCH := $(TOP)/build/stock/$(KVER)/bench

# Our include/ must be searched before the kernel's own include/ so that
# <rdma/...> resolves to this tree.  Kbuild puts NOSTDINC_FLAGS ahead of
# LINUXINCLUDE; setting it on the command line replaces the kernel's value,
# so -nostdinc is repeated here.
OURINC := NOSTDINC_FLAGS="-nostdinc -I$(TOP)/include"

# Recipes that run $(KMAKE) start with "+": make only hands its jobserver
# (-jN) to lines where it sees $(MAKE) itself, not through a variable.
# Debian's kernel is configured without soft-iWARP (CONFIG_RDMA_SIW), which
# this tree provides: the out-of-tree build sets it.
KMAKE = $(MAKE) -C $(KDIR) $(OURINC) CONFIG_RDMA_SIW=m $(if $(W),W=$(W)) $(if $(C),C=$(C))
# Sign at install time only when the kernel build tree holds a signing key
# (Debian's headers do not); modules installed for the tests stay unsigned
# and uncompressed, and without debug info, which is most of their size:
# every guest copies them and loads them from the host's disk over 9p.
# Build IDs and symbols stay; the objects in the build tree keep the debug
# info for decoding a trace.
KSIGN = $(if $(wildcard $(KDIR)/output/signing_key.pem $(KDIR)/certs/signing_key.pem),,CONFIG_MODULE_SIG_ALL=)
KINSTALL = CONFIG_MODULE_SIG_ALL= CONFIG_MODULE_COMPRESS_ALL= INSTALL_MOD_STRIP=1

.PHONY: all modules testmods ulp-stock bench-stock bench clean distclean modules_install \
	modules_uninstall selftests_install stage stage-stock deps lint check run help kdir-check print-kver \
	unit fuzz \
	debug-kernel plain-kernel intree nvme-ulps siw-stock

all: modules testmods

kdir-check:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || { \
		echo "no kernel build tree: install linux-headers-6.12-amd64 (make deps) or set KDIR" >&2; \
		exit 1; }

modules: kdir-check
	+$(KMAKE) M=$(TOP) modules

# Test modules are built against this tree as any outside module would be:
# our headers plus our Module.symvers.
testmods: modules
	+$(KMAKE) M=$(TESTMODS) KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers modules
	+$(KMAKE) M=$(ULPSRC) KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers modules
	+$(KMAKE) M=$(BENCHSRC) KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers modules

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_DIR=updates $(KSIGN) \
		$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH))) \
		modules_install
	$(if $(INSTALL_MOD_PATH),@echo "staged under $(INSTALL_MOD_PATH); run 'depmod $(KVER)' on the target",depmod $(KVER))

# Undo modules_install.  The modules are the ones the build lists in
# modules.order, each at the path Kbuild's modules_install gives it under
# updates/, with or without the compression suffix the kernel's
# configuration adds; directories left empty under updates/ go as well.
# Nothing else is touched, so the inbox modules are in charge again once
# depmod has run.
INSTALL_UPDATES = $(if $(INSTALL_MOD_PATH),$(abspath $(INSTALL_MOD_PATH)))/lib/modules/$(KVER)/updates

modules_uninstall: modules
	@test -n "$(KVER)" || { echo "no kernel release: set KDIR" >&2; exit 1; }
	@sed -n -e 's:^$(TOP)/::' -e 's:\.o$$::p' $(TOP)/modules.order | while read -r m; do \
		for f in $(INSTALL_UPDATES)/$$m.ko $(INSTALL_UPDATES)/$$m.ko.gz \
			 $(INSTALL_UPDATES)/$$m.ko.xz $(INSTALL_UPDATES)/$$m.ko.zst; do \
			if [ -e "$$f" ]; then echo "  RM      $$f"; rm -f "$$f" || exit 1; fi; \
		done; \
		if [ -d "$(INSTALL_UPDATES)/$${m%/*}" ]; then \
			(cd "$(INSTALL_UPDATES)" && rmdir -p --ignore-fail-on-non-empty "$${m%/*}"); \
		fi; \
	done
	$(if $(INSTALL_MOD_PATH),@echo "removed from $(INSTALL_MOD_PATH); run 'depmod $(KVER)' on the target",depmod $(KVER))

# What tools/testing/selftests/rdma needs on the machine under test, besides
# modules_install: the KTAP test modules and the test ULPs.
selftests_install: testmods
	$(MAKE) -C $(KDIR) M=$(TESTMODS) INSTALL_MOD_DIR=updates/selftests $(KSIGN) \
		$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH))) \
		DEPMOD=true modules_install
	$(MAKE) -C $(KDIR) M=$(ULPSRC) INSTALL_MOD_DIR=updates/selftests $(KSIGN) \
		$(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH))) \
		DEPMOD=true modules_install
	$(if $(INSTALL_MOD_PATH),@echo "staged under $(INSTALL_MOD_PATH); run 'depmod $(KVER)' on the target",depmod $(KVER))

ulp-stock: kdir-check
	mkdir -p $(STOCK_ULP)
	cp $(ULPSRC)/Kbuild $(ULPSRC)/*.[ch] $(STOCK_ULP)/
	$(MAKE) -C $(KDIR) $(if $(W),W=$(W)) M=$(STOCK_ULP) modules

# The bench includes the ULP's headers, which ulp-stock puts in place (a
# copy made here too could rewrite one under ulp-stock's compiler).
bench-stock: ulp-stock
	mkdir -p $(STOCK_BENCH)
	cp $(BENCHSRC)/Kbuild $(BENCHSRC)/*.[ch] $(STOCK_BENCH)/
	$(MAKE) -C $(KDIR) $(if $(W),W=$(W)) M=$(STOCK_BENCH) modules

# Debian's linux-source-6.12: Linux's own sources of the ULPs and of the
# soft-iWARP peer below, which are built at test time.
LINUX_TARBALL := $(lastword $(sort $(wildcard /usr/src/linux-source-6.12*.tar.xz)))

# NVMe over RDMA, host (nvme-rdma) and target (nvmet-rdma), for the
# nvme_rdma test: Linux's own sources from Debian's linux-source-6.12,
# unpacked into build/ (never into the tree) and built against this tree
# as any outside ULP is (our include/ and Module.symvers).  They run on the
# kernel's own nvme-core, nvme-fabrics and nvmet, so a kernel configured
# without those (or a machine without linux-source-6.12) gets neither; the
# test then says so.  Upstream's code: built without W/C.
NVME_SRC := $(TOP)/build/nvme/src
NVME_BUILD := $(TOP)/build/nvme/$(KVER)
NVME_ULPS := $(if $(LINUX_TARBALL),$(filter 2,$(shell grep -sE \
	'^CONFIG_NVME_(FABRICS|TARGET)=[ym]$$' $(KDIR)/include/config/auto.conf | wc -l)))
NVME_KMAKE = $(MAKE) -C $(KDIR) $(OURINC) W= C= KBUILD_EXTRA_SYMBOLS=$(TOP)/Module.symvers

$(NVME_SRC)/.unpacked: $(LINUX_TARBALL)
	rm -rf $(NVME_SRC)
	mkdir -p $(NVME_SRC)
	tar -C $(NVME_SRC) --strip-components=1 --wildcards -xJf $(LINUX_TARBALL) \
		'*/drivers/nvme/host/*' '*/drivers/nvme/target/*'
	touch $@

# build/nvme/KVER/{host,target}: rdma.c and the folder's headers, and a
# Kbuild for the one module.
$(NVME_BUILD)/host/Kbuild $(NVME_BUILD)/target/Kbuild: $(NVME_SRC)/.unpacked
	mkdir -p $(@D)
	cp $(NVME_SRC)/drivers/nvme/$(notdir $(@D))/rdma.c $(NVME_SRC)/drivers/nvme/$(notdir $(@D))/*.h $(@D)/
	printf 'obj-m += %s.o\n%s-y := rdma.o\nccflags-y += -I$$(src)\n' \
		$(NVME_MOD_$(notdir $(@D))) $(NVME_MOD_$(notdir $(@D))) >$@
NVME_MOD_host := nvme-rdma
NVME_MOD_target := nvmet-rdma

# Kbuild reruns modpost when the kernel's Module.symvers changes, not
# when ours (KBUILD_EXTRA_SYMBOLS) does: the modules would keep the symbol
# versions of the core they were first linked against.  Dropping their
# Module.symvers when ours is newer makes modpost run again.
ifneq ($(NVME_ULPS),)
nvme-ulps: modules $(NVME_BUILD)/host/Kbuild $(NVME_BUILD)/target/Kbuild
	for d in host target; do \
		if [ $(TOP)/Module.symvers -nt $(NVME_BUILD)/$$d/Module.symvers ]; then \
			rm -f $(NVME_BUILD)/$$d/Module.symvers; fi; \
	done
	+$(NVME_KMAKE) M=$(NVME_BUILD)/host modules
	+$(NVME_KMAKE) M=$(NVME_BUILD)/target modules
else
nvme-ulps:
	@echo "nvme-ulps: skipped: no /usr/src/linux-source-6.12*.tar.xz or no CONFIG_NVME_FABRICS/CONFIG_NVME_TARGET in $(KDIR)"
endif

# Linux's own soft-iWARP driver, siw.ko, the peer of our siw on the stock
# guests: Debian's kernel does not build it (CONFIG_RDMA_SIW unset).  Its
# sources come from Debian's linux-source-6.12, unpacked into build/ (never
# into the tree), and it is built against the stock kernel as it is (KDIR's
# headers and Module.symvers, where the stock ib_core's symbols are), with
# the object list of the unpacked Makefile.  Upstream's code: built without
# W/C.  Without the tarball there is no siw.ko; the tests that need it
# then fail saying so.
SIW_SRC := $(TOP)/build/siw-stock/src
SIW_BUILD := $(TOP)/build/stock/$(KVER)/siw

$(SIW_SRC)/.unpacked: $(LINUX_TARBALL)
	rm -rf $(SIW_SRC)
	mkdir -p $(SIW_SRC)
	tar -C $(SIW_SRC) --strip-components=1 --wildcards -xJf $(LINUX_TARBALL) \
		'*/drivers/infiniband/sw/siw/*'
	touch $@

# The folder's sources and a Kbuild that is its Makefile with the one
# module made unconditional (obj-$(CONFIG_RDMA_SIW) -> obj-m).
$(SIW_BUILD)/Kbuild: $(SIW_SRC)/.unpacked
	rm -rf $(@D)
	mkdir -p $(@D)
	cp $(SIW_SRC)/drivers/infiniband/sw/siw/*.[ch] $(@D)/
	sed 's/^obj-$$(CONFIG_RDMA_SIW)[[:space:]]*+=/obj-m +=/' \
		$(SIW_SRC)/drivers/infiniband/sw/siw/Makefile >$@.tmp
	grep -qx 'obj-m += siw.o' $@.tmp || { \
		echo "siw-stock: no 'obj-\$$(CONFIG_RDMA_SIW) += siw.o' in the unpacked Makefile" >&2; \
		exit 1; }
	mv $@.tmp $@

ifneq ($(LINUX_TARBALL),)
siw-stock: kdir-check $(SIW_BUILD)/Kbuild
	+$(MAKE) -C $(KDIR) W= C= M=$(SIW_BUILD) modules
else
siw-stock:
	@echo "siw-stock: skipped: no /usr/src/linux-source-6.12*.tar.xz (install linux-source-6.12)"
endif

# What stock guests load on top of their kernel's own RDMA stack: the stock
# builds of the test ULP and of the bench load generator, and Linux's siw
# (updates/siw.ko).  On its own, with KDIR and STAGE_STOCK set, it stages
# them for another kernel than the project guests' (make check RDMA_KERNEL=debug boots its stock peers on
# Debian's kernel).
stage-stock: ulp-stock bench-stock siw-stock
	rm -rf $(STAGE_STOCK)
	$(MAKE) -C $(KDIR) M=$(STOCK_ULP) INSTALL_MOD_PATH=$(STAGE_STOCK) \
		INSTALL_MOD_DIR=updates DEPMOD=true $(KINSTALL) modules_install
	$(MAKE) -C $(KDIR) M=$(STOCK_BENCH) INSTALL_MOD_PATH=$(STAGE_STOCK) \
		INSTALL_MOD_DIR=updates DEPMOD=true $(KINSTALL) modules_install
	$(if $(LINUX_TARBALL),$(MAKE) -C $(KDIR) M=$(SIW_BUILD) INSTALL_MOD_PATH=$(STAGE_STOCK) \
		INSTALL_MOD_DIR=updates DEPMOD=true $(KINSTALL) modules_install)

# What the QEMU guests load: every module plus the KTAP test modules, and
# stage-stock for the stock guests; our builds of nvme-rdma and nvmet-rdma
# (nvme-ulps) go to updates/drivers/nvme, ahead of the kernel's own.
stage: all stage-stock nvme-ulps
	rm -rf $(STAGE)
	$(MAKE) -C $(KDIR) M=$(TOP) INSTALL_MOD_PATH=$(STAGE) INSTALL_MOD_DIR=updates \
		DEPMOD=true $(KINSTALL) modules_install
	$(MAKE) -C $(KDIR) M=$(TESTMODS) INSTALL_MOD_PATH=$(STAGE) \
		INSTALL_MOD_DIR=updates/selftests DEPMOD=true $(KINSTALL) modules_install
	$(MAKE) -C $(KDIR) M=$(ULPSRC) INSTALL_MOD_PATH=$(STAGE) \
		INSTALL_MOD_DIR=updates/selftests DEPMOD=true $(KINSTALL) modules_install
	$(MAKE) -C $(KDIR) M=$(BENCHSRC) INSTALL_MOD_PATH=$(STAGE) \
		INSTALL_MOD_DIR=updates/selftests DEPMOD=true $(KINSTALL) modules_install
	$(if $(NVME_ULPS),$(MAKE) -C $(KDIR) M=$(NVME_BUILD)/host INSTALL_MOD_PATH=$(STAGE) \
		INSTALL_MOD_DIR=updates/drivers/nvme/host DEPMOD=true $(KINSTALL) modules_install)
	$(if $(NVME_ULPS),$(MAKE) -C $(KDIR) M=$(NVME_BUILD)/target INSTALL_MOD_PATH=$(STAGE) \
		INSTALL_MOD_DIR=updates/drivers/nvme/target DEPMOD=true $(KINSTALL) modules_install)

clean:
	-test -n "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(TOP) clean
	-test -n "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(TESTMODS) clean
	-test -n "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(ULPSRC) clean
	-test -n "$(KDIR)" && $(MAKE) -C $(KDIR) M=$(BENCHSRC) clean
	rm -rf $(STAGE) $(STAGE_STOCK) $(TOP)/build/stock $(TOP)/build/siw-stock
	$(MAKE) -s -C $(UNITDIR) clean

# Also drop the QEMU harness cache, test results and the lint tools.
distclean: clean
	rm -rf $(TOP)/build $(TOP)/.cache

deps:
	@bash $(SELFTESTS)/deps.sh

lint: kdir-check
	@bash $(SELFTESTS)/lint.sh

# Unit tests and fuzzers run in user space: no kernel tree needed.
UNITDIR := $(TOP)/tools/testing/rdma-unit

unit:
	@$(MAKE) -s -C $(UNITDIR) run

fuzz:
	@$(MAKE) -s -C $(UNITDIR) fuzz

check: deps
	@bash $(SELFTESTS)/check.sh

run: deps stage
	@bash $(SELFTESTS)/run_demo.sh

# Not part of make check: boots guests of each stack, prints one
# "bench: NAME project=X stock=Y ratio=R" line per measure, writes JSON.
bench: deps stage
	@bash $(BENCHSRC)/run_bench.sh

# The guests' own kernel, built from Debian's linux-source-6.12 and cached
# (tools/testing/rdma-kernel/kernel.sh); its last line names KDIR, KROOT and
# KVER for make check RDMA_KERNEL=debug|plain.
debug-kernel plain-kernel: deps
	@bash $(TOP)/tools/testing/rdma-kernel/kernel.sh $(@:-kernel=)

# Not part of make check: lays this tree over Debian's linux-source-6.12,
# configures it from Debian's config and builds the core, the providers and
# every in-tree user of ib_core Debian enables; one line per module and
# "intree: N of M modules built and linked".
intree: deps
	@bash $(TOP)/tools/testing/rdma-kernel/intree.sh

help:
	@sed -n '3,25p' $(TOP)/Makefile

print-kver:
	@echo $(KVER)
