# SPDX-License-Identifier: GPL-2.0-or-later
#
# The kernel module and its tests in QEMU.  Included from the top-level
# Makefile; paths are from the top.
#
#   make kmod          build kernel/ptrace_bts/ with kbuild, out of the source
#                      tree (in $(O)/kmod/), W=1, warnings are errors
#   make kmod-check    the same under sparse (C=2), sparse warnings are errors,
#                      then checkpatch.pl --strict (scripts/checkpatch)
#   make test-kernel   boot Debian's kernel in QEMU with the module and run
#                      tests/kernel/ in the guest; last line "N passed, N failed"
#   make test-vcpu     the same guest on the virtual CPU with BTS (scripts/vcpu
#                      builds Debian's QEMU with tests/vcpu/*.patch once, into
#                      the cache), PTI off: tests/kernel/test_vcpu*.c
#   make bench-kernel  the same guest runs tests/kernel/bench/: ptrace-step
#                      against kmod-step, figures only (PTBTS_BENCH=N: a
#                      workload of N iterations)
#   make bench-vcpu    the same on the virtual CPU with BTS, kmod-bts too:
#                      records/s as ratios between the sources, tracer
#                      syscalls per MiB of records
#
# KDIR=DIR builds against other headers (default: those of Debian's
# linux-headers-amd64); the guest boots linux-image-<KDIR's release>.

ifeq ($(origin KDIR),undefined)
KDIR_GIVEN :=
KDIR = /lib/modules/$(shell scripts/kernel-abi)/build
else
KDIR_GIVEN := 1
endif
# The release the module's vermagic names (Debian's kernel.release differs).
KERNEL_RELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
		   $(KDIR)/include/generated/utsrelease.h)

