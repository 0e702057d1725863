#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make intree: build this tree as the patch set it is, inside Debian's Linux
# 6.12 source, together with every in-tree user of the RDMA core that Debian's
# kernel configuration enables.
#
#  1. source.sh unpacks the pristine linux-source-6.12 once (shared through
#     RDMA_KERNEL_CACHE); it is never written to.
#  2. A hard-linked copy of it next to the pristine tree, one per work tree
#     (intree-<hash of this tree's path>), gets our files laid over: folders
#     we carry whole (a Makefile of ours and no subfolder: core, sw/rxe)
#     replace the kernel's, every other file of our drivers/ and include/
#     replaces the kernel's one of the same path.  Files are replaced by
#     rm + cp, never written through a link.  The other include/rdma headers
#     stay, as they would in the patched kernel.
#  3. The newest /boot/config-6.12* with olddefconfig (debug info off, which
#     nothing here reads), RDMA_CORE_GAPS=y so that the options standing for
#     core parts we have not written keep Debian's values (see
#     drivers/infiniband/Kconfig), then modules_prepare.
#  4. make M=<folder> -i -k for drivers/infiniband and each other folder with
#     an RDMA user Debian enables, against Debian's Module.symvers with every
#     export of the rebuilt folders taken out, so that a symbol only the
#     stock RDMA modules export counts as missing.
#  5. One line per module: built and linked, the first compile error (and
#     the types, constants and functions the compiler found missing), or the
#     symbols nothing exports, grouped by the mainline module (and, for
#     ib_core, the file) that exports them; then the gap per mainline part.
#     Modules count when they are in drivers/infiniband, fail to compile, or
#     use an RDMA export.
#
# Exit status: 0 when the modules of our own folders build and link and our
# Kconfig and Makefiles keep everything of mainline's (the measured gap of
# the other modules is not a failure), 1 when not, 2 when the build could
# not be set up.
#
# Environment: RDMA_KERNEL_CACHE (see source.sh), INTREE_CONFIG (the starting
# config), INTREE_SYMVERS (the Module.symvers matching it), INTREE_JOBS
# (default 2), INTREE_ENABLE (options Debian leaves off to switch on before
# olddefconfig: NAME for m, NAME=y for y, e.g. "RDMA_SIW CIFS_SMB_DIRECT=y"),
# INTREE_CORE_GAPS=n (what a distro building the patch set gets: the options
# of the missing core parts, and their users, fall away; they are listed as
# lost, which then is no failure).
set -eu -o pipefail
export LC_ALL=C
# Kbuild drops LC_ALL; LANG=C keeps the compiler's quotes plain ASCII.
export LANG=C
tab=$(printf '\t')

top=$(cd "$(dirname "$0")/../../.." && pwd -P)
jobs=${INTREE_JOBS:-2}
start=$SECONDS

die() {
	echo "intree: $*" >&2
	exit 2
}

# Folders built with M=, each with the options that make it worth building.
groups=(
	"drivers/infiniband INFINIBAND"
	"drivers/nvme/host NVME_RDMA"
	"drivers/nvme/target NVME_TARGET_RDMA"
	"net/rds RDS_RDMA"
	"net/sunrpc/xprtrdma SUNRPC_XPRT_RDMA"
	"net/smc SMC"
	"net/9p NET_9P_RDMA"
	"fs/smb CIFS_SMB_DIRECT SMB_SERVER_SMBDIRECT"
)

# --- what the build needs ----------------------------------------------------
missing=()
for need in make:make gcc:gcc flex:flex bison:bison bc:bc perl:perl \
	    nm:binutils xz:xz-utils flock:util-linux git:git; do
	command -v "${need%%:*}" >/dev/null || missing+=("${need#*:}")
