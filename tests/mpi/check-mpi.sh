#!/bin/bash
# libktau-mpi on the host, with the real Open MPI: `mpirun --oversubscribe
# -np 4` of tests/mpi/mpi-ring, profiled by LD_PRELOAD and, again, linked
# with the library; each job's directory read back whole by mpi-check (the
# project's TAU reader: one file per rank, the exact calls of every MPI
# routine, the exact message-size events, the metadata) and by TAU's own
# readers when ../shared/tools/tau-check is there; the same program in
# Fortran, preloaded, when mpifort is there; tests/mpi/mpi-requests for
# the request paths mpi-ring does not take and the collectives' sizes.  Then what goes wrong:
# a profile directory that cannot be made (the job still succeeds, each
# rank says why), and a rank that crashes (the others' files stay whole,
# no half file is left).  There is no ktau kernel here: the profiles are
# user-level only (the guest test checks kernel routines under MPI ones).
# One PASS/FAIL line a check; one SKIP line without mpicc or mpirun, and
# one for each part that cannot run here (Fortran without mpifort, TAU's
# readers without the shared tau-check), naming what is missing.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"
label=mpi

have_tools "$label" "make deps installs openmpi-bin libopenmpi-dev" mpicc mpirun || exit 0

if ! out=$(make -s -C "$top" mpi BUILD="$BUILD" 2>&1); then
	fail "$label: make mpi" "$(printf '%s\n' "$out" | tail -n 5)"
	exit 1
fi
pass "$label: make mpi builds libktau-mpi.so, libktau-mpi.a and the test programs"

lib=$BUILD/user/lib
bin=$BUILD/user/mpi
check=$bin/mpi-check
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ranks=4
launch=(mpirun --oversubscribe -np "$ranks")
[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)

# job OUT ENV... -- PROGRAM ARGS...: mpirun the way docs/mpi.md says (each
# rank under `env`), stdout and stderr in OUT.out and OUT.err; its status.
job() {
	local out=$1 envs=()
	shift
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	timeout 300 "${launch[@]}" env "${envs[@]}" "$@" > "$out.out" 2> "$out.err"
}

# ran_ok LABEL OUT STATUS: the job succeeded and every rank said "ok".
ran_ok() {
	local name=$1 out=$2 status=$3 oks
	oks=$(grep -c ', ok$' "$out.out")
	if [ "$status" -ne 0 ] || [ "$oks" -ne "$ranks" ]; then
		fail "$name: the job runs" "exit $status, $oks of $ranks ranks ok; $(tail -n 3 "$out.err")"
		return 1
	fi
	pass "$name: the job runs ($ranks ranks, every message checked)"
}

# ---- LD_PRELOAD: the unmodified program ----
dir=$tmp/preload
job "$tmp/preload" LD_PRELOAD="$bin/libktau-mpi.so" LD_LIBRARY_PATH="$lib" \
	KTAU_PROFILE_DIR="$dir" -- "$bin/mpi-ring" 10 4096
if ran_ok "$label: LD_PRELOAD" "$tmp/preload" $?; then
	"$check" --label "$label: LD_PRELOAD" --ranks "$ranks" --rounds 10 --bytes 4096 "$dir" ||
		failed=1
fi

# ---- linked with libktau-mpi (no top-level timer: MPI routines are roots) ----
job "$tmp/linked" KTAU_PROFILE_DIR="$tmp/linked-dir" -- "$bin/mpi-ring-linked" 7 1000
if ran_ok "$label: linked" "$tmp/linked" $?; then
	"$check" --label "$label: linked" --root "" --ranks "$ranks" --rounds 7 --bytes 1000 \
		"$tmp/linked-dir" || failed=1
fi

# ---- the request paths (persistent, any, some, probe, MPI_PROC_NULL) and
# the collectives' sizes ----
job "$tmp/requests" LD_PRELOAD="$bin/libktau-mpi.so" LD_LIBRARY_PATH="$lib" \
	KTAU_PROFILE_DIR="$tmp/requests-dir" -- "$bin/mpi-requests" 5 1000
if ran_ok "$label: requests" "$tmp/requests" $?; then
	"$check" --label "$label: requests" --program mpi-requests --ranks "$ranks" --rounds 5 \
		--bytes 1000 "$tmp/requests-dir" || failed=1
fi

# ---- Fortran (`use mpi`): Open MPI's Fortran bindings call PMPI_ directly,
# libktau-mpi's mpi_*_ entry points time them ----
if [ ! -x "$bin/mpi-ring-f" ]; then
	echo "SKIP: $label: Fortran: mpifort not installed (Debian packages libopenmpi-dev, gfortran)"
