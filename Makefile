# ktau: every entry point.  `make help` lists them.

# The release's number is written once, in libktau/include/ktau.h
# (KTAU_VERSION_MAJOR, _MINOR, _PATCH; scripts/version.sh prints it); its
# month is this line.  The man pages' .TH lines (tools/static-tool.mk) say
# both; the kernel packages' version (scripts/deb-kernel.sh) has the number.
KTAU_DATE := 2026-11

BUILD      ?= $(CURDIR)/build
USER_BUILD := $(BUILD)/user
# the make arguments of the user space's builds, and the libktau files
# `make lib` builds (all of them unless named)
USER_MAKE  := BUILD=$(USER_BUILD)
LIB_FILES  :=
# what the TAU layer's one relocatable object is made with (tau-compat)
TAU_COMPAT_MAKE :=
# ARCH=arm64: the arm64 kernel, cross-built (make kernel ARCH=arm64), and
# the arm64 user space and guest root (make initramfs ARCH=arm64):
# static, cross-built with CROSS_COMPILE into their own directories, so
# that x86 and arm64 builds never mix.  libelf and zlib for arm64 are
# Debian's, unpacked by scripts/arm64-deps.sh (with the arm64 busybox);
# the tools and guest tests are static, OTF2 is not built (the host's is
# an x86 build); the TAU layer (tau-compat) is, for make check-tau
# ARCH=arm64, which cross-builds TAU against it.  The MPI part (mpi-arm64, unless
# MPI=no) is shared, as on x86: libktau, libktau-prof, libktau-mpi and
# mpi-ring against Debian's arm64 Open MPI, unpacked with its runtime
# and glibc by scripts/arm64-deps.sh DIR mpi, copied into the guest by
# scripts/guest-openmpi.sh (SYSROOT=); the PAPI part (papi-arm64, unless
# PAPI=no) against Debian's arm64 PAPI, scripts/arm64-deps.sh DIR papi.
ifeq ($(ARCH),arm64)
KCONFIG    ?= qemu-arm64
CROSS_COMPILE ?= aarch64-linux-gnu-
ARM64_DEPS := $(BUILD)/arm64-deps
USER_BUILD := $(BUILD)/user-arm64
USER_MAKE  := BUILD=$(USER_BUILD) OTF2=no AR=$(CROSS_COMPILE)ar \
	CC='$(CROSS_COMPILE)gcc -isystem $(ARM64_DEPS)/root/usr/include \
	-L$(ARM64_DEPS)/root/usr/lib/aarch64-linux-gnu'
LIB_FILES  := $(USER_BUILD)/lib/libktau.a $(USER_BUILD)/lib/libktau-prof.a
TAU_COMPAT_MAKE := LD=$(CROSS_COMPILE)ld OBJCOPY=$(CROSS_COMPILE)objcopy
endif
KCONFIG    ?= qemu
KSRC       ?=
KBASE      ?= tinyconfig
KMODULES   ?= all
TIMEOUT    ?= 300
FUZZ_SECONDS ?= 60

# `make install`: where the user space goes (DESTDIR is prepended to each)
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
DESTDIR    ?=
INSTALL_VARS = PREFIX='$(PREFIX)' BINDIR='$(BINDIR)' LIBDIR='$(LIBDIR)' \
	INCLUDEDIR='$(INCLUDEDIR)' MANDIR='$(MANDIR)' DESTDIR='$(DESTDIR)'


KERNEL_IMAGE := $(BUILD)/bzImage
INITRAMFS    := $(BUILD)/initramfs.cpio.gz
ifeq ($(ARCH),arm64)
KERNEL_IMAGE := $(BUILD)/Image-$(KCONFIG)
INITRAMFS    := $(BUILD)/initramfs-arm64.cpio.gz
endif

.PHONY: help all deps deps-demo deps-mpi deps-bench deps-deb deps-arm64 deps-deb-arm64 deps-check \
	kernel user lib tools tau-compat guest-tests initramfs boot demo \
	check check-unit check-guest check-kernel-style clean distclean fuzz \
	install uninstall deb deb-kernel series

