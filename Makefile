# SPDX-License-Identifier: GPL-2.0-or-later
#
# ptrace-bts: one entry point.
#
#   make               libbts (shared and static), btrace and the qemu-user
#                      source's plugin for qemu-x86_64, in build/
#   make test          every test (host tests under ASan+UBSan); last line
#                      "N passed, N failed"
#   make bench         benchmarks (figures only, nothing asserted)
#   make demo          record and dump a sample program (README's main job)
#   make fuzz          build the libFuzzer targets (clang)
#
# Variables: O=DIR (build directory), SAN=1 (ASan+UBSan build), V=1.

O	?= build
SAN	?=
LIBBTS_MAJOR := 2
LIBBTS_VERSION := 2.0.0

CC	?= gcc
CXX	?= g++
ifeq ($(origin CC),default)
CC	:= gcc
endif
ifeq ($(origin CXX),default)
CXX	:= g++
endif

ifeq ($(V),1)
Q :=
else
Q := @
endif

WARN	:= -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CPPFLAGS += -D_GNU_SOURCE -Iinclude/uapi -Ilibbts/include -Ilibbts -Iarch/x86
CFLAGS	?= -O2 -g
CFLAGS	+= -std=gnu11 $(WARN) -fno-omit-frame-pointer
CXXFLAGS ?= -O2 -g
CXXFLAGS += -std=gnu++17 -Wall -Wextra -Werror
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
CFLAGS	+= $(SANFLAGS)
CXXFLAGS += $(SANFLAGS)
LDFLAGS	+= $(SANFLAGS)
endif

LIBS	:= -lZydis -ldw -lelf -lzstd -lunwind-ptrace -lunwind-generic -lpthread

# ------------------------------------------------------------------ libbts
LIB_SRC	:= $(sort $(wildcard libbts/*/*.c libbts/sources/*/*.c arch/x86/branch/*.c arch/x86/ds/*.c))
LIB_OBJ	:= $(LIB_SRC:%.c=$(O)/obj/%.o)
LIB_PIC	:= $(LIB_SRC:%.c=$(O)/pic/%.o)
LIB_A	:= $(O)/libbts.a
LIB_SO	:= $(O)/libbts.so.$(LIBBTS_VERSION)

# ------------------------------------------------------------------ btrace
BT_SRC	:= $(sort $(wildcard btrace/*.c btrace/*/*.c))
BT_OBJ	:= $(BT_SRC:%.c=$(O)/obj/%.o)
BTRACE	:= $(O)/btrace
SHARE	:= $(O)/share/btrace
VIEW_ASSETS := $(SHARE)/view/speedscope.js

# ------------------------------------------------------- qemu-user plugin
# The qemu-user source's plugin, loaded into Debian's qemu-x86_64.  Its
# header, qemu-plugin.h, is that of Debian's own QEMU source package
# (scripts/qemu-source fetches it once into the cache outside the clone),
# copied into the build directory, never committed.  Never sanitised: it
# runs inside QEMU, which is not.
QP_SRC	:= $(sort $(wildcard libbts/sources/qemu-user/plugin/*.c)) arch/x86/branch/branch.c
QP_OBJ	:= $(QP_SRC:%.c=$(O)/qplugin/%.o)
QP_H	:= $(O)/qemu-plugin/qemu-plugin.h
QPLUGIN	:= $(O)/ptbts-qemu-user.so
QP_CFLAGS := -O2 -g -std=gnu11 $(WARN) -fPIC -fvisibility=hidden

all: deps-build $(LIB_A) $(LIB_SO) $(BTRACE) $(VIEW_ASSETS) $(QPLUGIN)

$(QP_H): scripts/qemu-source
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  GEN     $@")
	$(Q)h=$$(scripts/qemu-source --plugin-header) && cp "$$h" $@.tmp && mv $@.tmp $@

$(O)/qplugin/%.o: %.c $(QP_H)
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [qemu] $<")
	$(Q)$(CC) -D_GNU_SOURCE -Iinclude/uapi -Ilibbts -Iarch/x86 -I$(dir $(QP_H)) \
		$(QP_CFLAGS) -MMD -MP -c -o $@ $<

$(QPLUGIN): $(QP_OBJ)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) -shared -o $@ $^

deps-build:
	$(Q)scripts/deps build
deps-test:
	$(Q)scripts/deps test

.PHONY: all deps-build deps-test test test-host bench demo fuzz clean progs kmod test-kernel

$(O)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fvisibility=hidden -MMD -MP -c -o $@ $<

$(O)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CC [pic] $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -MMD -MP -c -o $@ $<

$(O)/obj/%.o: %.cc
	@mkdir -p $(dir $@)
	$(if $(Q),@echo "  CXX     $<")
	$(Q)$(CXX) $(CPPFLAGS) $(CXXFLAGS) -MMD -MP -c -o $@ $<

$(LIB_A): $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

$(LIB_SO): $(LIB_PIC)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,libbts.so.$(LIBBTS_MAJOR) -o $@ $^ $(LIBS)
	$(Q)ln -sf libbts.so.$(LIBBTS_VERSION) $(O)/libbts.so.$(LIBBTS_MAJOR)
	$(Q)ln -sf libbts.so.$(LIBBTS_MAJOR) $(O)/libbts.so

# btrace links libbts statically: one binary to copy, and sanitizers see all.
# libedit: replay's prompt; libiberty: the demangler of the views.
BT_LIBS := -ledit -liberty
$(BTRACE): $(BT_OBJ) $(LIB_A)
	$(if $(Q),@echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $(BT_OBJ) $(LIB_A) $(LIBS) $(BT_LIBS)

# ------------------------------------------------------------------ viewer
# What btrace view puts in its pages, beside btrace as it is installed:
# speedscope from its npm release (scripts/speedscope, cached outside the
# clone) and btrace/view/page.js, page.css.
$(VIEW_ASSETS): scripts/speedscope btrace/view/page.js btrace/view/page.css
	$(if $(Q),@echo "  GEN     $(SHARE)")
	$(Q)scripts/speedscope $(SHARE)

include tests/tests.mk
include kernel/kernel.mk
include install.mk

demo: all
	$(Q)scripts/demo $(O)

clean:
	rm -rf build

-include $(shell find $(O) -name '*.d' 2>/dev/null)