done
[ -f /usr/include/gelf.h ] || missing+=(libelf-dev)
[ -f /usr/include/openssl/opensslv.h ] || missing+=(libssl-dev)
[ ${#missing[@]} -eq 0 ] ||
	die "missing packages: ${missing[*]} (make deps installs them)"

config=${INTREE_CONFIG:-}
if [ -z "$config" ]; then
	for c in /boot/config-6.12*; do
		[ -f "$c" ] && config=$c
	done
fi
[ -f "$config" ] ||
	die "no /boot/config-6.12*: install linux-image-6.12-amd64 (make deps) or set INTREE_CONFIG"
kver=${config##*/config-}
symvers=${INTREE_SYMVERS:-/usr/src/linux-headers-$kver/Module.symvers}
[ -f "$symvers" ] ||
	die "no $symvers: install linux-headers-$kver (make deps) or set INTREE_SYMVERS"

src=$("$top/tools/testing/rdma-kernel/source.sh")
work=$(dirname "$(dirname "$src")")/intree-$(printf '%s' "$top" | sha1sum | cut -c1-12)
tree=$work/linux
logs=$work/logs
mkdir -p "$work"
exec 8>"$work/.lock"
flock -n 8 || die "another make intree of this tree is running ($work)"

# --- lay our files over a hard-linked copy ------------------------------------
mapfile -t ours < <(git -C "$top" ls-files -co --exclude-standard -- drivers include |
		    while read -r f; do [ -f "$top/$f" ] && echo "$f"; done | sort -u)
[ ${#ours[@]} -gt 0 ] || die "no files under drivers/ and include/ in $top"
# Lists are matched with here-strings: "printf | grep -q" can fail under
# pipefail when grep stops reading early.
ourlist=$(printf '%s\n' "${ours[@]}")

whole=()
for f in "${ours[@]}"; do
	[ "${f##*/}" = Makefile ] || continue
	d=${f%/Makefile}
	grep -q "^$d/.*/" <<<"$ourlist" || whole+=("$d")
done

stamp="$src ${whole[*]}"
if [ ! -f "$work/stamp" ] || [ "$(cat "$work/stamp")" != "$stamp" ]; then
	echo "intree: linking a copy of $src"
	rm -rf "$tree" "$work/stamp" "$work/owned"
	cp -al "$src" "$tree" ||
		die "cannot hard-link $src into $work (same file system needed)"
	for d in "${whole[@]}"; do
		rm -rf "${tree:?}/$d"
	done
	echo "$stamp" >"$work/stamp"
fi

# A file we no longer carry gets the kernel's own back (a link again).
if [ -f "$work/owned" ]; then
	while read -r f; do
		grep -qxF "$f" <<<"$ourlist" && continue
		rm -f "${tree:?}/$f"
		[ -f "$src/$f" ] && ln "$src/$f" "$tree/$f"
	done <"$work/owned"
fi
changed=0
for f in "${ours[@]}"; do
	cmp -s "$top/$f" "$tree/$f" && continue
	rm -f "${tree:?}/$f"
	mkdir -p "$(dirname "$tree/$f")"
	cp "$top/$f" "$tree/$f"
	changed=$((changed + 1))
done
printf '%s\n' "${ours[@]}" >"$work/owned"
echo "intree: ${#ours[@]} files of ours in $tree ($changed changed)"

ours_bad=0

# Every option and sourced file of a mainline Kconfig we replace, and every
# folder a mainline Makefile we replace descends into, must be in ours: a
# distro configuration and build rely on them.
kdefs() {
	case $1 in
	*/Kconfig)
		sed -nE -e 's/^[[:space:]]*(menu)?config[[:space:]]+([A-Z0-9_]+).*/config \2/p' \
			-e 's/^[[:space:]]*source[[:space:]]+"([^"]+)".*/source \1/p' "$1" ;;
	*/Makefile)
		grep -E '^obj-' "$1" | grep -oE '[A-Za-z0-9_-]+/' | sed 's/^/folder /' ;;
	esac | sort -u
}
for f in "${ours[@]}"; do
	case $f in */Kconfig | */Makefile) ;; *) continue ;; esac
	[ -f "$src/$f" ] || continue
	while read -r what; do
		echo "intree: $f: mainline's $what is missing from ours"
		ours_bad=1
	done < <(comm -23 <(kdefs "$src/$f") <(kdefs "$tree/$f"))
done

# --- configure and prepare ------------------------------------------------------
export RDMA_CORE_GAPS=${INTREE_CORE_GAPS:-y}
kmake() {
	make -C "$tree" -j"$jobs" "$@"
}

rm -rf "$logs"
mkdir -p "$logs"
rm -f "$tree/.config"
cp "$config" "$tree/.config"
cfgtool=$tree/scripts/config
"$cfgtool" --file "$tree/.config" -d DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
	-d DEBUG_INFO_DWARF4 -d DEBUG_INFO_DWARF5 -e DEBUG_INFO_NONE
for opt in ${INTREE_ENABLE:-}; do
	case $opt in
	*=y) "$cfgtool" --file "$tree/.config" -e "${opt%=y}" ;;
	*) "$cfgtool" --file "$tree/.config" -m "$opt" ;;
	esac
