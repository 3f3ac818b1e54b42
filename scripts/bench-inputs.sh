#!/bin/bash
# The fixed inputs of `make bench`'s whole-program section (issue 35),
# written into ROOT (the bench initramfs' extra root) at packing time, the
# same bytes on every run and every host (awk's own generator, seeded):
#   /bench/progs/tree/    2 000 small files (20 to 520 bytes of words) in
#                         20 directories: busybox tar and gzip, then
#                         gunzip and tar x
#   /bench/progs/text.txt 2 MiB of lines of words: busybox sort, md5sum
#   /bench/progs/LU.dat   ScaLAPACK's LU test input (xdlu): one 160 x 160
#                         system on a 1 x 2 process grid
#   /bench/progs/tree.sh, text.sh, execs.sh  the workloads' busybox sh
#                         scripts (execs.sh: 500 runs of /bin/busybox
#                         true, by its path, so each is a fork + execve)
# and, when Debian's Open MPI and scalapack-mpi-test are installed, the
# Open MPI runtime (scripts/guest-openmpi.sh, with libktau-mpi when
# built) and xdlu with its libraries.  Without them the guest prints the
# MPI workload's rows as unavailable.
#
#   scripts/bench-inputs.sh ROOT USER_BUILD
set -uo pipefail

root=${1:?usage: bench-inputs.sh ROOT USER_BUILD}
user_build=${2:?usage: bench-inputs.sh ROOT USER_BUILD}
top=$(cd "$(dirname "$0")/.." && pwd)
progs=$root/bench/progs
multiarch=$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
xdlu=/usr/lib/$multiarch/scalapack/openmpi-tests/xdlu
die() { printf 'bench-inputs: error: %s\n' "$*" >&2; exit 1; }

rm -rf "$progs"
mkdir -p "$progs/tree" || die "cannot create $progs"

# A word list and a generator of awk's own (srand's differs between awk
# implementations): Park and Miller's, whose products stay below 2^53,
# exact in awk's doubles, so that mawk and gawk write the same bytes.
gen='
function rnd() { seed = (seed * 16807) % 2147483647; return int(seed / 8) }
function word(   w) { w = words[rnd() % nwords + 1]; return w }
BEGIN {
	nwords = split("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu kernel trace profile syscall fault switch", words, " ")
	seed = 35
}'
awk "$gen"'
END {
	for (d = 0; d < 20; d++) {
		dir = sprintf("%s/d%02d", root, d)
		system("mkdir -p " dir)
		for (f = 0; f < 100; f++) {
			file = sprintf("%s/f%03d.txt", dir, f)
			n = 20 + rnd() % 500
			s = ""
			while (length(s) < n)
				s = s word() (rnd() % 8 ? " " : "\n")
			printf "%s\n", s >file
			close(file)
		}
	}
}' root="$progs/tree" </dev/null || die "generating the tree failed"
awk "$gen"'
END {
	while (bytes < 2097152) {
		line = sprintf("%08d", rnd() % 100000000)
		for (i = rnd() % 8 + 2; i > 0; i--)
			line = line " " word()
		print line
		bytes += length(line) + 1
	}
}' </dev/null >"$progs/text.txt" || die "generating the text failed"

# The workloads' scripts: busybox sh running busybox's applets by the path
# /bin/busybox, so that each is a fork and an execve (ash with
# FEATURE_SH_STANDALONE runs an applet named without a '/' by its own
# path, some in-process).  Each writes under /tmp/prog/, which the guest
# empties before every run, outside the count.
cat >"$progs/tree.sh" <<'EOF'
#!/bin/sh
# file tree (make bench; scripts/bench-inputs.sh): a gzipped tar of 2 000
# files, then its extraction.  One program at a time: `tar czf` and
# `tar xzf` run gzip beside tar through a pipe, and how the two take turns
# (and so how many reads, writes and switches the run makes) would vary
# with every instruction either kernel adds.
set -e
/bin/busybox tar cf /tmp/prog/tree.tar -C /bench/progs tree
/bin/busybox gzip /tmp/prog/tree.tar
/bin/busybox gunzip -c /tmp/prog/tree.tar.gz >/tmp/prog/copy.tar
/bin/busybox mkdir /tmp/prog/x
/bin/busybox tar xf /tmp/prog/copy.tar -C /tmp/prog/x
EOF
cat >"$progs/text.sh" <<'EOF'
#!/bin/sh
# text (make bench; scripts/bench-inputs.sh): sort 2 MiB of lines, then the
# MD5 sums of the input and of the sorted output
set -e
/bin/busybox sort -o /tmp/prog/sorted.txt /bench/progs/text.txt
/bin/busybox md5sum /bench/progs/text.txt /tmp/prog/sorted.txt
EOF
cat >"$progs/execs.sh" <<'EOF'
#!/bin/sh
# process (make bench; scripts/bench-inputs.sh): 500 commands, each a
# fork of the shell and an execve of /bin/busybox
i=0
while [ $i -lt 500 ]; do
	/bin/busybox true
	i=$((i + 1))
done
EOF
chmod 755 "$progs/tree.sh" "$progs/text.sh" "$progs/execs.sh"

# ScaLAPACK's LU test (the format of Debian's /usr/share/scalapack/LU.dat):
# one problem, 160 x 160, block 16, one right-hand side, grid 1 x 2
cat >"$progs/LU.dat" <<'EOF'
'SCALAPACK, LU factorization input file'
'make bench (scripts/bench-inputs.sh)'
'LU.out'		output file name (if any)
6			device out
1			number of problems sizes
160			values of M
160			values of N
1			number of NB's
16			values of NB
1			number of NRHS's
1			values of NRHS
1			Number of NBRHS's
1			values of NBRHS
1			number of process grids (ordered pairs of P & Q)
1			values of P
2			values of Q
1.0			threshold
T			(T or F) Test Cond. Est. and Iter. Ref. Routines
EOF

# the MPI workload: Open MPI's runtime and ktau's libraries, then xdlu
mpi=$root.mpi
SYSROOT= "$top/scripts/guest-openmpi.sh" "$mpi" "$user_build" >&2
case $? in
0) ;;
3) echo "bench-inputs: no Open MPI: the MPI workload is left out" >&2; exit 0 ;;
*) die "copying Open MPI failed" ;;
esac
if [ ! -x "$xdlu" ]; then
	echo "bench-inputs: no $xdlu (apt-get install scalapack-mpi-test): the MPI workload is left out" >&2
else
	install -D -m 755 "$xdlu" "$mpi$xdlu"
	ldd "$xdlu" | awk '/=> \// { print $3 } /^\t\// { print $1 }' | sort -u |
	while read -r lib; do
		[ -e "$mpi$lib" ] || install -D -m 755 "$(readlink -f "$lib")" "$mpi$lib"
	done
	"$(command -v ldconfig || echo /sbin/ldconfig)" -r "$mpi"
fi
cp -a "$mpi/." "$root/" || die "copying $mpi into $root failed"
rm -rf "$mpi"
echo "bench-inputs: $progs: $(du -sk "$progs" | cut -f1) KiB of inputs; MPI: $([ -x "$root$xdlu" ] && echo xdlu || echo none)" >&2