help:
	@echo 'ktau make targets:'
	@echo '  make demo      deps, kernel, tools; boot QEMU, profile a workload, print the report'
	@echo '                 (ARCH=arm64: in the arm64 guest, under qemu-system-aarch64; ktau-demo-arm64/)'
	@echo '  make demo-mpi  the same for a 4-rank Open MPI job (mpi-ring under libktau-mpi):'
	@echo '                 the job report, and ktau-demo-mpi/tau/ for ParaProf'
	@echo '  make check     every test; the last line is "N passed, N failed"'
	@echo '  make deps      install the Debian packages of every target (sudo when not root)'
	@echo '  make deps-demo only what make demo needs; also deps-mpi, deps-bench, deps-deb, deps-arm64,'
	@echo '                 deps-deb-arm64, deps-check (scripts/deps.sh --help lists the profiles)'
	@echo '  make kernel    build the patched kernel: $(BUILD)/bzImage (KSRC=, KCONFIG=, KBASE=);'
	@echo '                 ARCH=arm64: cross-built, $(BUILD)/Image-qemu-arm64'
	@echo '  make check-arm64-boot  the arm64 kernel booted under qemu-system-aarch64, exact counts checked'
	@echo '                 (ARM64_KCONFIG=qemu-arm64-debug: KASAN, lockdep, UBSAN, AArch32 compat)'
	@echo '  make check-arm64  (or make check ARCH=arm64) the whole guest suite on arm64, x86-only'
	@echo '                 tests named as such (ARM64_CHECK_KCONFIG=qemu-arm64-check)'
	@echo '  make user      libktau, tools and guest tests ($(USER_BUILD)); libktau-mpi when mpicc is found'
	@echo '  make mpi       libktau-mpi, the MPI profiling library, and its test program ($(USER_BUILD)/mpi)'
	@echo '                 (ARCH=arm64: against Debian'"'"'s arm64 Open MPI, unpacked: make mpi-arm64)'
	@echo '  make papi      libktau-papi, ktau groups as PAPI events, and its guest overlay ($(USER_BUILD)/papi)'
	@echo '                 (ARCH=arm64: against Debian'"'"'s arm64 PAPI, unpacked: make papi-arm64)'
	@echo '  make initramfs the guest root: $(INITRAMFS); ARCH=arm64: the arm64 one'
	@echo '  make boot      an interactive shell in the guest (Ctrl-A X quits)'
	@echo '  make install   libktau, its header and ktau.pc, the tools, the man pages'
	@echo '                 (PREFIX=/usr/local, DESTDIR=, BINDIR=, LIBDIR=, INCLUDEDIR=, MANDIR=)'
	@echo '  make uninstall remove what make install put there (same variables)'
	@echo '  make deb       Debian packages libktau1, libktau-prof1, libktau-dev, ktau-tools: $(BUILD)/deb/'
	@echo '                 (ARCH=arm64: cross-built for arm64, $(BUILD)/deb-arm64/; make deps-deb-arm64 first)'
	@echo '  make series    the patches as a git am series, every file through a patch, with a'
	@echo '                 cover letter: $(BUILD)/series/ (KSRC= or Debian'"'"'s tarball)'
	@echo '  make deb-kernel  the patched kernel as linux-image/linux-headers packages (bindeb-pkg):'
	@echo '                 $(BUILD)/deb-kernel/ (KCONFIG=, KBASE=, KSRC=, LOCALVERSION=-ktau)'
	@echo '  make check-long    4 CPUs, repeated stress boots, CPU hotplug, the distribution-shaped kernel,'
	@echo '                     the arm64 suite on the arm64 debug kernel, every prefix of the series'
	@echo '                     built (~1 h 10 min without the arm64 part)'
	@echo '  make check-debian  Debian'"'"'s own 6.12 config with ktau: build, boot, guest suite (~1.5 h)'
	@echo '  make bench     the overhead table, docs/benchmark.md (three kernels under qemu -icount);'
	@echo '                 ARCH=arm64: its per-call rows on arm64 (qemu-system-aarch64 -icount)'
	@echo '  make bench-job a synthetic 1000-rank job through ktau-report --job: time and memory'
	@echo '  make clean     remove $(BUILD) except the kernel tree'
	@echo '  make fuzz      libFuzzer on every parser, FUZZ_SECONDS (60) each (needs clang)'
	@echo '  make check-tau TAU (TAU_SHARED=, default the shared folder'"'"'s tau/) built -ktau -ktau_shctr against ktau'"'"'s'
	@echo '                 TAU compatibility layer, a TAU program on a fake /proc (~3 min)'
	@echo '                 (ARCH=arm64: cross-built for the arm64 guest, run under qemu-aarch64)'