done
kmake olddefconfig >"$logs/config.log" 2>&1 ||
	die "olddefconfig failed, see $logs/config.log"

# Options Debian sets that the laid-over tree lost (debug info and BTF aside,
# switched off above): each one is a driver or feature a distro build of the
# patch set would drop.  Losing an option of drivers/infiniband or of an
# RDMA user is a bug of ours.
setopts() {
	grep -E '^CONFIG_[A-Z0-9_]+=[ym]$' "$1" | cut -d= -f1 |
		grep -vE '^CONFIG_(DEBUG_INFO|PAHOLE_)|BTF' | sort
}
rdma_opts=$({
	for g in "${groups[@]}"; do
		printf '%s\n' "${g#* }" | tr ' ' '\n'
	done
	grep -rhoE '^(menu)?config [A-Z0-9_]+' --include='Kconfig*' \
		"$src/drivers/infiniband" "$tree/drivers/infiniband" | cut -d' ' -f2
} | sed 's/^/CONFIG_/')
while read -r opt; do
	if grep -qxF "$opt" <<<"$rdma_opts"; then
		echo "intree: config: $opt is set in ${config##*/} but lost after olddefconfig"
		[ "$RDMA_CORE_GAPS" = y ] && ours_bad=1
	else
		echo "intree: config: $opt is set in ${config##*/} but lost after olddefconfig (not an RDMA option)"
	fi
done < <(comm -23 <(setopts "$config") <(setopts "$tree/.config"))
for opt in ${INTREE_ENABLE:-}; do
	grep -qE "^CONFIG_${opt%=y}=[ym]$" "$tree/.config" ||
		echo "intree: config: INTREE_ENABLE $opt did not stick (its dependencies are off)"
done

echo "intree: modules_prepare (log: $logs/prepare.log)"
kmake modules_prepare >"$logs/prepare.log" 2>&1 ||
	die "modules_prepare failed, see $logs/prepare.log"

# --- build ------------------------------------------------------------------------
build=()
for g in "${groups[@]}"; do
	read -r dir opts <<<"$g"
	on=0
	for opt in $opts; do
		grep -qE "^CONFIG_$opt=[ym]$" "$tree/.config" && on=1
	done
	if [ $on = 1 ]; then
		build+=("$dir")
	else
		echo "intree: $dir: skipped (${opts// /, } not enabled)"
	fi
done

# Debian's exports minus those of every folder rebuilt here: what the rest of
# the kernel provides to the modules built below.
{
	printf '%s\n' "${build[@]}"
	echo drivers/infiniband
} >"$work/rebuilt"
awk 'NR == FNR { pre[$1 "/"]; next }
     { for (p in pre) if (index($3, p) == 1) next; print }' \
	"$work/rebuilt" "$symvers" >"$work/Module.symvers"
