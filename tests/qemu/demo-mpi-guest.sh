#!/bin/sh
# `make demo-mpi`, inside the guest (run as the 9p share's script.sh by
# /init's script mode, from scripts/demo-mpi.sh): the MPI test program
# mpi-ring as a 4-rank Open MPI job on the guest's 2 CPUs, each rank's MPI
# routines timed by libktau-mpi (LD_PRELOAD) with the kernel time under
# them.  Results go to the share (/mnt/host), where the host reports on them:
#   tau/         one profile.<rank>.0.<thread> per rank: ParaProf's experiment
#   report.txt   the job's exit status, and rank 1's MPI routines
#   mpirun.txt   what mpirun and the ranks printed
out=/mnt/host
[ -d "$out" ] || { echo "demo-mpi: no 9p share at $out" >&2; exit 1; }
rm -rf "$out/tau" "$out/report.txt" "$out/mpirun.txt"
for need in /usr/bin/mpirun /usr/local/bin/mpi-ring /usr/local/lib/libktau-mpi.so; do
	if [ ! -e "$need" ]; then
		echo "demo-mpi: $need is not in this initramfs (apt-get install openmpi-bin" \
			"libopenmpi-dev; make mpi initramfs)" | tee "$out/report.txt"
		exit 1
	fi
done

# What Open MPI needs in this busybox guest (its site configuration,
# /etc/openmpi/openmpi-mca-params.conf, has plm isolated and btl
# self,vader): a loopback interface for PMIx, a hostname it accepts, and
# leave to run as root.
ip link set lo up
case "$(hostname)" in *[!A-Za-z0-9.-]*|'') hostname ktau-guest ;; esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the ranks write into the guest's memory; the directory is copied out whole
job=/tmp/ktau-mpi-demo
rm -rf "$job"
echo "==> guest: mpirun --oversubscribe -np 4 env LD_PRELOAD=libktau-mpi.so KTAU_PROFILE_DIR=$job mpi-ring"
mpirun --oversubscribe -np 4 env LD_PRELOAD=libktau-mpi.so KTAU_PROFILE_DIR="$job" \
	mpi-ring >"$out/mpirun.txt" 2>&1
status=$?
cp -r "$job" "$out/tau"
{
	echo "mpirun --oversubscribe -np 4 env LD_PRELOAD=libktau-mpi.so mpi-ring: exit status $status"
	sed 's/^/    /' "$out/mpirun.txt"
	echo
	echo "Rank 1's MPI routines (libktau-mpi) and the kernel routine under each"
	echo "with the most inclusive time (tau/profile.1.0.0; time in usec):"
	printf '%-44s %8s %12s %12s\n' callpath calls excl_usec incl_usec
	awk -F'"' '$2 ~ /^\.TAU application => MPI_[A-Za-z_]+\(\)( => [^ ]+)?$/ {
		split($3, f, " ")
		n = split($2, parts, " => ")
		if (n == 2) { order[++nr] = parts[2]; line[parts[2]] = sprintf("%-44s %8d %12.1f %12.1f", parts[2], f[1], f[3], f[4]) }
		else if (f[4] > best[parts[2]]) { best[parts[2]] = f[4]; kid[parts[2]] = sprintf("  => %-39s %8d %12.1f %12.1f", parts[3], f[1], f[3], f[4]) }
	}
	END { for (i = 1; i <= nr; i++) { print line[order[i]]; if (order[i] in kid) print kid[order[i]] } }' \
		"$job/profile.1.0.0"
} >"$out/report.txt"
cat "$out/report.txt"
exit "$status"