else
	job "$tmp/fortran" LD_PRELOAD="$bin/libktau-mpi.so" LD_LIBRARY_PATH="$lib" \
		KTAU_PROFILE_DIR="$tmp/fortran-dir" -- "$bin/mpi-ring-f" 6 300
	if ran_ok "$label: Fortran" "$tmp/fortran" $?; then
		"$check" --label "$label: Fortran" --ranks "$ranks" --rounds 6 --bytes 300 \
			"$tmp/fortran-dir" || failed=1
	fi
fi

# ---- TAU's own readers (ParaProf's, pprof), where this machine has them ----
# shellcheck source=tests/lib/shared-dir.sh
. "$top/tests/lib/shared-dir.sh"
tau_check=$(ktau_shared_dir "$top")/tools/tau-check/check.sh
if [ ! -x "$tau_check" ]; then
	echo "SKIP: $label: TAU's readers: $tau_check not found (the project's shared/ folder: beside the clone, /work/shared or KTAU_SHARED=)"
elif [ ! -d "$dir" ]; then
	fail "$label: ParaProf's and pprof's readers open the LD_PRELOAD job's directory" "no directory"
elif out=$("$tau_check" "$dir" 2>&1); then
	pass "$label: ParaProf's and pprof's readers open the LD_PRELOAD job's directory"
else
	fail "$label: ParaProf's and pprof's readers open the LD_PRELOAD job's directory" \
		"$(printf '%s\n' "$out" | grep -E 'FAIL|Error' | head -n 3)"
fi

# ---- a directory that cannot be made: the job succeeds, each rank says why ----
# expect_warning NAME OUT DIR REASON: ranks ok, one warning each, no files.
expect_warning() {
	local name=$1 out=$2 where=$3 reason=$4 status=$5 warned
	warned=$(grep -c "^ktau: could not write the profiles to $where: $reason\$" "$out.err")
	if [ "$status" -ne 0 ] || [ "$warned" -ne "$ranks" ]; then
		fail "$name" "exit $status, $warned of $ranks ranks said 'could not write the profiles to $where: $reason'; $(grep -v '^ktau: kernel' "$out.err" | head -n 2)"
	else
		pass "$name"
	fi
}

echo "not a directory" > "$tmp/file"
job "$tmp/file-job" LD_PRELOAD="$bin/libktau-mpi.so" LD_LIBRARY_PATH="$lib" \
	KTAU_PROFILE_DIR="$tmp/file" -- "$bin/mpi-ring" 2 64
expect_warning "$label: KTAU_PROFILE_DIR a file: the job succeeds, each rank says why" \
	"$tmp/file-job" "$tmp/file" "Not a directory" $?
if [ "$(cat "$tmp/file")" != "not a directory" ]; then
	fail "$label: KTAU_PROFILE_DIR a file: the file is left as it was" "$(head -c 200 "$tmp/file")"
fi

job "$tmp/missing-job" LD_PRELOAD="$bin/libktau-mpi.so" LD_LIBRARY_PATH="$lib" \
	KTAU_PROFILE_DIR="$tmp/no/such/dir" -- "$bin/mpi-ring" 2 64
expect_warning "$label: KTAU_PROFILE_DIR in a missing directory: the job succeeds, each rank says why" \
	"$tmp/missing-job" "$tmp/no/such/dir" "No such file or directory" $?

# ---- a rank that crashes at the end: the others' files are whole ----
# Rank 2 waits (after MPI_Finalize) until the others have written, then
# kills itself: deterministic, whatever the machine's speed.
dir=$tmp/crash
job "$tmp/crash" LD_PRELOAD="$bin/libktau-mpi.so" LD_LIBRARY_PATH="$lib" KTAU_PROFILE_DIR="$dir" \
	MPI_RING_CRASH_RANK=2 MPI_RING_CRASH_WHEN="$tmp/go" -- "$bin/mpi-ring" 5 512 &
pid=$!
for _ in $(seq 600); do
	[ -e "$dir/profile.0.0.0" ] && [ -e "$dir/profile.1.0.0" ] && [ -e "$dir/profile.3.0.0" ] && break
	sleep 0.1
done
touch "$tmp/go"
wait "$pid"
status=$?
if [ "$status" -eq 0 ]; then
	fail "$label: a rank killed at the end fails the job" "mpirun exited 0"
else
	pass "$label: a rank killed at the end fails the job (mpirun exit $status)"
	"$check" --label "$label: rank 2 crashed" --ranks "$ranks" --missing 2 --rounds 5 --bytes 512 \
		"$dir" || failed=1
fi

exit "$failed"