all: kernel user initramfs

# The Debian packages, by profile (scripts/deps.sh): `make deps` installs
# them all; each target below installs only its own.
deps:
	@scripts/deps.sh all

deps-demo deps-mpi deps-bench deps-deb deps-arm64 deps-deb-arm64 deps-check:
	@scripts/deps.sh $(@:deps-%=%)

kernel:
ifeq ($(ARCH),arm64)
	@ARCH=arm64 KSRC='$(KSRC)' KBASE='$(KBASE)' KMODULES='$(KMODULES)' scripts/build-kernel.sh $(KCONFIG)
else
	@KSRC='$(KSRC)' KBASE='$(KBASE)' KMODULES='$(KMODULES)' scripts/build-kernel.sh $(KCONFIG)
	@ln -sf bzImage-$(KCONFIG) $(KERNEL_IMAGE)
endif

lib:
	@echo '==> building libktau'
	@$(MAKE) -s -C libktau $(USER_MAKE) $(LIB_FILES)

tools: lib
	@echo '==> building tools'
	@$(MAKE) -s -C tools $(USER_MAKE)
	@$(MAKE) -s -C paraprof-export $(USER_MAKE)
	@$(MAKE) -s -C examples $(USER_MAKE)

# the KTAU user API for TAU's -ktau/-ktau_shctr (compat/ktau-tau, docs/tau.md):
# $(USER_BUILD)/ktau-tau/lib/libktau.a, its headers in compat/ktau-tau/include
# (ARCH=arm64: cross-built; the command line's CC and AR reach the libktau
# build it makes too)
tau-compat: lib
	@echo '==> building the TAU compatibility layer'
	@$(MAKE) -s -C compat/ktau-tau $(USER_MAKE) $(TAU_COMPAT_MAKE)

guest-tests:
	@echo '==> building guest tests'
	@$(MAKE) -s -C tests/guest $(USER_MAKE)

# libktau-mpi (mpi/): optional, built when an MPI compiler wrapper is
# found (MPICC=, default mpicc) unless MPI=no; the core build never needs
# MPI.  mpi-if-found looks for it when its recipe runs, not when this file
# is read, so that a target that installs Open MPI first (demo-mpi) builds
# it; HAVE_MPICC, read with the file, serves make install.
MPICC ?= mpicc
MPI ?= auto
HAVE_MPICC := $(if $(filter no,$(MPI)),,$(shell command -v $(MPICC) 2>/dev/null))

ifeq ($(ARCH),arm64)
mpi: mpi-arm64
else
mpi: lib
	@echo '==> building libktau-mpi'
	@$(MAKE) -s -C mpi BUILD=$(USER_BUILD) MPICC='$(MPICC)'
endif

# libktau-papi (papi/, docs/papi.md): the ktau groups as PAPI software-
# defined events, and its guest overlay; optional, built only by this
# target and only where PAPI's headers are (Debian: libpapi-dev).
.PHONY: papi
ifeq ($(ARCH),arm64)
papi: papi-arm64
else
papi: lib
	@if [ -f /usr/include/sde_lib.h ] && [ -f /usr/include/papi.h ]; then \
		echo '==> building libktau-papi'; \
		$(MAKE) -s -C papi BUILD=$(USER_BUILD) SYSROOT= guest; \
	else \
		echo '==> libktau-papi skipped: no /usr/include/sde_lib.h (make deps-check, or apt install libpapi-dev papi-tools)'; \
	fi
endif

