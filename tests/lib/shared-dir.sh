# shellcheck shell=bash
# Sourced by the checks that use the project's shared folder (TAU's
# source and build script, ParaProf's reader; docs/tau.md):
# ktau_shared_dir TOP prints where it is,
# KTAU_SHARED if set, else the folder beside the clone (TOP/../shared),
# else this machine's /work/shared, where a clone made elsewhere (CI's,
# a mktemp -d) still finds it; nothing when there is none.
ktau_shared_dir() {
	local d
	for d in ${KTAU_SHARED:+"$KTAU_SHARED"} "$1/../shared" /work/shared; do
		if [ -d "$d" ]; then
			(cd "$d" && pwd)
			return 0
		fi
	done
	return 1
}
