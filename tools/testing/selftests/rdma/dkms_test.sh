#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The DKMS packaging (dkms.conf at the top of the tree), on the host, as root,
# against the installed 6.12 headers: a copy of the tree goes through
# "dkms add", "dkms build" and "dkms install"; the modules dkms.conf names
# must be exactly the ones "make modules" links, land in updates/dkms built
# for the headers' kernel release with the package version, and win over the
# inbox modules of the same names in modules.dep, and the ib_core dkms
# installed must load in a guest (harness_boot_project on those files);
# "dkms remove --all" must take them away and give the inbox modules back.
#
# Nothing is written outside a temporary folder: dkms runs with its source,
# DKMS and install trees there (the install tree a copy of the kernel's
# inbox modules), its signing key and temporary files there too, and
# --no-depmod (its depmod would index the real /lib/modules); depmod -b runs
# on the copy instead.  The last checks compare the real /usr/src,
# /var/lib/dkms and /lib/modules/<kver> with what they were before.
#
# Prints KTAP; exit status non-zero on any failure.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)

n=0
failed=0

ok() {
	n=$((n + 1))
	echo "ok $n $1"
}

# not_ok DESCRIPTION [DETAIL...]: each detail is printed as a comment line.
not_ok() {
	local l

	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n $1"
	shift
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/# /'
	done
}

# expect DESCRIPTION WANT GOT
expect() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1" "want: $2" "got:  $3"
	fi
}

finish() {
	echo "1..$n"
	echo "# dkms_test: $((n - failed)) passed, $failed failed"
	[ "$failed" -eq 0 ] && exit 0
	exit 1
}

# run DESCRIPTION LOG COMMAND...: the command's output goes to LOG, whose
# tail is shown when it fails.
run() {
	local desc=$1 log=$2 rc

	shift 2
	"$@" >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok "$desc"
		return 0
	fi
	not_ok "$desc" "exit status $rc: $*" "$(tail -n 40 "$log")"
	return 1
}

# The state of the real trees a stray dkms or depmod would write to.
host_state() {
	find /usr/src /var/lib/dkms "/lib/modules/$kver/updates" -maxdepth 4 2>/dev/null | sort
	sha256sum "/lib/modules/$kver/modules.dep"
}

echo "KTAP version 1"
echo "# dkms_test: dkms.conf through dkms add, build, install and remove"

if [ "$(id -u)" != 0 ]; then
	not_ok "running as root" "dkms install and remove need root"
	finish
fi
if ! command -v dkms >/dev/null; then
	not_ok "dkms is installed" "apt-get install dkms (make deps)"
	finish
fi
kver=$(make -s -C "$top" --no-print-directory print-kver)
kdir=/lib/modules/$kver/build
if [ -z "$kver" ] || [ ! -d "/lib/modules/$kver/kernel" ]; then
	not_ok "6.12 headers and modules installed" "kernel release '$kver' from the headers"
	finish
fi
echo "# kernel $kver, headers $kdir, $(dkms --version)"