.PHONY: mpi mpi-if-found
# a failure there leaves the core build whole (make mpi shows it; make
# check's MPI phase fails on it)
mpi-if-found: lib
	@if [ '$(MPI)' = no ]; then \
		echo '==> libktau-mpi skipped: MPI=no'; \
	elif command -v $(MPICC) >/dev/null 2>&1; then \
		$(MAKE) -s mpi || echo '==> libktau-mpi did not build with $(MPICC) (make mpi says why); the rest of ktau is built'; \
	else \
		echo '==> libktau-mpi skipped: no $(MPICC) (make deps-mpi, or apt install libopenmpi-dev, or MPICC=)'; \
	fi

ifeq ($(ARCH),arm64)
# Debian's arm64 libelf and zlib, which the tools link, before any build
.PHONY: arm64-deps
arm64-deps:
	@scripts/arm64-deps.sh $(ARM64_DEPS)
lib tools guest-tests tau-compat: arm64-deps
user: lib tools guest-tests
ARM64_MPI_ROOT := $(ARM64_DEPS)/mpi-root
ARM64_OMPI := $(ARM64_MPI_ROOT)/usr/lib/aarch64-linux-gnu/openmpi
# libktau-mpi and mpi-ring for the arm64 guest, against Debian's arm64
# Open MPI (no mpicc: its wrapper runs on the host it was built for)
.PHONY: mpi-arm64
mpi-arm64: lib
	@scripts/arm64-deps.sh $(ARM64_DEPS) mpi
	@echo '==> building libktau-mpi (arm64, shared)'
	@$(MAKE) -s -C libktau $(USER_MAKE)
	@$(MAKE) -s -C mpi BUILD=$(USER_BUILD) MPIFORT=none AR=$(CROSS_COMPILE)ar \
		MPICC='$(CROSS_COMPILE)gcc -I$(ARM64_OMPI)/include' \
		LDFLAGS='-L$(ARM64_OMPI)/lib -lmpi -Wl,-rpath-link,$(ARM64_OMPI)/lib:$(ARM64_MPI_ROOT)/usr/lib/aarch64-linux-gnu' \
		$(USER_BUILD)/mpi/libktau-mpi.so $(USER_BUILD)/mpi/mpi-ring
ARM64_PAPI_ROOT := $(ARM64_DEPS)/papi-root
# libktau-papi and ktau-papi-check for the arm64 guest, against Debian's
# arm64 PAPI (unpacked), and its guest overlay with PAPI's arm64 tools
.PHONY: papi-arm64
papi-arm64: lib
	@scripts/arm64-deps.sh $(ARM64_DEPS) papi
	@echo '==> building libktau-papi (arm64)'
	@$(MAKE) -s -C papi BUILD=$(USER_BUILD) AR=$(CROSS_COMPILE)ar \
		CC='$(CROSS_COMPILE)gcc -isystem $(ARM64_DEPS)/root/usr/include -isystem $(ARM64_PAPI_ROOT)/usr/include' \
		LDFLAGS='-L$(ARM64_PAPI_ROOT)/usr/lib/aarch64-linux-gnu -Wl,-rpath-link,$(ARM64_PAPI_ROOT)/usr/lib/aarch64-linux-gnu' \
		SYSROOT=$(ARM64_PAPI_ROOT) guest
else
user: lib tools tau-compat guest-tests mpi-if-found
endif

# Each makefile installs and uninstalls its own files.  The tools are the
# static ones `make user` builds (TOOL_LINK=shared: against libktau.so.1,
# as `make deb` builds them; see tools/static-tool.mk).
# libktau-mpi installs where mpicc is found, and always uninstalls.
INSTALL_DIRS := libktau tools paraprof-export
install: INSTALL_DIRS += $(if $(HAVE_MPICC),mpi)
uninstall: INSTALL_DIRS += mpi

install uninstall:
	@echo '==> $@: $(DESTDIR)$(PREFIX)'
	@for dir in $(INSTALL_DIRS); do \
		$(MAKE) -s -C $$dir BUILD=$(USER_BUILD) $(INSTALL_VARS) $@ || exit 1; \
	done

# Debian packages of the user space, from debian/ (dpkg-buildpackage);
# ARCH=arm64: cross-built for arm64 (dpkg-buildpackage -a arm64, after
# make deps-deb-arm64), into $(BUILD)/deb-arm64/
deb:
	@BUILD=$(BUILD) DEB_ARCH=$(ARCH) scripts/deb.sh

