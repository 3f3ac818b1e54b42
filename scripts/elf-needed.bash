# The shared libraries an ELF file of another root loads, found the way
# that root's dynamic loader would find them, without running anything
# (ldd cannot run another architecture's programs).  Sourced by bash
# scripts that copy programs into a guest root (scripts/guest-openmpi.sh,
# papi/stage-guest.sh):
#
#   . scripts/elf-needed.bash
#   elf_needed_init SYSROOT OVERLAY "LIBDIR..."
#   elf_needed ELF...; for lib in "${elf_needed_libs[@]}"; do ...
#
# SYSROOT: the unpacked root the guest's libraries come from; OVERLAY: a
# second root searched after it in each directory (a guest root being
# filled, with ktau's own libraries), or "" for none; LIBDIRS: the
# guest's library directories in the loader's order.  elf_needed sets
# the array elf_needed_libs to the guest path of every library the ELF
# files (host paths, or guest paths of SYSROOT's) load, directly or
# through another, and of the loader they name, each once;
# "missing:NAME" for a library found nowhere.  It prints nothing: called
# in a $(...), it would forget what it learnt.
#
# Each file is read once (readelf) and each name found once, however many
# files load it: copying Open MPI's 150 plugins walks the same few
# libraries again and again.

# A guest path of SYSROOT's as a host path, its links followed inside
# SYSROOT (an absolute link names a file of SYSROOT, not of the host).
elf_real_path() {
	local path=$1 target n=0
	while [ -L "$_elf_sysroot$path" ] && [ $n -lt 40 ]; do
		target=$(readlink "$_elf_sysroot$path")
		case "$target" in
		/*) path=$target ;;
		*) path=$(dirname "$path")/$target ;;
		esac
		n=$((n + 1))
	done
	echo "$_elf_sysroot$path"
}

elf_needed_init() {
	_elf_sysroot=$1
	_elf_overlay=$2
	_elf_libdirs=$3
	declare -gA _elf_direct=() _elf_found=() _elf_host=()
}

# _elf_libs: the guest paths FILE (a host path) loads directly, and its
# loader
_elf_direct_of() {
	local file=$1 need dir found
	if [ -z "${_elf_direct[$file]+set}" ]; then
		_elf_direct[$file]=$(readelf -l -d "$file" 2>/dev/null | sed -n \
			-e 's/.*Requesting program interpreter: \(.*\)\]/interp:\1/p' \
			-e 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
	fi
	_elf_libs=()
	for need in ${_elf_direct[$file]}; do
		case "$need" in interp:*) _elf_libs+=("${need#interp:}"); continue ;; esac
		found=${_elf_found[$need]:-}
		if [ -z "$found" ]; then
			for dir in $_elf_libdirs; do
				if [ -e "$_elf_sysroot$dir/$need" ] ||
					{ [ -n "$_elf_overlay" ] && [ -e "$_elf_overlay$dir/$need" ]; }; then
					found=$dir/$need
					_elf_found[$need]=$found
					break
				fi
			done
		fi
		_elf_libs+=("${found:-missing:$need}")
	done
}

elf_needed() {
	local -A seen=()
	local queue=() f lib
	elf_needed_libs=()
	for f in "$@"; do
		[ -e "$_elf_sysroot$f" ] && f=$(elf_real_path "$f")
		queue+=("$f")
	done
	while [ ${#queue[@]} -gt 0 ]; do
		f=${queue[0]}
		queue=("${queue[@]:1}")
		_elf_direct_of "$f"
		for lib in "${_elf_libs[@]}"; do
			[ -n "${seen[$lib]:-}" ] && continue
			seen[$lib]=1
			elf_needed_libs+=("$lib")
			case "$lib" in missing:*) continue ;; esac
			if [ -z "${_elf_host[$lib]:-}" ]; then
				if [ -e "$_elf_sysroot$lib" ]; then
					_elf_host[$lib]=$(elf_real_path "$lib")
				else
					_elf_host[$lib]=$_elf_overlay$lib
				fi
			fi
			queue+=("${_elf_host[$lib]}")
		done
	done
}
