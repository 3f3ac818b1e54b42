# Rules shared by the makefiles of ktau's command-line tools (tools/,
# paraprof-export/).  Each sets TOOLS, OBJDIR and MANPAGES, then includes
# this file.  The tools are linked statically against libktau.a: they run
# in a busybox-static initramfs that has no libc.

BUILD ?= $(abspath $(CURDIR)/../build/user)
PREFIX ?= /usr/local
DESTDIR ?=

TOOLS_SRC := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))

CC ?= cc
CFLAGS ?= -O2
TOOL_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
	-I$(TOOLS_SRC)/../libktau/include -I$(TOOLS_SRC) $(CFLAGS)

BINDIR := $(BUILD)/bin
LIBKTAU := $(BUILD)/lib/libktau.a
COMMON_OBJS += $(OBJDIR)/tool.o

.PHONY: all install clean FORCE
all: $(addprefix $(BINDIR)/,$(TOOLS))

# Always ask libktau's make: it knows whether its sources changed.
$(LIBKTAU): FORCE
	$(MAKE) -C $(TOOLS_SRC)/../libktau BUILD=$(BUILD) $(LIBKTAU)

$(OBJDIR)/tool.o: $(TOOLS_SRC)/tool.c | $(OBJDIR)
	$(CC) $(TOOL_CFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR)/%.o: %.c | $(OBJDIR)
	$(CC) $(TOOL_CFLAGS) -MMD -MP -c $< -o $@

$(OBJDIR) $(BINDIR):
	mkdir -p $@

# A tool's own extra objects are prerequisites of its binary, e.g.
#   $(BINDIR)/ktau-run: $(OBJDIR)/child-run.o
$(BINDIR)/%: $(OBJDIR)/%.o $(COMMON_OBJS) $(LIBKTAU) | $(BINDIR)
	$(CC) -static -o $@ $(filter %.o,$^) $(LIBKTAU) -lm $(LDFLAGS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(addprefix $(BINDIR)/,$(TOOLS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(MANPAGES) $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(OBJDIR) $(addprefix $(BINDIR)/,$(TOOLS))

.SECONDARY:

-include $(wildcard $(OBJDIR)/*.d)