# The kernel's packages, by its own bindeb-pkg; not part of `make deb`
# (a kernel build: minutes to an hour, and the config is the site's)
deb-kernel:
	@KSRC='$(KSRC)' KBASE='$(KBASE)' BUILD=$(BUILD) scripts/deb-kernel.sh $(KCONFIG)

# benchmark programs for `make bench` (issue 7): $(USER_BUILD)/bench/,
# and ktau-trace for the trace drain row (ARCH=arm64: cross-built, static,
# into $(BUILD)/user-arm64/bench/, as the arm64 user space)
.PHONY: bench-programs
bench-programs: tools
	@$(MAKE) -s -C bench $(USER_MAKE)

# issue 19's scale goal, on the host: a synthetic 1000-rank job directory
# (4000 profiles, 32 nodes) summarised by ktau-report --job; prints the time
# and peak memory with the goal (under 10 s and 1 GiB), "met" or "NOT met"
.PHONY: bench-job
bench-job: lib tools
	@$(MAKE) -s -C tests/unit BUILD=$(USER_BUILD) $(USER_BUILD)/tests/unit/gen-job
	@dir=$$(mktemp -d) && trap 'rm -rf "$$dir"' EXIT && \
		$(USER_BUILD)/tests/unit/gen-job --bench $(USER_BUILD)/bin/ktau-report "$$dir/job"

# the benchmark table: three kernels, each booted under qemu -icount (< 30 min);
# ARCH=arm64: the per-call rows of two arm64 kernels under
# qemu-system-aarch64 -icount (the arm64 profile: cross compilers, QEMU)
.PHONY: bench
ifeq ($(ARCH),arm64)
bench: deps-arm64
	@BUILD=$(BUILD) ARCH=arm64 scripts/bench.sh
else
bench: deps-bench
	@BUILD=$(BUILD) scripts/bench.sh
endif

# Open MPI's runtime for the guest's MPI test, when the host has it
# (scripts/guest-openmpi.sh; exit 3: not installed, the test then skips)
ifeq ($(ARCH),arm64)
# the arm64 guest root: Debian's arm64 busybox, Debian's arm64 Open MPI
# (unless MPI=no) and PAPI (unless PAPI=no), the test module built against
# the arm64 kernel (make kernel ARCH=arm64)
initramfs: user $(if $(filter no,$(MPI)),,mpi-arm64) $(if $(filter no,$(PAPI)),,papi-arm64)
ifeq ($(PAPI),no)
	@rm -rf $(USER_BUILD)/papi/guest
endif
ifeq ($(MPI),no)
	@rm -rf $(USER_BUILD)/rootfs-mpi
else
	@echo '==> copying Open MPI (arm64) into the guest root'
	@SYSROOT=$(ARM64_MPI_ROOT) scripts/guest-openmpi.sh $(USER_BUILD)/rootfs-mpi $(USER_BUILD)
endif
	@echo '==> packing the arm64 guest initramfs'
	@DEMO=$(CURDIR)/tests/qemu/demo-guest.sh BUSYBOX=$(ARM64_DEPS)/root/bin/busybox \
		KMOD='$(wildcard $(BUILD)/kmod-$(KCONFIG)/*.ko)' \
		tests/qemu/mkinitramfs.sh $(USER_BUILD) $(INITRAMFS)
else
initramfs: user
	@echo '==> copying Open MPI into the guest root'
	@SYSROOT= scripts/guest-openmpi.sh $(USER_BUILD)/rootfs-mpi $(USER_BUILD) || [ $$? -eq 3 ]
	@echo '==> packing the guest initramfs'
	@DEMO=$(CURDIR)/tests/qemu/demo-guest.sh \
		KMOD='$(wildcard $(BUILD)/kmod-$(KCONFIG)/*.ko)' \
		tests/qemu/mkinitramfs.sh $(USER_BUILD) $(INITRAMFS)
endif

boot: kernel initramfs
	@tests/qemu/run-guest.sh --mode shell $(if $(filter arm64,$(ARCH)),--arch arm64) \
		--kernel $(KERNEL_IMAGE) --initrd $(INITRAMFS)

