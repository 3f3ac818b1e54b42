# Rules shared by the makefiles of ktau's command-line tools (tools/,
# paraprof-export/).  Each sets TOOLS, OBJDIR and MANPAGES, then includes
# this file.
#
# TOOL_LINK=static (the default): fully static binaries, linked against
# libktau.a.  They run in a busybox-static initramfs that has no libc, and
# `make install` installs them: they depend on nothing at run time.
# TOOL_LINK=shared: linked against libktau.so.1 (no RPATH; the library is
# found in the system's library path), for the Debian packages, whose
# policy forbids static binaries.  Use a separate BUILD for each mode.
#
#   make BUILD=/abs/build/user install PREFIX=/usr/local DESTDIR= BINDIR= MANDIR=
#   make BUILD=/abs/build/user uninstall PREFIX=... DESTDIR=   (the same files)

BUILD ?= $(abspath $(CURDIR)/../build/user)
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
DESTDIR ?=
TOOL_LINK ?= static

TOOLS_SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

CC ?= cc
CFLAGS ?= -O2
# the Debian multiarch directory name, where packaged libraries live
MULTIARCH := $(or $(shell $(CC) -print-multiarch 2>/dev/null),x86_64-linux-gnu)
TOOL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
	-DKTAU_MULTIARCH='"$(MULTIARCH)"' \
	-I$(TOOLS_SRC)/../libktau/include -I$(TOOLS_SRC) $(CFLAGS)

# where the binaries are built
OUTBIN := $(BUILD)/bin

# The man pages' .TH lines say @KTAU_VERSION@ and @KTAU_DATE@: the built
# pages ($(BUILD)/man/man1, which install installs) the release (ktau.h's
# number, scripts/version.sh; the top Makefile's month), so that they never
# name a stale one.
MANOUT := $(BUILD)/man/man1
TOP_MAKEFILE := $(TOOLS_SRC)/../Makefile
VERSION_HEADER := $(TOOLS_SRC)/../libktau/include/ktau.h
KTAU_VERSION := $(shell $(TOOLS_SRC)/../scripts/version.sh)
KTAU_DATE := $(shell sed -n 's/^KTAU_DATE := *//p' $(TOP_MAKEFILE))

COMMON_OBJS += $(OBJDIR)/tool.o

ifeq ($(TOOL_LINK),static)
LIBKTAU := $(BUILD)/lib/libktau.a
TOOL_LINKFLAGS := -static
TOOL_LIBS := $(LIBKTAU) -lm
else ifeq ($(TOOL_LINK),shared)
LIBKTAU := $(BUILD)/lib/libktau.so
TOOL_LINKFLAGS :=
TOOL_LIBS := -L$(BUILD)/lib -lktau -lm
else
$(error TOOL_LINK must be static or shared, not '$(TOOL_LINK)')
endif

# $(LINK_TOOL) links $@ from the objects among its prerequisites
LINK_TOOL = $(CC) $(TOOL_LINKFLAGS) -o $@ $(filter %.o,$^) $(TOOL_LIBS) $(LDFLAGS)

.PHONY: all install uninstall clean FORCE
all: $(addprefix $(OUTBIN)/,$(TOOLS)) $(addprefix $(MANOUT)/,$(MANPAGES))

# Always ask libktau's make: it knows whether its sources changed.
$(LIBKTAU): FORCE
	$(MAKE) -C $(TOOLS_SRC)/../libktau BUILD=$(BUILD) $(LIBKTAU)

$(OBJDIR)/tool.o: $(TOOLS_SRC)/tool.c | $(OBJDIR)
	$(CC) $(TOOL_CFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR)/%.o: %.c | $(OBJDIR)
	$(CC) $(TOOL_CFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR) $(OUTBIN) $(MANOUT):
	mkdir -p $@

$(MANOUT)/%.1: %.1 $(TOP_MAKEFILE) $(VERSION_HEADER) | $(MANOUT)
	sed -e 's/@KTAU_VERSION@/$(KTAU_VERSION)/g' -e 's/@KTAU_DATE@/$(KTAU_DATE)/g' $< > $@.tmp
	mv $@.tmp $@

# A tool's own extra objects are prerequisites of its binary, e.g.
#   $(OUTBIN)/ktau-run: $(OBJDIR)/child-run.o
$(OUTBIN)/%: $(OBJDIR)/%.o $(COMMON_OBJS) $(LIBKTAU) | $(OUTBIN)
	$(LINK_TOOL)

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(addprefix $(OUTBIN)/,$(TOOLS)) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(addprefix $(MANOUT)/,$(MANPAGES)) $(DESTDIR)$(MANDIR)/man1/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(TOOLS)) \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(MANPAGES))

clean:
	rm -rf $(OBJDIR) $(addprefix $(OUTBIN)/,$(TOOLS)) $(addprefix $(MANOUT)/,$(MANPAGES))

.SECONDARY:

-include $(wildcard $(OBJDIR)/*.d)
