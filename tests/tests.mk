# SPDX-License-Identifier: GPL-2.0-or-later
#
# Tests.  Included from the top-level Makefile; paths are from the top.
#
#   tests/harness/   the C test harness on Google Test
#   tests/unit/      tests of libbts parts, in process
#   tests/e2e/       tests that run btrace on the programs of tests/progs/
#   tests/browser/   the driver of chromium the tests of btrace view use
#   tests/oracle/    tests that compare btrace with qemu-user's instruction log
#   tests/progs/     programs that are traced (never sanitised):
#                      NAME.c [+ NAME-asm.S]  dynamic PIE with libc
#                      static-NAME.S|.c       static, no libc
#   tests/abi/       the uapi layout checker, built -m32 and -m64
#   tests/kinsn/     the kernel's insn_decode(), for test_branch_kernel_decoder.c
#   tests/fuzz/      libFuzzer targets (clang)
#   tests/synth/     synthetic traces of any length made from a recorded one
#   tests/bench/     benchmarks, never part of the pass/fail run

TEST_SRC_C  := $(sort $(wildcard tests/harness/*.c tests/unit/*.c tests/e2e/*.c tests/oracle/*.c \
			      tests/gdb/*.c tests/sim/*.c tests/crash/*.c tests/synth/*.c))
TEST_SRC_CC := $(sort $(wildcard tests/harness/*.cc))
TEST_OBJ    := $(TEST_SRC_C:%.c=$(O)/obj/%.o) $(TEST_SRC_CC:%.cc=$(O)/obj/%.o)
TEST_BIN    := $(O)/tests/bts-tests
FUZZ_SRC    := $(wildcard tests/fuzz/*.c)
FUZZ_BIN    := $(FUZZ_SRC:tests/fuzz/%.c=$(O)/fuzz/%)

# BTS_CC: the compiler of this build, for the tests that build objects.
TEST_DEFS   := -DBTS_BUILD_DIR='"$(abspath $(O))"' -DBTS_SRC_DIR='"$(abspath .)"' \
	       -DBTS_CC='"$(CC)"'
# Unit tests reach libbts's internals through one header: include-internal/bts_internal.h.
$(TEST_OBJ): CPPFLAGS += $(TEST_DEFS) -Itests/harness -Ilibbts/include-internal

# ------------------------------------ the kernel's decoder, for a unit test
# tests/unit/test_branch_kernel_decoder.c checks arch/x86/branch against
# Linux 6.1's insn_decode(), built here as objtool builds it in user space
# from Debian's linux-source-6.1: scripts/kernel-insn takes the decoder out
# of /usr/src/linux-source-6.1.tar.xz (cached outside the clone) and fails
# with a clear message when the tarball is missing.  tests/kinsn/kernel_insn.c
# is the one file that includes the kernel's headers.
KINSN_DIR   := $(O)/kinsn/linux
KINSN_INC   := -I$(KINSN_DIR)/tools/include -I$(KINSN_DIR)/tools/arch/x86/include
KINSN_OBJ   := $(O)/kinsn/insn.o $(O)/kinsn/inat.o $(O)/obj/tests/kinsn/kernel_insn.o

$(KINSN_DIR)/inat-tables.c: scripts/kernel-insn
	$(if $(Q),@echo "  GEN     $(KINSN_DIR)")
	$(Q)scripts/kernel-insn $(KINSN_DIR)

# The kernel's own sources, with the kernel's tools/ flags, not this
# project's warnings; the sanitizers still watch them.
$(O)/kinsn/%.o: $(KINSN_DIR)/inat-tables.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $(KINSN_DIR)/tools/arch/x86/lib/$*.c")
	$(Q)$(CC) -O2 -g -D_GNU_SOURCE $(SANFLAGS) $(KINSN_INC) -I$(KINSN_DIR) \
		-c -o $@ $(KINSN_DIR)/tools/arch/x86/lib/$*.c

$(O)/obj/tests/kinsn/kernel_insn.o: CPPFLAGS += $(KINSN_INC)
$(O)/obj/tests/kinsn/kernel_insn.o: $(KINSN_DIR)/inat-tables.c
$(O)/obj/tests/unit/test_branch_kernel_decoder.o: CPPFLAGS += -Itests/kinsn

# btrace selftest's verdicts, which tests/unit/test_selftest_report.c gives
# records no machine makes (a source that disagrees).
TEST_BT_OBJ := $(O)/obj/btrace/selftest/compare.o
$(O)/obj/tests/unit/test_selftest_report.o: CPPFLAGS += -Ibtrace/selftest

$(TEST_BIN): $(TEST_OBJ) $(KINSN_OBJ) $(TEST_BT_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CXX) $(LDFLAGS) -o $@ $(TEST_OBJ) $(KINSN_OBJ) $(TEST_BT_OBJ) $(LIB_A) \
		$(LIBS) -lgtest

# --------------------------------------------------------- traced programs
PROG_CFLAGS := -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -pthread
PROG_C_SRC  := $(filter-out tests/progs/static-% tests/progs/lib% tests/progs/i386-%,\
			$(wildcard tests/progs/*.c))
PROG_ST_SRC := $(wildcard tests/progs/static-*.S tests/progs/static-*.c)
PROG_LIB_SRC := $(wildcard tests/progs/lib*.c)
PROG_I386_SRC := $(wildcard tests/progs/i386-*.S tests/progs/i386-*.c)
PROG_CXX_SRC := $(wildcard tests/progs/*.cc)
PROGS := $(PROG_C_SRC:tests/progs/%.c=$(O)/progs/%) \
	 $(basename $(PROG_I386_SRC:tests/progs/%=$(O)/progs/%)) \
	 $(basename $(PROG_ST_SRC:tests/progs/%=$(O)/progs/%)) \
	 $(PROG_LIB_SRC:tests/progs/%.c=$(O)/progs/%.so) \
	 $(PROG_CXX_SRC:tests/progs/%.cc=$(O)/progs/%)

# The headers the assembly sources include (label-asm.h, static-asm.h,
# i386-asm.h): a change to one rebuilds every program with assembly.
PROG_ASM_H := $(wildcard tests/progs/*.h)

.SECONDEXPANSION:
$(O)/progs/%: tests/progs/%.c $$(wildcard tests/progs/%-asm.S) \
		$$(if $$(wildcard tests/progs/%-asm.S),$(PROG_ASM_H))
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) $(PROG_CFLAGS) -o $@ $(filter %.c %.S,$^)

# tests/progs/NAME.cc: C++ programs, for the names people read demangled.
$(O)/progs/%: tests/progs/%.cc
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CXX) $(PROG_CFLAGS) -o $@ $<

# tests/progs/strip-NAME.c: stripped programs; only what they export
# (-rdynamic) keeps a name, from .dynsym.
$(O)/progs/strip-%: tests/progs/strip-%.c $$(wildcard tests/progs/strip-%-asm.S)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) $(PROG_CFLAGS) -rdynamic -s -o $@ $(filter %.c %.S,$^)

# tests/progs/libNAME.c: shared libraries; sym-NAME programs link
# libsymlib.so and find it beside them.
$(O)/progs/lib%.so: tests/progs/lib%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) $(PROG_CFLAGS) -shared -fPIC -o $@ $<

$(O)/progs/sym-%: tests/progs/sym-%.c $(O)/progs/libsymlib.so
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) $(PROG_CFLAGS) -o $@ $< -L$(O)/progs -lsymlib -Wl,-rpath,'$$ORIGIN'

$(O)/progs/static-%: tests/progs/static-%.S $(PROG_ASM_H)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) -g -static -nostdlib -no-pie -o $@ $<

$(O)/progs/static-%: tests/progs/static-%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) -O1 -g -static -nostdlib -no-pie -ffreestanding -fno-stack-protector -fcf-protection=none -o $@ $<

# tests/progs/i386-NAME.S: static 32-bit programs without libc;
# i386-NAME.c: dynamic 32-bit programs with the i386 libc (gcc-multilib).
$(O)/progs/i386-%: tests/progs/i386-%.S $(PROG_ASM_H)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) -m32 -g -static -nostdlib -no-pie -o $@ $<

$(O)/progs/i386-%: tests/progs/i386-%.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  PROG    $@")
	$(Q)$(CC) -m32 $(PROG_CFLAGS) -o $@ $<

# i386-libc is oracle-libc.c built -m32.
$(O)/progs/i386-libc: tests/progs/oracle-libc.c
# These include their 64-bit program's C file.
$(O)/progs/i386-core: tests/progs/speed-core.c
$(O)/progs/i386-crash-deep: tests/progs/crash-deep.c
$(O)/progs/i386-skip-qsort: tests/progs/skip-qsort.c

progs: $(PROGS)

# ------------------------------------------------------------ ABI checker
# The layouts as the compiler lays them out, never run (see abi_layout.c).
ABI_BINS := $(O)/tests/abi-layout-64 $(O)/tests/abi-layout-32
$(O)/tests/abi-layout-%: tests/abi/abi_layout.c include/uapi/linux/ptrace_bts.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) -m$* -std=gnu11 -Wall -Wextra -Werror -Iinclude/uapi -c -o $@.o $<
	$(Q)objcopy -O binary -j .abi_layout $@.o $@.tmp && rm -f $@.o && mv $@.tmp $@

# ------------------------------------------------------------------- runs
TEST_DEPS := $(TEST_BIN) $(BTRACE) $(PROGS) $(ABI_BINS) $(VIEW_ASSETS) $(QPLUGIN) \
	     $(FUZZ_BIN)

# The build before the run takes every CPU (JOBS=N to choose).
JOBS ?= $(shell nproc)
test:
	$(Q)scripts/deps kernel
	$(Q)$(MAKE) --no-print-directory -j$(JOBS) SAN=1 O=build/san test-host KERNEL=1

test-host: $(TEST_DEPS)
	$(Q)scripts/run-tests $(O)

# --------------------------------------------------------------- pictures
# README's pictures are the screenshots of the browser tests
# (view_browser.*, tests/e2e/test_view_browser.c), made small with
# pngquant (256 colours) into doc/pictures/: 'make pictures' remakes them.
PICTURES := view-timeline view-flame export-timeline
pictures: $(TEST_DEPS)
	$(Q)scripts/deps pictures
	$(Q)$(TEST_BIN) --gtest_filter='view_browser.*'
	$(Q)mkdir -p doc/pictures
	$(Q)for p in $(PICTURES); do \
		pngquant --force --speed 1 --strip -o doc/pictures/$$p.png \
			$(O)/tests/screenshots/$$p.png || exit 1; \
	done

.PHONY: pictures

# ------------------------------------------------------------------- fuzz
# Every source is compiled once for all targets, in parallel, with the
# targets' instrumentation; only the link takes libFuzzer's main().
FUZZ_CC  := clang $(CPPFLAGS) -Ibtrace -Ibtrace/gdbserver -g -O1
FUZZ_LD  := clang -fsanitize=fuzzer,address,undefined
FUZZ_CFLAGS := -fsanitize=fuzzer-no-link,address,undefined -MMD -MP
$(O)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [fuzz] $<")
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) -c -o $@ $<
fuzz_objs = $(patsubst %.c,$(O)/fuzz/obj/%.o,$(1))
.PRECIOUS: $(O)/fuzz/obj/%.o

$(O)/fuzz/%: $(call fuzz_objs,tests/fuzz/%.c $(LIB_SRC))
	$(if $(Q),@echo "  FUZZ    $@")
	$(Q)$(FUZZ_LD) -o $@ $^ $(LIBS)

# The gdb stub's protocol half (framer, parser, dispatch; no transport and
# no command line), which the packet fuzzer drives without a program.
GDB_PKT_SRC := $(filter-out btrace/gdbserver/cmd-gdbserver.c btrace/gdbserver/transport.c,\
			    $(wildcard btrace/gdbserver/*.c))
$(O)/fuzz/fuzz_gdb_packet: $(call fuzz_objs,$(GDB_PKT_SRC))
# The views (stats, dump --insns/--calls, report) as btrace runs them:
# btrace without its main().
BT_VIEW_SRC := $(filter-out btrace/main.c btrace/gdbserver/%,$(BT_SRC))
$(O)/fuzz/fuzz_trace_views: $(call fuzz_objs,$(BT_VIEW_SRC))
$(O)/fuzz/fuzz_trace_views: LIBS += $(BT_LIBS)
fuzz: $(FUZZ_BIN)

# ------------------------------------------------------------------ bench
BENCH_SRC := $(wildcard tests/bench/*.c)
BENCH_BIN := $(BENCH_SRC:tests/bench/%.c=$(O)/bench/%)
$(O)/bench/%: tests/bench/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror $(CPPFLAGS) -o $@ $< $(LIBS)

# tests/bench/lib-*.c measure libbts itself: they link it.
BENCH_LIB_BIN := $(filter $(O)/bench/lib-%,$(BENCH_BIN))
$(BENCH_LIB_BIN): $(O)/bench/lib-%: tests/bench/lib-%.c $(LIB_A)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -Wall -Wextra -Werror $(CPPFLAGS) -o $@ $(filter %.c,$^) $(LIB_A) $(LIBS)
# The decoder's synthetic trace is the one the tests of two scales make.
$(O)/bench/lib-decode: tests/synth/synth_trace.c tests/synth/synth_trace.h
$(O)/bench/lib-index: tests/synth/synth_trace.c tests/synth/synth_trace.h

# Workloads: plain static programs (no tracer libraries, no dynamic loader
# whose start-up would outweigh them under single-stepping).
BENCH_WORK_SRC := $(wildcard tests/bench/work/*.c)
BENCH_WORK := $(BENCH_WORK_SRC:tests/bench/work/%.c=$(O)/bench/work/%)
$(O)/bench/work/%: tests/bench/work/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -static -Wall -Wextra -Werror -o $@ $<

# The same workloads as static i386 programs: ptrace-step's
# branch stops against its single steps for 32-bit code (scripts/bench 7).
BENCH_WORK32 := $(BENCH_WORK_SRC:tests/bench/work/%.c=$(O)/bench/work32/%)
$(O)/bench/work32/%: tests/bench/work/%.c
	@mkdir -p $(dir $@)
	$(Q)$(CC) -m32 -O2 -g -static -Wall -Wextra -Werror -o $@ $<

bench: all $(BENCH_BIN) $(BENCH_WORK) $(BENCH_WORK32)
	$(Q)scripts/bench $(O)