# The packages first, then a new make for the builds: it reads this file
# again with them installed (and cannot start a build before them, -j or
# not).
# patches/ and kernel-ext/ as one git am-able series (scripts/make-series.sh)
series:
	@BUILD=$(BUILD) scripts/make-series.sh $(BUILD)/series

# ARCH=arm64: the arm64 kernel and guest root (deps-arm64: the cross
# compilers and qemu-system-aarch64), the same demo in the arm64 guest,
# results in ktau-demo-arm64/
DEMO_DEPS := deps-demo
ifeq ($(ARCH),arm64)
DEMO_DEPS := deps-arm64
endif
demo: $(DEMO_DEPS)
	@$(MAKE) --no-print-directory kernel initramfs
	@DEMO_KERNEL='$(KERNEL_IMAGE)' DEMO_INITRD='$(INITRAMFS)' scripts/demo.sh

# an MPI job in the guest: Open MPI on the host (deps-mpi installs it),
# libktau-mpi built against it, its runtime copied into the guest
.PHONY: demo-mpi
demo-mpi: deps-mpi
	@$(MAKE) --no-print-directory kernel initramfs
	@scripts/demo-mpi.sh

ifeq ($(ARCH),arm64)
check: check-arm64
else
check: deps-check
	@scripts/check.sh
endif

# TAU's own runtime against ktau (docs/tau.md): TAU built from its source
# (TAU_SHARED, default tau/ of the shared folder: ../shared, /work/shared
# or KTAU_SHARED=) with -ktau -ktau_shctr against the
# compatibility layer, an instrumented program run on a fake /proc; about 3
# minutes on 2 cores, most of them TAU's build (142 s idle); make check runs it.
# ARCH=arm64: TAU cross-built for the arm64 guest, its program run on the
# host under qemu-aarch64, the overlay in $(BUILD)/user-arm64/rootfs-tau.
.PHONY: check-tau
check-tau:
	@BUILD=$(BUILD) tests/tau/check-tau.sh $(if $(filter arm64,$(ARCH)),--arch arm64)

# arm64, first step: the arm64 kernel cross-built and booted under
# qemu-system-aarch64 with a tiny initramfs, exact counts checked there
# (ARM64_KCONFIG=qemu-arm64-debug: KASAN, lockdep, UBSAN, the compat entry)
ARM64_KCONFIG ?= qemu-arm64
.PHONY: check-arm64-boot
check-arm64-boot: deps-arm64
	@$(MAKE) --no-print-directory kernel ARCH=arm64 KCONFIG=$(ARM64_KCONFIG)
	@BUILD=$(BUILD) KERNEL=$(BUILD)/Image-$(ARM64_KCONFIG) TIMEOUT=900 tests/qemu/arm64-smoke.sh

# the whole guest suite on arm64 (scripts/check-arm64.sh): the arm64
# kernel and guest root cross-built, booted under qemu-system-aarch64;
# x86-only tests reported as such (tests/guest/x86-only).  Its kernel,
# as x86's make check's, preempts fully and has cgroups, user namespaces
# and failslab (tests/configs/qemu-arm64-check.config)
# (ARM64_TESTS=t_a,t_b: those guest tests only)
ARM64_CHECK_KCONFIG ?= qemu-arm64-check
ARM64_TESTS ?=
.PHONY: check-arm64
check-arm64: deps-arm64
	@BUILD=$(BUILD) KCONFIG=$(ARM64_CHECK_KCONFIG) TESTS=$(ARM64_TESTS) scripts/check-arm64.sh

# longer checks, run before landing kernel changes (not in `make check`)
.PHONY: check-long check-debian
check-long: deps-check
	@BUILD=$(BUILD) scripts/check-long.sh

check-debian: deps-check
	@BUILD=$(BUILD) scripts/check-debian-config.sh

fuzz:
	@$(MAKE) -s -C tests/unit BUILD=$(USER_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz

clean:
	rm -rf $(USER_BUILD) $(BUILD)/*.log $(INITRAMFS) $(BUILD)/deb $(BUILD)/deb-src \
		$(BUILD)/deb-arm64 $(BUILD)/deb-src-arm64 $(BUILD)/deb-kernel

distclean:
	rm -rf $(BUILD)
