# Whether libotf2 (Debian: libotf2-trace-dev, `make deps`) is there, for
# ktau-export -f otf2 and its tests: included by paraprof-export/Makefile
# and tests/unit/Makefile, so that both decide alike. The core build never
# needs it.
#
# Debian ships otf2.pc (its library is libopen-trace-format2, which
# otf2-config's "-lotf2" reaches through a symlink): pkg-config first,
# otf2-config as upstream installs it otherwise. OTF2=no turns the writer
# off even when the library is there; OTF2=yes insists on it.
OTF2_PKG := $(shell pkg-config --exists otf2 2>/dev/null && echo pkg-config)
ifeq ($(OTF2_PKG),pkg-config)
OTF2_FOUND := yes
OTF2_CFLAGS := $(shell pkg-config --cflags otf2)
OTF2_LIBS := $(shell pkg-config --libs otf2)
else ifneq ($(shell command -v otf2-config 2>/dev/null),)
OTF2_FOUND := yes
OTF2_CFLAGS := $(shell otf2-config --cflags)
OTF2_LIBS := $(shell otf2-config --ldflags --libs)
else
OTF2_FOUND := no
endif

OTF2 ?= $(OTF2_FOUND)
ifeq ($(OTF2)$(OTF2_FOUND),yesno)
$(error OTF2=yes, but neither pkg-config nor otf2-config finds libotf2 (apt-get install libotf2-trace-dev))
endif

# A file that holds the choice, rewritten (when parsed) only when it
# changes: objects built the other way depend on $(OTF2_STAMP) and are
# rebuilt. OTF2_STAMP_DIR is set before the include.
OTF2_STAMP := $(OTF2_STAMP_DIR)/otf2.choice
$(shell mkdir -p '$(OTF2_STAMP_DIR)' && echo '$(OTF2)' | cmp -s - '$(OTF2_STAMP)' || \
	echo '$(OTF2)' > '$(OTF2_STAMP)')
