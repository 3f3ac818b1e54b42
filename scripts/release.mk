# ktau's release for the makefiles of its shared libraries (libktau,
# libktau-mpi, libktau-papi): VERSION, MAJOR.MINOR.PATCH, read from the
# one place it is written (libktau/include/ktau.h, by scripts/version.sh),
# and SOVERSION, MAJOR, the sonames' number.
KTAU_RELEASE_SCRIPTS := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
VERSION := $(shell $(KTAU_RELEASE_SCRIPTS)/version.sh)
ifeq ($(VERSION),)
$(error no release in libktau/include/ktau.h ($(KTAU_RELEASE_SCRIPTS)/version.sh))
endif
SOVERSION := $(firstword $(subst ., ,$(VERSION)))