KMOD_DIR   := $(O)/kmod/ptrace_bts
KMOD_SRC   := $(sort $(wildcard kernel/ptrace_bts/*.c kernel/ptrace_bts/*.h)) \
	      kernel/ptrace_bts/Kbuild
KMOD       := $(KMOD_DIR)/ptrace_bts.ko
KBUILD_ARGS = -C $(KDIR) M=$(abspath $(KMOD_DIR)) O= \
	      PTBTS_UAPI=$(abspath include/uapi) \
	      PTBTS_BRANCH=$(abspath arch/x86/branch) \
	      PTBTS_DS=$(abspath arch/x86/ds) PTBTS_WERROR=y W=1 \
	      $(if $(V:0=),V=1)

# Images are large and change only with the headers: kept across builds and
# across clones, outside the tree, one file per kernel ABI.
PTBTS_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/ptrace-bts
KCACHE     := $(PTBTS_CACHE)/kernel

KGUEST     := $(O)/kguest
# tests/gdb/rsp_client.c: the raw gdb-protocol client, shared with the host.
KGUEST_SRC := $(sort $(wildcard tests/kernel/*.c tests/kernel/*.S)) \
	      tests/gdb/rsp_client.c
KGUEST_HAR := $(sort $(wildcard tests/harness/*.c)) $(wildcard tests/harness/*.cc)
KGUEST_OBJ := $(patsubst %,$(KGUEST)/obj/%.o,$(basename $(KGUEST_SRC) $(KGUEST_HAR)))
KGUEST_BIN := $(KGUEST)/kernel-tests
KGUEST_IMG := $(KGUEST)/initramfs.cpio

# Static (the guest has no libc), so UBSan only: ASan cannot be static.
KGUEST_SAN := -fsanitize=undefined -fno-sanitize-recover=all
KGUEST_CFLAGS := -O2 -g -std=gnu11 $(WARN) $(KGUEST_SAN) -D_GNU_SOURCE \
	-Iinclude/uapi -Itests/harness -Itests/kernel -Itests/gdb \
	-DBTS_BUILD_DIR='"/"' -DBTS_SRC_DIR='"/"'
KGUEST_CXXFLAGS := -O2 -g -std=gnu++17 -Wall -Wextra -Werror $(KGUEST_SAN) \
	-Itests/harness -DBTS_BUILD_DIR='"/"'

.PHONY: kmod kmod-build kmod-always kmod-check test-kernel kernel-guest \
	kernel-guest-files bench-kernel test-vcpu bench-vcpu

kmod:
	$(Q)$(if $(KDIR_GIVEN),true,scripts/deps kmod)
	$(Q)$(MAKE) --no-print-directory kmod-build

# kbuild builds in M=; the sources are linked there so that the source tree
# stays clean.  kbuild itself decides what to rebuild.
kmod-build: $(KMOD)

$(KMOD): kmod-always
	@mkdir -p $(KMOD_DIR)
	$(Q)for f in $(KMOD_SRC); do ln -sfn $(abspath .)/$$f $(KMOD_DIR)/; done
	$(Q)$(MAKE) $(KBUILD_ARGS) $(if $(C),C=$(C) CF=-Wsparse-error) modules

# The test build (PTBTS_TEST_HOOKS=y): the same sources and
# tests/kernel/kmod-test/ (knobs for the per-CPU mode's guest tests), in its
# own directory; the guest loads it for those tests only, as
# /ptrace_bts-test.ko.  Never installed, never in dkms.
KMOD_TEST_DIR := $(O)/kmod-test/ptrace_bts
KMOD_TEST     := $(KMOD_TEST_DIR)/ptrace_bts.ko
KMOD_TEST_SRC := $(wildcard tests/kernel/kmod-test/*.c)

$(KMOD_TEST): kmod-always
	@mkdir -p $(KMOD_TEST_DIR)
	$(Q)for f in $(KMOD_SRC) $(KMOD_TEST_SRC); do \
		ln -sfn $(abspath .)/$$f $(KMOD_TEST_DIR)/; done
	$(Q)$(MAKE) $(subst $(abspath $(KMOD_DIR)),$(abspath $(KMOD_TEST_DIR)),$(KBUILD_ARGS)) \
		PTBTS_TEST_HOOKS=y $(if $(C),C=$(C) CF=-Wsparse-error) modules

kmod-check:
	$(Q)$(if $(KDIR_GIVEN),true,scripts/deps kmod-check)
	$(Q)$(MAKE) --no-print-directory kmod-build $(KMOD_TEST) C=2
	$(Q)scripts/checkpatch

$(KGUEST)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [guest] $<")
	$(Q)$(CC) $(KGUEST_CFLAGS) -MMD -MP -c -o $@ $<

$(KGUEST)/obj/%.o: %.S
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  AS [guest] $<")
	$(Q)$(CC) -c -o $@ $<

$(KGUEST)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CXX [guest] $<")
	$(Q)$(CXX) $(KGUEST_CXXFLAGS) -MMD -MP -c -o $@ $<

# gtest's streaming listener (never used here) makes ld warn that static
# getaddrinfo needs glibc at run time: that one warning is dropped.
$(KGUEST_BIN): $(KGUEST_OBJ)
	$(if $(Q),@echo "  LD [guest] $@")
	$(Q)$(CXX) -static $(KGUEST_SAN) -o $@ $^ -lgtest -lpthread 2>$@.ld; \
	rc=$$?; grep -v -e 'getaddrinfo' -e 'StreamingListener' $@.ld >&2; \
	rm -f $@.ld; exit $$rc

# btrace and the traced programs the guest runs (dynamic ones bring libc),
# the static -m32 tracer, the benchmark: at /NAME and /progs/NAME.  The
# guest's btrace is never ASan's (TCG makes it slow enough as it is): a
# SAN=1 build makes a plain one of its own, in $(KGUEST)/bt.
KGUEST_PROGS := static-oracle agree-libc crash-deep seq-flow threads-count cli-loop session-stop \
		speed-forms i386-ksig i386-sys i386-dyn static-gdbseq \
		static-follow static-follow-exec static-follow-vm \
		static-gdbthreads limits-write
KGUEST_M32   := $(KGUEST)/tracer32
KGUEST_BENCH := $(KGUEST)/kbench
KGUEST_SUID  := $(KGUEST)/kt-suid
KGUEST_BT    := $(if $(SAN),$(KGUEST)/bt/btrace,$(BTRACE))
KGUEST_PLIB  := $(KGUEST)/percpu-lib
KGUEST_PDEC  := $(KGUEST)/pebs-decode
KGUEST_EXTRA := $(KGUEST_BT) $(KGUEST_PROGS:%=$(O)/progs/%) $(KGUEST_M32) \
		$(KMOD_TEST) $(KGUEST_PLIB) $(KGUEST_PDEC) \
		$(KGUEST_BENCH) $(KGUEST_SUID)
KGUEST_PUT   := $(KGUEST_BT)=btrace $(KMOD_TEST)=ptrace_bts-test.ko \
		$(KGUEST_PLIB)=percpu-lib $(KGUEST_PDEC)=pebs-decode \
		$(foreach p,$(KGUEST_PROGS),$(O)/progs/$(p)=progs/$(p)) \
		$(KGUEST_M32)=tracer32 $(KGUEST_BENCH)=kbench \
		$(KGUEST_SUID)=kt-suid:4755

.PHONY: kguest-bt-always
$(KGUEST)/bt/btrace: kguest-bt-always
	$(Q)$(MAKE) --no-print-directory SAN= KERNEL= O=$(KGUEST)/bt $@

# A 32-bit tracer of 64-bit programs: the uapi header and libc only.
$(KGUEST_M32): tests/kernel/m32/tracer32.c include/uapi/linux/ptrace_bts.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [m32] $@")
	$(Q)$(CC) -m32 -static -O2 -g -std=gnu11 $(WARN) -D_GNU_SOURCE \
		-Iinclude/uapi -o $@ $<

# A client of libbts's per-CPU API, linked with libbts.a as btrace is
# (never ASan's, like the guest's btrace: in a SAN=1 build, the libbts.a
# its plain build made, no second make in that directory at the same time).
KGUEST_LIBA := $(if $(SAN),$(KGUEST)/bt/libbts.a,$(LIB_A))
$(KGUEST)/bt/libbts.a: $(KGUEST)/bt/btrace ;

$(KGUEST_PLIB) $(KGUEST_PDEC): $(KGUEST)/%: tests/kernel/libbts/%.c $(KGUEST_LIBA)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [guest] $@")
	$(Q)$(CC) -O2 -g -std=gnu11 $(WARN) -D_GNU_SOURCE -Ilibbts/include \
		-Iinclude/uapi -o $@ $< $(KGUEST_LIBA) $(LIBS)

$(KGUEST_BENCH): tests/kernel/bench/kbench.c include/uapi/linux/ptrace_bts.h
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [guest] $@")
	$(Q)$(CC) -static -O2 -g -std=gnu11 $(WARN) -D_GNU_SOURCE -Iinclude/uapi \
		-o $@ $<

# The setuid-root program the tests of the ptrace link exec (test_link.c).
$(KGUEST_SUID): tests/kernel/suid/kt-suid.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [guest] $@")
	$(Q)$(CC) -static -O2 -g -std=gnu11 $(WARN) -D_GNU_SOURCE -o $@ $<

$(KGUEST_IMG): $(KGUEST_BIN) $(KMOD) $(KGUEST_EXTRA) tests/kernel/init \
	       tests/kernel/mkinitramfs
	$(if $(Q),@echo "  CPIO    $@")
	$(Q)tests/kernel/mkinitramfs $@ tests/kernel/init $(KMOD) $(KGUEST_BIN) \
		$(KGUEST_PUT)

# Everything the guest run needs, in $(KGUEST): vmlinuz, initramfs.cpio.
# The image is fetched first: on a machine with stale headers, fetching
# upgrades them, and the module must then be built against the new ones.
kernel-guest:
	$(Q)tests/kernel/fetch-kernel $(KCACHE) $(KGUEST)/vmlinuz \
		$(if $(KDIR_GIVEN),$(KERNEL_RELEASE))
	$(Q)$(MAKE) --no-print-directory kernel-guest-files C=1

kernel-guest-files: $(KGUEST_IMG)

test-kernel:
	$(Q)$(if $(KDIR_GIVEN),true,scripts/deps kernel)
	$(Q)$(MAKE) --no-print-directory kernel-guest
	$(Q)tests/kernel/qemu-run $(KGUEST)

test-vcpu:
	$(Q)$(if $(KDIR_GIVEN),true,scripts/deps kernel)
	$(Q)scripts/vcpu >/dev/null
	$(Q)$(MAKE) --no-print-directory kernel-guest
	$(Q)tests/kernel/vcpu-run $(KGUEST)

# ptrace-step against kmod-step in the guest: figures, nothing asserted.
bench-kernel:
	$(Q)$(if $(KDIR_GIVEN),true,scripts/deps kernel)
	$(Q)$(MAKE) --no-print-directory kernel-guest
	$(Q)PTBTS_BENCH=$${PTBTS_BENCH:-3000} \
		PTBTS_QEMU_TIMEOUT=$${PTBTS_QEMU_TIMEOUT:-900} \
		tests/kernel/qemu-run $(KGUEST)

# kmod-bts, kmod-step and ptrace-step on the virtual CPU: figures only.
bench-vcpu:
	$(Q)$(if $(KDIR_GIVEN),true,scripts/deps kernel)
	$(Q)scripts/vcpu >/dev/null
	$(Q)$(MAKE) --no-print-directory kernel-guest
	$(Q)PTBTS_QEMU="$$(scripts/vcpu --qemu | tail -n 1)" \
		PTBTS_APPEND="pti=off retbleed=off ptbts_bench_hw=1 $${PTBTS_APPEND:-}" \
		PTBTS_BENCH=$${PTBTS_BENCH:-3000} \
		PTBTS_QEMU_TIMEOUT=$${PTBTS_QEMU_TIMEOUT:-900} \
		tests/kernel/qemu-run $(KGUEST)

# "make test" passes KERNEL=1: the guest is built with the host tests, and
# scripts/run-tests runs it as the suite "kernel".
ifeq ($(KERNEL),1)
test-host: kernel-guest
# The guest's programs are the host tests' too: built once, by this make,
# before the guest's own make looks at them (never two makes on one file).
kernel-guest: $(KGUEST_PROGS:%=$(O)/progs/%)
export PTBTS_KERNEL_GUEST := $(abspath $(KGUEST))
endif