if ! cmp -s "$work/Module.symvers" "$tree/Module.symvers"; then
	rm -f "$tree/Module.symvers"
	cp "$work/Module.symvers" "$tree/Module.symvers"
fi

extra=()
for dir in "${build[@]}"; do
	log=$logs/M-${dir//\//_}.log
	echo "intree: make M=$dir (log: $log)"
	rm -f "$tree/$dir/modules.order" "$tree/$dir/Module.symvers"
	kmake -i -k -Otarget M="$dir" KBUILD_MODPOST_WARN=1 \
		KBUILD_EXTRA_SYMBOLS="${extra[*]}" modules >"$log" 2>&1 || true
	[ -f "$tree/$dir/Module.symvers" ] && extra+=("$tree/$dir/Module.symvers")
done

# --- results -----------------------------------------------------------------------
cat "$logs"/M-*.log >"$work/build.log"
failed=$(sed -nE 's/.*\[[^]]*: ([^] ]+)\] Error [0-9]+ \(ignored\)$/\1/p' "$work/build.log" |
	 sort -u)
# Every compiler error, after the object it belongs to (-Otarget keeps the
# output of one compile together, after its "CC [M]" line).
awk '/^  [A-Z]+ +(\[M\] +)?[^ ]+$/ { cur = $NF }
     / (fatal )?error: / { print cur "\t" $0 }' "$work/build.log" >"$work/errors"

# What the compiler found missing, from the error messages of some objects.
missing_names() {
	grep -F -f <(printf '%s\t\n' "$@") "$work/errors" |
		sed -E "s/'const /'/g" |
		sed -nE -e "s/.*undefined type '([^']*)'.*/\1/p" \
			-e "s/.*incomplete type '([^']*)'.*/\1/p" \
			-e "s/.*'([A-Za-z_0-9]*)' undeclared.*/\1/p" \
			-e "s/.*unknown type name '([^']*)'.*/\1/p" \
			-e "s/.*implicit declaration of function '([^']*)'.*/\1()/p" \
			-e "s/.*'([^']*)' has no member named '([^']*)'.*/\1.\2/p" |
		sort -u | paste -sd' '
}

# First pass: the modules that did not compile or link.  With make -i a
# stale object of an earlier run may stand in for one that failed now, so
# these modules' exports must not count below.
mods=()
for dir in "${build[@]}"; do
	if [ -f "$tree/$dir/modules.order" ]; then
		mapfile -t -O ${#mods[@]} mods < <(sed 's/\.o$//' "$tree/$dir/modules.order")
	else
		echo "intree: $dir: no modules.order, see $logs/M-${dir//\//_}.log"
	fi
done
for d in "${whole[@]}"; do
	[ ${#mods[@]} -gt 0 ] && grep -q "^$d/" <<<"$(printf '%s\n' "${mods[@]}")" && continue
	echo "intree: $d: no module of ours was built there"
	ours_bad=1
done
declare -A verdict=()
for mod in "${mods[@]}"; do
	objs=()
	[ -f "$tree/$mod.mod" ] && mapfile -t objs <"$tree/$mod.mod"
	bad=()
	for o in "${objs[@]}" "$mod.o"; do
		grep -qxF "$o" <<<"$failed" && bad+=("$o")
	done
	if [ ${#bad[@]} -gt 0 ]; then
		err=$(grep -F -m1 "${bad[0]}$tab" "$work/errors" | cut -f2- || true)
		verdict[$mod]="compile error: ${err:-${bad[0]} failed, see $work/build.log}"
		needs=$(missing_names "${bad[@]}")
		[ -n "$needs" ] && verdict[$mod]="${verdict[$mod]}; missing: $needs"
	elif [ ! -f "$tree/$mod.ko" ] || grep -qxF "$mod.ko" <<<"$failed"; then
		verdict[$mod]="not linked, see $work/build.log"
	fi
done

# Every export the modules may resolve against (none of a failed module),
# those of the RDMA modules, and who exports what in mainline: the module
# name from Debian's Module.symvers, with the file for ib_core (the parts of
# the core this tree has not written).
printf '%s\n' "${!verdict[@]}" >"$work/failed-mods"
awk -F'\t' 'NR == FNR { bad[$1]; next } !($3 in bad) { print $2 }' \
	"$work/failed-mods" "$work/Module.symvers" "${extra[@]}" | sort -u >"$work/exports"
awk -F'\t' '$3 ~ /^drivers\/infiniband\// { print $2 }' "$symvers" "${extra[@]}" |
	sort -u >"$work/rdma-exports"
grep -oE 'EXPORT_SYMBOL(_GPL)?\([a-z_A-Z0-9]+\)' -r --include='*.c' \
	"$src/drivers/infiniband/core" |
	sed -E 's|.*/([^/:]+\.c):.*\((.*)\)|\2\t\1|' >"$work/core-files"
awk -F'\t' 'NR == FNR { file[$1] = $2; next }
	{ n = split($3, p, "/"); m = p[n]
	  if (m == "ib_core" && ($2 in file)) m = m "/" file[$2]
	  print $2 "\t" m }' "$work/core-files" "$symvers" | sort -u -t"$tab" -k1,1 >"$work/exporter"

# Second pass: one line per module.
total=0
good=0
: >"$work/result"
: >"$work/gaps"
report() {
	echo "intree: $*" | tee -a "$work/result"
}
for mod in "${mods[@]}"; do
	line=${verdict[$mod]:-}
	if [ -z "$line" ]; then
		nm -u "$tree/$mod.ko" | awk '$1 == "U" { print $2 }' | sort -u >"$work/undef"
		case $mod in
		drivers/infiniband/*) ;;
		*) [ -n "$(comm -12 "$work/undef" "$work/rdma-exports")" ] || continue ;;
		esac
		comm -23 "$work/undef" "$work/exports" |
			join -t"$tab" -a1 -e '?' -o 0,2.2 - "$work/exporter" |
			sed "s|\$|$tab${mod##*/}|" >"$work/unres"
		if [ ! -s "$work/unres" ]; then
			line="built and linked"
			good=$((good + 1))
		else
			cat "$work/unres" >>"$work/gaps"
			line="$(wc -l <"$work/unres") unresolved: $(awk -F'\t' '
				{ g[$2] = g[$2] " " $1 }
				END { for (w in g) print w ":" g[w] }' "$work/unres" |
				sort | paste -sd';' | sed 's/;/; /g')"
		fi
	fi
	total=$((total + 1))
	for d in "${whole[@]}"; do
		case $mod in
		"$d"/*) [ "$line" = "built and linked" ] || ours_bad=1 ;;
		esac
	done
	report "$mod: $line"
done

# The gap per mainline part: how many of its exports the modules above miss,
# and how many modules miss them.
awk -F'\t' '{ s[$2, $1]; m[$2, $3] }
	END {
		for (k in s) { split(k, p, SUBSEP); ns[p[1]]++ }
		for (k in m) { split(k, p, SUBSEP); nm[p[1]]++ }
		for (g in ns)
			printf "%d\t%s: %d symbol%s missed by %d module%s\n", nm[g], g,
			       ns[g], (ns[g] > 1) ? "s" : "", nm[g], (nm[g] > 1) ? "s" : ""
	}' "$work/gaps" | sort -t"$tab" -k1,1nr -k2 | cut -f2- | while read -r l; do
	report "gap: $l"
done

echo "intree: from ${config##*/} in $((SECONDS - start)) s; table in $work/result, logs in $logs"
echo "intree: $good of $total modules built and linked" | tee -a "$work/result"
[ $ours_bad = 0 ]
