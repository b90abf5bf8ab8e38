# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install / make uninstall, and the shared library's contract.
# Included from the top-level Makefile.
#
#   make install   [PREFIX=/usr/local] [DESTDIR=]   btrace, libbts.so.N and
#                  its links, libbts.a, bts.h and linux/ptrace_bts.h,
#                  libbts.pc, btrace(1) and libbts(3), bash completion,
#                  and in DATADIR/btrace what btrace view needs (view/)
#                  and speedscope as npm ships it (speedscope/), and the
#                  qemu-user source's plugin in PREFIX/lib/ptrace-bts/
#                  (btrace looks for it in BINDIR/../lib/ptrace-bts/)
#   make uninstall [PREFIX=...] [DESTDIR=]   removes exactly those files
#                  (and the directories they leave empty, ours only)
#   make update-symbols   rewrites libbts/libbts.sym from the built .so
#                  (after a deliberate change of the API)
#
# Only the symbols of bts.h are exported: -fvisibility=hidden hides the
# rest, and libbts/libbts.map (version node LIBBTS_2) binds the exports to
# a version.  tests/e2e/test_install.c compares `nm -D` of the .so with the
# committed list libbts/libbts.sym, so an accidental change of the API
# fails.  The SONAME (LIBBTS_MAJOR) changes only on an incompatible change.

PREFIX		?= /usr/local
DESTDIR		?=
BINDIR		?= $(PREFIX)/bin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
COMPLETIONDIR	?= $(PREFIX)/share/bash-completion/completions
# btrace view looks for DATADIR/btrace/view as ../share/btrace/view from
# its own binary: DATADIR is BINDIR's ../share.
DATADIR		?= $(PREFIX)/share
PLUGINDIR	?= $(PREFIX)/lib/ptrace-bts
INSTALL		?= install

LIB_MAP	:= libbts/libbts.map
LIB_SYM	:= libbts/libbts.sym

$(LIB_SO): LDFLAGS += -Wl,--version-script=$(LIB_MAP)
# Order-only: the recipe links $^, which must not hold the map.
$(LIB_SO): | $(LIB_MAP)

# Every file install puts, relative to $(DESTDIR); uninstall removes these.
INSTALLED := $(BINDIR)/btrace \
	$(LIBDIR)/libbts.so.$(LIBBTS_VERSION) $(LIBDIR)/libbts.so.$(LIBBTS_MAJOR) \
	$(LIBDIR)/libbts.so $(LIBDIR)/libbts.a \
	$(INCLUDEDIR)/bts.h $(INCLUDEDIR)/linux/ptrace_bts.h \
	$(PKGCONFIGDIR)/libbts.pc \
	$(MANDIR)/man1/btrace.1 $(MANDIR)/man3/libbts.3 \
	$(COMPLETIONDIR)/btrace $(PLUGINDIR)/ptbts-qemu-user.so

install: $(BTRACE) $(LIB_SO) $(LIB_A) $(VIEW_ASSETS) $(QPLUGIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(PLUGINDIR) \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(MANDIR)/man3 $(DESTDIR)$(COMPLETIONDIR) \
		$(DESTDIR)$(DATADIR)/btrace/view \
		$(DESTDIR)$(DATADIR)/btrace/speedscope/release
	$(INSTALL) -m 755 $(BTRACE) $(DESTDIR)$(BINDIR)/btrace
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/libbts.so.$(LIBBTS_VERSION)
	ln -sf libbts.so.$(LIBBTS_VERSION) $(DESTDIR)$(LIBDIR)/libbts.so.$(LIBBTS_MAJOR)
	ln -sf libbts.so.$(LIBBTS_MAJOR) $(DESTDIR)$(LIBDIR)/libbts.so
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/libbts.a
	$(INSTALL) -m 644 libbts/include/bts.h $(DESTDIR)$(INCLUDEDIR)/bts.h
	$(INSTALL) -m 644 include/uapi/linux/ptrace_bts.h \
		$(DESTDIR)$(INCLUDEDIR)/linux/ptrace_bts.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' -e 's|@VERSION@|$(LIBBTS_VERSION)|' \
		-e 's|@LIBS@|$(LIBS)|' libbts/libbts.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/libbts.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/libbts.pc
	$(INSTALL) -m 644 man/btrace.1 $(DESTDIR)$(MANDIR)/man1/btrace.1
	$(INSTALL) -m 644 man/libbts.3 $(DESTDIR)$(MANDIR)/man3/libbts.3
	$(INSTALL) -m 644 completion/btrace.bash $(DESTDIR)$(COMPLETIONDIR)/btrace
	$(INSTALL) -m 644 $(QPLUGIN) $(DESTDIR)$(PLUGINDIR)/ptbts-qemu-user.so
	$(INSTALL) -m 644 $(SHARE)/view/* $(DESTDIR)$(DATADIR)/btrace/view/
	$(INSTALL) -m 644 $(SHARE)/speedscope/LICENSE $(SHARE)/speedscope/package.json \
		$(DESTDIR)$(DATADIR)/btrace/speedscope/
	$(INSTALL) -m 644 $(SHARE)/speedscope/release/* \
		$(DESTDIR)$(DATADIR)/btrace/speedscope/release/

# Directories are removed only when empty, and only the ones of our own
# (include/linux; DATADIR/btrace is wholly ours): the others belong to the
# system.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rm -rf $(DESTDIR)$(DATADIR)/btrace
	-rmdir $(DESTDIR)$(INCLUDEDIR)/linux 2>/dev/null || true
	-rmdir $(DESTDIR)$(PLUGINDIR) 2>/dev/null || true

# The tests read the .so and install from the build directory.
test-host: $(LIB_SO)

update-symbols: $(LIB_SO)
	$(Q)nm -D --defined-only $(LIB_SO) | awk '{print $$3}' | LC_ALL=C sort > $(LIB_SYM)

.PHONY: install uninstall update-symbols
