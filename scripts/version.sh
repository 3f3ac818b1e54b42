#!/bin/sh
# Prints ktau's release, MAJOR.MINOR.PATCH (1.6.0), read from the one place
# it is written: the KTAU_VERSION_MAJOR, _MINOR and _PATCH macros of
# libktau/include/ktau.h.  The makefiles (the .pc files, the shared
# objects' file names, the man pages), scripts/deb.sh and
# scripts/deb-kernel.sh take it from here; tests/install/check-abi.sh
# checks what cannot be derived (debian/changelog, the symbols files, the
# newest version node of libktau.map).  Exit 1 when a macro is missing.
set -eu

header=$(dirname "$0")/../libktau/include/ktau.h
awk '$1 == "#define" && $3 ~ /^[0-9]+$/ {
	if ($2 == "KTAU_VERSION_MAJOR") { major = $3; n++ }
	if ($2 == "KTAU_VERSION_MINOR") { minor = $3; n++ }
	if ($2 == "KTAU_VERSION_PATCH") { patch = $3; n++ }
}
END {
	if (n != 3) {
		print "version.sh: " FILENAME " needs one #define each of KTAU_VERSION_MAJOR, _MINOR and _PATCH" > "/dev/stderr"
		exit 1
	}
	print major "." minor "." patch
}' "$header"
