#!/bin/bash
# ABI metadata that tells the truth (docs/libktau-abi.md, "Versions"):
#   - the release, written once in libktau/include/ktau.h (scripts/version.sh),
#     is the newest version node of libktau.map, the newest entry of
#     debian/changelog, the .pc files' Version and the shared objects' file
#     names as `make lib` builds them;
#   - each symbols file lists exactly what its map exports, each symbol under
#     the map's node and with the release that added it; the private symbols
#     with the dependency template that pins their users to this release;
#   - the KTAU_PRIVATE contract: libktau exports under that node only what
#     libktau-prof takes from it, and no tool uses any libktau internal.
# One PASS/FAIL line a check; exit 1 when one fails.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-$top/build}
# shellcheck source=tests/install/lib.sh
. "$top/tests/install/lib.sh"

label=abi
libdir=$BUILD/user/lib

if ! version=$("$top/scripts/version.sh" 2>&1); then
	fail "$label: the release in libktau/include/ktau.h" "$version"
	exit 1
fi
IFS=. read -r major minor patch <<<"$version"
pass "$label: the release is $version (libktau/include/ktau.h)"

# version_le A B: A <= B in version order
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | tail -n 1)" = "$2" ]; }

# map_symbols MAP: "symbol node" for each symbol MAP lists, and "node node"
# for each node (as dpkg-gensymbols lists the nodes themselves)
map_symbols() {
	awk '/^[A-Z][A-Z0-9_.]* \{/ { node = $1; print node, node; next }
	     /^\}/ { node = "" }
	     node && /^[ \t]+[A-Za-z_][A-Za-z0-9_]*;$/ { sym = $1; sub(/;$/, "", sym); print sym, node }' "$1"
}

# --- the newest node and the changelog -------------------------------------
newest=$(map_symbols "$top/libktau/libktau.map" | awk '$1 == $2 && $1 ~ /^KTAU_[0-9]+\.[0-9]+$/ { print $1 }' |
	sed 's/^KTAU_//' | sort -V | tail -n 1)
if [ "$newest" != "$major.$minor" ]; then
	fail "$label: libktau.map's newest node is KTAU_$major.$minor (release $version)" \
		"it is KTAU_${newest:-none}: a release that adds symbols raises KTAU_VERSION_MINOR, a node needs its release"
else
	pass "$label: libktau.map's newest node is KTAU_$major.$minor (release $version)"
fi

changelog=$(sed -n '1s/^ktau (\([^)]*\)) .*/\1/p' "$top/debian/changelog")
if [ "$changelog" != "$version" ]; then
	fail "$label: debian/changelog's newest entry is $version" \
		"it is '${changelog:-unreadable}': add an entry (dch -v $version)"
else
	pass "$label: debian/changelog's newest entry is $version"
fi

# --- what make lib builds ----------------------------------------------------
if ! out=$(make -s -C "$top" lib BUILD="$BUILD" 2>&1); then
	fail "$label: make lib" "$(printf '%s\n' "$out" | tail -n 5)"
	exit 1
fi
for pc in ktau ktau-prof; do
	file=$libdir/pkgconfig/$pc.pc
	got=$(sed -n 's/^Version: //p' "$file" 2>/dev/null || true)
	if [ "$got" != "$version" ]; then
		fail "$label: $pc.pc says Version: $version" "it says '${got:-nothing}' ($file)"
	else
		pass "$label: $pc.pc says Version: $version"
	fi
done
got=$(sed -n 's/^Requires: //p' "$libdir/pkgconfig/ktau-prof.pc")
if [ "$got" != "ktau = $version" ]; then
	fail "$label: ktau-prof.pc requires ktau = $version" "Requires: $got"
else
	pass "$label: ktau-prof.pc requires ktau = $version"