# The package's name, version and module list, read the way dkms reads
# dkms.conf (sourced, with the kernel variables it provides).
conf_get() {
	# shellcheck disable=SC1091,SC2034 # dkms.conf is read at run time
	(kernelver=$kver kernel_source_dir=$kdir
	 . "$top/dkms.conf" && eval "echo \"\${$1}\"")
}
name=$(conf_get PACKAGE_NAME)
ver=$(conf_get PACKAGE_VERSION)
read -r -a mods <<<"$(conf_get 'BUILT_MODULE_NAME[*]')"
if [ -z "$name" ] || [ -z "$ver" ] || [ ${#mods[@]} -eq 0 ]; then
	not_ok "dkms.conf names package, version and modules" \
		"PACKAGE_NAME='$name' PACKAGE_VERSION='$ver' modules='${mods[*]}'"
	finish
fi
echo "# package $name/$ver, modules ${mods[*]}"

tmp=$(mktemp -d /tmp/dkms_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
before=$(host_state)

# The tree as git knows it (tracked and new files, not build products).
src=$tmp/tree
mkdir -p "$src"
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
	tar --null -T - -cf -) | tar -xf - -C "$src" || {
	not_ok "copy of the tree" "git ls-files | tar failed in $top"
	finish
}

# An install tree holding the kernel's inbox modules, so that ours must win
# over them as on a real system.
inst=$tmp/lib/modules
mkdir -p "$inst/$kver"
cp -a "/lib/modules/$kver/kernel" "/lib/modules/$kver"/modules.builtin* \
	"/lib/modules/$kver/modules.order" "$inst/$kver/"

mkdir -p "$tmp/tmp" "$tmp/src" "$tmp/dkms"
export TMPDIR=$tmp/tmp
# Debian's dkms signs with a key of its own, created on first use under
# /var/lib/dkms unless these name another place.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
D=(dkms --dkmstree "$tmp/dkms" --sourcetree "$tmp/src" --installtree "$inst")
arch=$(uname -m)

# The form of the README: "dkms add ." inside the tree.
# shellcheck disable=SC2317 # called through run
add_here() (
	cd "$src" && "${D[@]}" add .
)
run "dkms add ." "$tmp/add.log" add_here
run "dkms build -m $name -v $ver -k $kver" "$tmp/build.log" \
	"${D[@]}" build -m "$name" -v "$ver" -k "$kver" -j "${DKMS_JOBS:-2}"
makelog=$tmp/dkms/$name/$ver/$kver/$arch/log/make.log
[ -f "$makelog" ] || makelog=$tmp/dkms/$name/$ver/build/make.log
[ -f "$makelog" ] && grep -iE 'error|warning' "$makelog" | head -n 20 | sed 's/^/# make.log: /'
run "dkms install -m $name -v $ver -k $kver" "$tmp/install.log" \
	"${D[@]}" install -m "$name" -v "$ver" -k "$kver" --no-depmod

# Why dkms left a module out, if it did: it says so and still exits 0.
grep -iE 'will not replace|not newer|obsoleted|Diff between' "$tmp/install.log" | sed 's/^/# install.log: /'
status=$("${D[@]}" status -m "$name" -v "$ver" -k "$kver" 2>/dev/null)
expect "dkms status says installed" \
	"$name/$ver, $kver, $arch: installed" "$status"

# dkms.conf lists exactly the modules the tree's "make modules" links.
linked=$(sed -n 's:^ *LD \[M\] *.*/\([^/]*\)\.ko$:\1:p' "$makelog" 2>/dev/null | sort | tr '\n' ' ')
expect "dkms.conf names every module make modules links" \
	"$(printf '%s\n' "${mods[@]}" | sort | tr '\n' ' ')" "$linked"

# In updates/dkms: our modules and nothing else, each built for the
# headers' kernel release and carrying the package version.
dest=$inst/$kver/updates/dkms
got=$(cd "$dest" 2>/dev/null && find . -type f | sed 's:^\./::; s:\.ko\(\.[gx]z\|\.zst\)\?$::' | sort | tr '\n' ' ')
expect "updates/dkms holds exactly the dkms.conf modules" \
	"$(printf '%s\n' "${mods[@]}" | sort | tr '\n' ' ')" "$got"
for m in "${mods[@]}"; do
	f=$(find "$dest" -name "$m.ko*" 2>/dev/null | head -n 1)
	if [ -z "$f" ]; then
		not_ok "$m: installed" "no $m.ko* under $dest"
		continue
	fi
	vermagic=$(modinfo -F vermagic "$f" 2>&1)
	expect "$m: vermagic is $kver" "$kver" "${vermagic%% *}"
	expect "$m: version is $ver" "$ver" "$(modinfo -F version "$f" 2>&1)"
	echo "# $m: signer '$(modinfo -F signer "$f" 2>&1)'"
done

# resolve_under WHAT DIR/: after depmod -b, modinfo over the install tree
# finds each module of dkms.conf under DIR; with DIR the inbox tree, a
# module the kernel does not have (siw, on Debian's) is found nowhere.
resolve_under() {
	local m f

	for m in "${mods[@]}"; do
		f=$(modinfo -b "$tmp" -k "$kver" -n "$m" 2>&1)
		if [ "$2" = "$inst/$kver/kernel/" ] &&
			[ -z "$(find "$2" -name "$m.ko*" -print -quit)" ]; then
			case "$f" in
			"$tmp"/*) not_ok "modinfo -n $m: not in the kernel, found nowhere" "$f" ;;
			*) ok "modinfo -n $m: not in the kernel, found nowhere" ;;
			esac
			continue
		fi
		case "$f" in
		"$2"*) ok "modinfo -n $m: $1 ($f)" ;;
		*) not_ok "modinfo -n $m: $1" "$f" ;;
		esac
	done
}

# depmod over the install tree: ours are the ones modprobe would pick,
# rdma_rxe's dependency on ib_core included.
if run "depmod -b over the install tree" "$tmp/depmod.log" depmod -b "$tmp" "$kver"; then
	resolve_under ours "$dest/"
	dep=$(grep '^updates/dkms/rdma_rxe\.ko[^:]*:' "$inst/$kver/modules.dep")
	case "$dep" in
	*" updates/dkms/ib_core.ko"*) ok "modules.dep: rdma_rxe needs our ib_core" ;;
	*) not_ok "modules.dep: rdma_rxe needs our ib_core" "${dep:-no line for updates/dkms/rdma_rxe}" ;;
	esac
	dep=$(modprobe -d "$tmp" -S "$kver" --show-depends rdma_rxe 2>&1)
	if grep -q "^insmod $dest/ib_core\.ko" <<<"$dep" &&
	   grep -q "^insmod $dest/rdma_rxe\.ko" <<<"$dep" &&
	   ! grep -q "drivers/infiniband" <<<"$dep"; then
		ok "modprobe rdma_rxe loads our ib_core and rdma_rxe, no inbox RDMA module"
	else
		not_ok "modprobe rdma_rxe loads our ib_core and rdma_rxe, no inbox RDMA module" "$dep"
	fi
fi

# The installed files as they are (stripped and signed by dkms), staged
# for a project guest: harness_boot_project boots Debian's installed kernel
# (KROOT=/, the one the headers are for) without its inbox
# drivers/infiniband, loads ib_core from them and unloads it.
stage=$tmp/stage/lib/modules/$kver/updates/dkms
guest="DKMS-built ib_core loads and unloads in a guest (harness_boot_project)"
if [ -z "$(find "$dest" -name 'ib_core.ko*' 2>/dev/null)" ]; then
	not_ok "$guest" "no ib_core installed to boot with"
else
	mkdir -p "$stage"
	for f in "$dest"/*.ko*; do
		case "$f" in
		*.ko.xz) xz -dc "$f" >"$stage/$(basename "$f" .xz)" ;;
		*.ko.gz) gzip -dc "$f" >"$stage/$(basename "$f" .gz)" ;;
		*.ko.zst) zstd -qdc "$f" >"$stage/$(basename "$f" .zst)" ;;
		*.ko) cp "$f" "$stage/" ;;
		esac
	done
	# The guest at the default priority even where make check runs this
	# at nice 19 beside its guest tests: a TCG guest that gets only idle
	# CPU time takes minutes to boot and its kernel reports stalls.
	run "$guest" "$tmp/guest.log" nice -n $((0 - $(nice))) env KROOT=/ KVER="$kver" \
		STAGE="$tmp/stage" BUILD="$tmp/build" "$here/run_tests.sh" harness_boot_project
	staged=$(grep -o 'project stack: .*' "$tmp/guest.log")
	expect "the guest ran on the dkms files" \
		"project stack: ${#mods[@]} staged modules from $tmp/stage/lib/modules/$kver/updates" "$staged"
fi

# Removal: our files go, the inbox modules are in charge again.
run "dkms remove -m $name -v $ver --all" "$tmp/remove.log" \
	"${D[@]}" remove -m "$name" -v "$ver" --all --no-depmod
left=$(find "$inst/$kver/updates" -type f 2>/dev/null)
expect "nothing left under updates/" "" "$left"
expect "dkms status is empty" "" "$("${D[@]}" status -m "$name" 2>/dev/null)"
if run "depmod -b after remove" "$tmp/depmod2.log" depmod -b "$tmp" "$kver"; then
	resolve_under "inbox again" "$inst/$kver/kernel/"
fi

after=$(host_state)
if [ "$before" = "$after" ]; then
	ok "/usr/src, /var/lib/dkms and /lib/modules/$kver untouched"
else
	not_ok "/usr/src, /var/lib/dkms and /lib/modules/$kver untouched" \
		"$(diff <(echo "$before") <(echo "$after") | grep '^[<>]')"
fi
finish