fi
for lib in libktau libktau-prof; do
	file=$lib.so.$version
	soname=$(readelf -d "$libdir/$file" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p' || true)
	link=$(readlink "$libdir/$lib.so.$major" || true)
	if [ ! -f "$libdir/$file" ] || [ -L "$libdir/$file" ]; then
		fail "$label: $lib's shared object is $file" "no such file in $libdir: $(cd "$libdir" && echo "$lib".so*)"
	elif [ "$soname" != "$lib.so.$major" ] || [ "$link" != "$file" ]; then
		fail "$label: $file, SONAME $lib.so.$major, linked from $lib.so.$major" \
			"SONAME '$soname', $lib.so.$major -> '$link'"
	else
		pass "$label: $file, SONAME $lib.so.$major, linked from $lib.so.$major"
	fi
done

# --- the symbols files -------------------------------------------------------
# The release that added a node's symbols is its number (KTAU_1.3: 1.3,
# KTAU_PROF_1.0: 1.0), except for this node, named before that rule: it came
# with KTAU_1.2's release (merged after it, as part of libktau-mpi's work).
declare -A released_in=([KTAU_PROF_1.1]=1.2)

# check_symbols SYMBOLS MAP: the symbols file SYMBOLS against MAP
check_symbols() {
	local symbols=$1 map=$2 name bad line sym node ver id want extra missing
	name=$(basename "$symbols")
	bad=
	while read -r line; do
		# " symbol@NODE version [template]"
		read -r sym ver id <<<"$line"
		node=${sym#*@}
		sym=${sym%@*}
		if [ "$node" = KTAU_PRIVATE ]; then
			# no release promise: pinned by template 1 to this release
			[ "$id" = 1 ] || bad="$bad; $sym@$node has template '${id:-none}', not 1 (the exact release)"
			version_le "$ver" "$version" || bad="$bad; $sym@$node $ver is after the release"
			continue
		fi
		want=${released_in[$node]:-${node##*_}}
		[ "$ver" = "$want" ] ||
			bad="$bad; $sym@$node is at $ver, but $node came in $want"
		[ -z "$id" ] || bad="$bad; $sym@$node has a template ($id): a public symbol has none"
		version_le "$ver" "$version" || bad="$bad; $sym@$node $ver is after the release $version"
	done < <(grep '^ ' "$symbols")
	if [ -n "$bad" ]; then
		fail "$label: $name: each symbol at the release that added its node" "${bad#; }"
	else
		pass "$label: $name: each symbol at the release that added its node (newest $(grep '^ ' "$symbols" |
			awk '{ print $2 }' | sort -V | tail -n 1))"
	fi
	# the same symbols under the same nodes as the map
	extra=$(comm -13 <(map_symbols "$map" | awk '{ print $1 "@" $2 }' | sort) \
		<(grep '^ ' "$symbols" | awk '{ print $1 }' | sort) | tr '\n' ' ')
	missing=$(comm -23 <(map_symbols "$map" | awk '{ print $1 "@" $2 }' | sort) \
		<(grep '^ ' "$symbols" | awk '{ print $1 }' | sort) | tr '\n' ' ')
	if [ -n "$extra$missing" ]; then
		fail "$label: $name lists what $(basename "$map") exports, under its nodes" \
			"not in the map: ${extra:-none}; not in $name: ${missing:-none}"
	else
		pass "$label: $name lists what $(basename "$map") exports, under its nodes"
	fi
}
check_symbols "$top/debian/libktau1.symbols" "$top/libktau/libktau.map"
check_symbols "$top/debian/libktau-prof1.symbols" "$top/libktau/libktau-prof.map"

# libktau's internals: whatever uses one depends on exactly this release
next="$major.$minor.$((patch + 1))~"
want="| libktau1 (>= $version), libktau1 (<< $next)"
got=$(grep '^|' "$top/debian/libktau1.symbols" | sed -n 1p || true)
if [ "$got" != "$want" ]; then
	fail "$label: libktau1.symbols pins KTAU_PRIVATE's users to $version" \
		"its template 1 is '${got:-missing}', not '$want'"
else
	pass "$label: libktau1.symbols pins KTAU_PRIVATE's users to $version ($want)"
fi

# --- KTAU_PRIVATE: for libktau-prof, and all of it used ----------------------
exported=$(nm -D --defined-only "$libdir/libktau.so.$version" |
	awk '$NF ~ /@KTAU_PRIVATE$/ { sub(/@.*/, "", $NF); print $NF }' | sort)
used=$(nm -D --undefined-only "$libdir/libktau-prof.so.$version" |
	awk '$NF ~ /@KTAU_PRIVATE$/ { sub(/@.*/, "", $NF); print $NF }' | sort)
unused=$(comm -23 <(printf '%s\n' "$exported") <(printf '%s\n' "$used") | tr '\n' ' ')
if [ -z "$exported" ]; then
	fail "$label: libktau exports KTAU_PRIVATE for libktau-prof alone" "no KTAU_PRIVATE symbol exported"
elif [ -n "$unused" ]; then
	fail "$label: every KTAU_PRIVATE symbol is one libktau-prof uses" \
		"libktau-prof.so.$version does not use: $unused(hide them: libktau.map, KTAU_HIDDEN)"
else
	pass "$label: every KTAU_PRIVATE symbol is one libktau-prof uses ($(printf '%s\n' "$exported" | wc -l))"
fi

# the tools use the public interface alone: no object of theirs names a
# libktau internal (built statically, they could; shared, as the packages
# build them, a KTAU_PRIVATE one would bind them to one release)
if ! out=$(make -s -C "$top" tools BUILD="$BUILD" 2>&1); then
	fail "$label: make tools" "$(printf '%s\n' "$out" | tail -n 5)"
	exit 1
fi
objs=("$BUILD"/user/obj/tools/*.o "$BUILD"/user/obj/paraprof-export/*.o)
internal=$(nm -u "${objs[@]}" 2>/dev/null | awk '/^\// { file = $0 } $NF ~ /^ktau__/ { print file " " $NF }' |
	sed "s|^$BUILD/user/obj/||; s|:||" | tr '\n' ';')
if [ -n "$internal" ]; then
	fail "$label: the tools use no libktau internal (ktau__*)" "$internal"
else
	pass "$label: the tools use no libktau internal (ktau__*; ${#objs[@]} objects)"
fi
exit "$failed"
